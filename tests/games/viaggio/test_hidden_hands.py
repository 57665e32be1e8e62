"""Viaggio: a hidden hand never shows through who is asked, what is seen or what happens.

Over whole seeded matches, at every decision, each seat's hidden hand (explorer cards,
equipment cards, kept event cards) is replaced by a different one of the same sizes. Every
other seat must then see the same view, the same ``to_act``, and — after the same action —
the same events and the same next ``to_act``. Before issue 13 a seat that could not pay a sea
adventure, protect itself, pay a discovery, save fossils in the lava or return two different
lamp fossils was skipped without a decision, which told the table what it held.
"""

from __future__ import annotations

import copy
import random

import pytest

from service.bots.viaggio import ViaggioBot
from service.engine import IllegalAction, Rng
from service.games.viaggio import GAME
from service.games.viaggio.data import COLOURS, EQUIP, FLEX, LIQUID, LUCK, MIX

SWAPPABLE_KEPT = (MIX, FLEX, LUCK)  # Permanenza in liquido plays itself at the water check, so it stays


def other_hand(state: dict, seat: int, rnd: random.Random) -> dict:
    """``state`` with ``seat``'s hidden hand replaced by another of the same sizes; a kept
    event card changed trades places with one of the event deck."""
    out = copy.deepcopy(state)
    hand = out["hands"][seat]
    for part, names in (("explorer", COLOURS), ("equipment", EQUIP)):
        total = sum(hand[part].values())
        counts = dict.fromkeys(names, 0)
        for _ in range(total):
            counts[rnd.choice(names)] += 1
        hand[part] = counts
    deck = out["decks"]["event"]
    reach = len(deck) - _event_cards_drawn_next(out)
    for i, card in enumerate(out["kept"][seat]):
        wanted = card if card == LIQUID else rnd.choice(SWAPPABLE_KEPT)
        # Trade places with the deck's deepest card of that kind, out of this action's reach:
        # the cards out of the game are public, so the kept cards and the deck hold the rest.
        where = next((j for j, other in enumerate(deck[:reach]) if other == wanted != card), None)
        if where is not None:
            deck[where], out["kept"][seat][i] = card, wanted
    return out


def _event_cards_drawn_next(state: dict) -> int:
    """The most event cards the next action can turn: those of the move under way or of the
    event cards still to turn this turn."""
    head = state["tasks"][0]
    if head["kind"] == "move":
        return int(head["events"])
    return sum(int(t["n"]) for t in state["tasks"] if t["kind"] == "events")


def observed(state: dict, viewer: int, events: list | None = None) -> tuple:
    return GAME.view(state, viewer), GAME.to_act(state), GAME.visible_events(events or [], viewer)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_changing_a_hidden_hand_changes_nothing_the_others_observe(players: int, seed: int) -> None:
    rnd = random.Random(seed)
    chooser = random.Random(seed + 100)
    bots = [ViaggioBot() if s % 2 else None for s in range(players)]
    rng = Rng(seed.to_bytes(32, "big"))
    state = GAME.setup(players, {}, rng)
    compared = 0
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        legal = GAME.legal_actions(state, seat)
        bot = bots[seat]
        action = bot.choose(GAME.view(state, seat), legal, chooser) if bot else chooser.choice(legal)
        position = rng.position()
        for changed in range(players):
            twin = other_hand(state, changed, rnd)
            others = [s for s in range(players) if s != changed]
            for viewer in others:
                assert observed(twin, viewer) == observed(state, viewer)
            try:
                twin_after, twin_events = GAME.apply(
                    twin, seat, copy.deepcopy(action), Rng(seed.to_bytes(32, "big"), position)
                )
            except IllegalAction:
                assert seat == changed, "only the changed seat's own choices may depend on its hand"
                continue
            after, events = GAME.apply(
                copy.deepcopy(state), seat, copy.deepcopy(action), Rng(seed.to_bytes(32, "big"), position)
            )
            for viewer in others:
                assert observed(twin_after, viewer, twin_events) == observed(after, viewer, events), (viewer, action)
            compared += 1
        rng = Rng(seed.to_bytes(32, "big"), position)
        state, _ = GAME.apply(state, seat, action, rng)
    assert compared > 300
