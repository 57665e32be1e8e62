"""The Viaggio al centro della terra sampler: states a seat cannot tell from the real one, with
the task queue and a move under way rebuilt from the view, and only the cards no one has
shown it (other hands and kept event cards, the decks, a rival's lamp fossils) dealt again at
random; and the search levels it opens, playing a whole match."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.bots.registry import LEVELS, levels_of, make_bot
from service.bots.samplers.viaggio import sample_state
from service.bots.viaggio import ViaggioBot
from service.engine import Rng, State
from service.games.viaggio import GAME
from service.games.viaggio.data import EVENTS, GAME_ID
from tests.games.viaggio.reach import reach
from tests.support.playout import play_out

HIDDEN = ("hands", "kept", "decks", "tasks")
"""What a sample deals again (hands, kept cards, decks) or rebuilds (tasks): the rest of the
state is the view's, as it is."""


def states(players: int, seed: int) -> Iterator[State]:
    """Copies of every state of one seeded match, the heuristic bot in every other seat."""
    rng, chooser = Rng(seed.to_bytes(32, "big")), random.Random(seed)
    bots = [ViaggioBot() if s % 2 else None for s in range(players)]
    state = GAME.setup(players, {}, rng)
    while to_act := GAME.to_act(state):
        yield copy.deepcopy(state)
        seat = to_act[0]
        legal = GAME.legal_actions(state, seat)
        bot = bots[seat]
        action = bot.choose(GAME.view(state, seat), legal, chooser) if bot else chooser.choice(legal)
        state, _ = GAME.apply(state, seat, action, rng)


def checkpoints(players: int, seed: int) -> list[State]:
    """Every 9th state, and the first few where the queue holds each kind of task."""
    every = list(states(players, seed))
    picked = every[::9]
    for kind in ("move", "lamp", "discover", "events", "favorable", "offer", "lightning", "loss", "lava"):
        picked += [s for s in every if any(t["kind"] == kind for t in s["tasks"])][:3]
    return picked


def as_seen_by(tasks: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    """The queue with a rival's lamp fossils (unseen by ``seat``) reduced to their number."""
    return [{**t, "drawn": len(t["drawn"])} if t["kind"] == "lamp" and t["seat"] != seat else t for t in tasks]


def unseen(state: State, seat: int) -> dict[str, Counter[str]]:
    """Each pile of cards ``seat`` has not seen, as a mix: a deck with the others' part of it."""
    others = [s for s in range(state["players"]) if s != seat]
    out = {"fossil": Counter(state["decks"]["fossil"]), "adventure": Counter(state["decks"]["adventure"])}
    for part in ("explorer", "equipment"):
        out[part] = Counter(state["decks"][part])
        for s in others:
            out[part] += Counter(state["hands"][s][part])
    out["event"] = Counter(state["decks"]["event"]) + Counter(e for s in others for e in state["kept"][s])
    for task in state["tasks"]:
        if task["kind"] == "lamp" and task["seat"] != seat:
            out["fossil"] += Counter(task["drawn"])
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_seat_sees_the_same_view_and_legal_actions_and_the_queue_is_rebuilt(players: int) -> None:
    for seed in range(2):
        for state in checkpoints(players, seed):
            for seat in range(players):
                view = GAME.view(state, seat)
                sample = sample_state(GAME, view, seat, random.Random(seed))
                assert GAME.view(sample, seat) == view
                assert GAME.legal_actions(sample, seat) == GAME.legal_actions(state, seat)
                assert as_seen_by(sample["tasks"], seat) == as_seen_by(state["tasks"], seat)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_only_the_cards_the_seat_has_not_seen_are_dealt_again(players: int) -> None:
    for state in checkpoints(players, seed=5):
        for seat in range(players):
            sample = sample_state(GAME, GAME.view(state, seat), seat, random.Random(seat))
            assert {k: v for k, v in sample.items() if k not in HIDDEN} == {
                k: v for k, v in state.items() if k not in HIDDEN
            }
            assert sample["hands"][seat] == state["hands"][seat] and sample["kept"][seat] == state["kept"][seat]
            assert unseen(sample, seat) == unseen(state, seat), "the same cards, differently dealt"
            kept = [e for s, cards in enumerate(sample["kept"]) if s != seat for e in cards]
            assert all(EVENTS[e]["kept"] for e in kept), "only cards that are kept are held"


def test_hidden_cards_vary_with_the_seed() -> None:
    state = next(s for s in states(3, seed=1) if s["phase"] == 1 and len(s["decks"]["fossil"]) < 60)
    samples = [sample_state(GAME, GAME.view(state, 0), 0, random.Random(n)) for n in range(50)]
    assert len({repr(s["hands"][1:]) for s in samples}) > 40
    for deck in ("explorer", "equipment", "fossil", "event", "adventure"):
        assert len({tuple(s["decks"][deck]) for s in samples}) > 40, deck


def test_a_rivals_lamp_fossils_are_drawn_from_the_unseen_ones_and_the_drawers_are_kept() -> None:
    reached = reach(lambda s, _seat, _legal: s["tasks"][0]["kind"] == "lamp", range(40))
    state, drawer = reached.state, reached.seat
    lamp = state["tasks"][0]
    own = sample_state(GAME, GAME.view(state, drawer), drawer, random.Random(0))
    assert own["tasks"][0] == lamp
    rival = (drawer + 1) % state["players"]
    drawn = set()
    for n in range(30):
        sample = sample_state(GAME, GAME.view(state, rival), rival, random.Random(n))
        assert len(sample["tasks"][0]["drawn"]) == len(lamp["drawn"])
        assert unseen(sample, rival)["fossil"] == unseen(state, rival)["fossil"]
        drawn.add(tuple(sample["tasks"][0]["drawn"]))
    assert len(drawn) > 5


def test_fossils_returned_to_the_bottom_stay_there_but_a_rivals_lamp_returns() -> None:
    """A lamp's returns are known to its drawer, *Possibilità favorevole*'s to everyone: in
    every sample they lie on the bottom of the deck, as they do in the state; the cards a
    rival's lamp returned are drawn from the unseen ones."""

    def both_kinds(state: State, _seat: int, _legal: list[dict[str, Any]]) -> bool:
        return {put["lamp"] for put in state["fossil_bottom"]} == {True, False}

    state = reach(both_kinds, range(60)).state
    bottom, deck = state["fossil_bottom"], state["decks"]["fossil"]
    for seat in range(state["players"]):
        known = [i for i, put in enumerate(bottom) if not put["lamp"] or put["seat"] == seat]
        drawn = set()
        for n in range(20):
            sample = sample_state(GAME, GAME.view(state, seat), seat, random.Random(n))
            assert sample["fossil_bottom"] == bottom
            assert [sample["decks"]["fossil"][i] for i in known] == [deck[i] for i in known]
            drawn.add(tuple(sample["decks"]["fossil"][: len(bottom)]))
        assert (len(drawn) > 1) == (len(known) < len(bottom)), "only a rival's lamp returns are drawn"


def test_a_move_under_way_is_rebuilt_from_its_path() -> None:
    """Rock spaces, a chasm crossed with a rope and a diagonal step with a compass: the
    engine's tallies of the move, worked out again from the path the view shows."""

    def tricky(state: State, _seat: int, _legal: list[dict[str, Any]]) -> bool:
        move = state["tasks"][0]
        return move["kind"] == "move" and bool(move["rocks"]) and move["ropes_used"] + move["compasses_used"] > 0

    state = reach(tricky, range(40)).state
    for seat in range(state["players"]):
        sample = sample_state(GAME, GAME.view(state, seat), seat, random.Random(seat))
        assert sample["tasks"] == state["tasks"]


def test_levels_3_to_5_are_offered_and_level_3_plays_a_whole_match() -> None:
    """Level 3 on a clock so short that it runs one descent per decision (a whole match at its
    real budget takes minutes here); every action it picks is checked against the legal list."""
    assert levels_of(GAME_ID) == LEVELS
    bots = [make_bot(GAME_ID, "level3", within_s=0.001), make_bot(GAME_ID, "level2")]
    played = play_out(GAME, bots, seed=3, json_view=True)
    assert played.decisions[0] > 50 and len(played.outcome["ranks"]) == 2
