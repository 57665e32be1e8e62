"""The Halunken und Spelunken sampler: states a seat cannot tell from the real one, drawn at
random where the seat cannot see, playable to the end, and rebuilding the resolution queue the
view leaves out."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from service.bots.samplers.halunken_und_spelunken import sample_state
from service.engine import Rng, State
from service.games.halunken_und_spelunken import GAME
from tests.support.playout import play_on_at_random

TABLES = [(2, "two-player"), (3, "standard"), (4, "standard"), (3, "introductory"), (4, "introductory")]


def states(players: int, variant: str, seed: int) -> Iterator[State]:
    """Every state of one seeded random match, from the set-up to the last decision."""
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, {"variant": variant}), rng)
    while to_act := GAME.to_act(state):
        yield state
        seat = chooser.choice(to_act)
        state, _ = GAME.apply(state, seat, chooser.choice(GAME.legal_actions(state, seat)), rng)


def checkpoints(players: int, variant: str, seed: int) -> list[State]:
    """The start, the middle and the near end of one match, plus every state where the
    resolution waits for a decision (where the queue must be rebuilt)."""
    every = [GAME.upgrade_state(copy.deepcopy(s)) for s in states(players, variant, seed)]
    picked = [every[0], every[len(every) // 2], every[-2]]
    return picked + [s for s in every if s["phase"] == "resolve"][:6]


@pytest.mark.parametrize("players,variant", TABLES)
def test_every_seat_sees_the_same_view_and_the_queue_is_rebuilt(players: int, variant: str) -> None:
    for seed in range(4):
        for state in checkpoints(players, variant, seed):
            for seat in range(players):
                view = GAME.view(state, seat)
                sample = sample_state(GAME, view, seat, random.Random(seed))
                assert GAME.view(sample, seat) == view
                assert sample["queue"] == state["queue"], "the public resolution queue, rebuilt"


@pytest.mark.parametrize("players,variant", TABLES)
def test_a_sample_plays_on_to_an_outcome(players: int, variant: str) -> None:
    for seed in range(3):
        for state in checkpoints(players, variant, seed):
            seat = GAME.to_act(state)[0]
            sample = sample_state(GAME, GAME.view(state, seat), seat, random.Random(seed))
            outcome = play_on_at_random(GAME, sample, random.Random(seed), Rng(bytes(32)))
            assert outcome is not None and len(outcome["scores"]) == players


def _first(players: int, variant: str, wanted: Any) -> tuple[State, int]:
    for seed in range(50):
        for state in states(players, variant, seed):
            for seat in range(players):
                if wanted(state, seat):
                    return GAME.upgrade_state(copy.deepcopy(state)), seat
    raise AssertionError("no such state")


def test_hidden_tavern_cards_vary_and_are_not_the_true_ones() -> None:
    state, seat = _first(4, "standard", lambda s, _: s["phase"] == "choose" and s["round"] == 2)
    view = GAME.view(state, seat)
    buried = [tuple(t[1:]) for t in state["taverns"]]
    samples = [sample_state(GAME, view, seat, random.Random(n)) for n in range(200)]
    for sample in samples:
        assert [t[0] if t else None for t in sample["taverns"]] == [t[0] if t else None for t in state["taverns"]]
    same = sum(1 for sample in samples if [tuple(t[1:]) for t in sample["taverns"]] == buried)
    assert same == 0, "the face-down cards are dealt afresh, not copied"
    seen = {c for cards in view["collections"] for c in cards} | set(view["harbour"])
    for sample in samples:
        hidden = [c for t in sample["taverns"] for c in t[1:]]
        assert not seen & set(hidden) and len(set(hidden)) == len(hidden), "only cards no one has seen"


def test_rivals_commits_are_drawn_from_their_hands_not_copied() -> None:
    state, seat = _first(
        4,
        "standard",
        lambda s, me: s["phase"] == "choose" and s["commits"][me] is None and s["commits"].count(None) == 1,
    )
    view = GAME.view(state, seat)
    counts: dict[int, Counter[Any]] = {s: Counter() for s in range(4) if s != seat}
    for n in range(400):
        sample = sample_state(GAME, view, seat, random.Random(n))
        assert sample["commits"][seat] is None
        for rival, tally in counts.items():
            card = sample["commits"][rival]
            assert card in state["hands"][rival], "a card still in the rival's hand"
            tally[card] += 1
    for rival, tally in counts.items():
        assert len(tally) == len(state["hands"][rival]), "every card of the hand is drawn"
        assert tally[state["commits"][rival]] < 400 / len(state["hands"][rival]) * 1.6, "not the true card"


def test_black_jack_deck_is_shuffled_from_the_unused_cards() -> None:
    state, seat = _first(3, "standard", lambda s, _: s["phase"] == "choose" and s["round"] == 3)
    view = GAME.view(state, seat)
    orders = {tuple(sample_state(GAME, view, seat, random.Random(n))["black_jack_deck"]) for n in range(50)}
    assert len(orders) > 40
    assert all(sorted(o) == sorted(state["black_jack_deck"]) for o in orders)


def test_two_player_controllers_card_is_hidden_from_the_rival_only() -> None:
    def committed(s: State, me: int) -> bool:
        return s["black_jack_commit"] is not None and s["controller"] not in (None, me)

    state, seat = _first(2, "two-player", committed)
    view = GAME.view(state, seat)
    drawn = Counter(sample_state(GAME, view, seat, random.Random(n))["black_jack_commit"] for n in range(300))
    assert set(drawn) == set(state["black_jack_deck"])
    controller = state["controller"]
    own = sample_state(GAME, GAME.view(state, controller), controller, random.Random(0))
    assert own["black_jack_commit"] == state["black_jack_commit"], "the controller knows its own card"


def test_during_the_set_up_every_tavern_card_is_hidden() -> None:
    state = next(states(3, "standard", 0))
    view = GAME.view(state, 0)
    tops = {sample_state(GAME, view, 0, random.Random(n))["taverns"][0][0] for n in range(50)}
    assert len(tops) > 20
