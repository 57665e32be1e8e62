"""The Isola dei Vulcani sampler: states a seat cannot tell from the real one, for both set-ups,
playable to the end; the volcano tokens and the others' secret rescue answers drawn at random,
the map and the steps behind an open decision rebuilt from what every seat saw."""

from __future__ import annotations

import copy
import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from service.bots.samplers.isola_dei_vulcani import sample_state
from service.engine import Rng, State
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani.board import tile_of_hex
from tests.support.playout import play_on_at_random

TABLES = [(p, setup) for p in (2, 3, 4) for setup in ("standard", "advanced")]


def played(players: int, setup: str, seed: int) -> Iterator[State]:
    """Every state of one seeded random match as it is played: one kept past the next step is
    copied by its taker."""
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, {"setup": setup}), rng)
    while to_act := GAME.to_act(state):
        yield state
        seat = chooser.choice(to_act)
        state, _ = GAME.apply(state, seat, chooser.choice(GAME.legal_actions(state, seat)), rng)


def states(players: int, setup: str, seed: int) -> Iterator[State]:
    """Copies of every state of one seeded random match."""
    return map(copy.deepcopy, played(players, setup, seed))


def checkpoints(players: int, setup: str, seed: int) -> list[State]:
    """The start, the middle and the near end of a match, and its first open decisions."""
    every = list(states(players, setup, seed))
    return [every[0], every[len(every) // 2], every[-2]] + [s for s in every if s["decision"]][:4]


def first(wanted: Callable[[State], bool], players: int = 3, setup: str = "standard") -> State:
    for seed in range(20):
        for state in played(players, setup, seed):
            if wanted(state):
                return copy.deepcopy(state)
    raise AssertionError("no such state")


@pytest.mark.parametrize("players,setup", TABLES)
def test_every_seat_sees_the_same_view(players: int, setup: str) -> None:
    for seed in range(3):
        for state in checkpoints(players, setup, seed):
            for seat in range(players):
                view = GAME.view(state, seat)
                sample = sample_state(GAME, view, seat, random.Random(seed))
                assert GAME.view(sample, seat) == view
                assert tile_of_hex(sample["placements"]) == tile_of_hex(state["placements"]), "the map, rebuilt"
                assert sample["geysers"] == state["geysers"]


@pytest.mark.parametrize("players,setup", TABLES)
def test_a_sample_plays_on_to_an_outcome(players: int, setup: str) -> None:
    for seed in range(2):
        for state in checkpoints(players, setup, seed):
            seat = GAME.to_act(state)[0]
            sample = sample_state(GAME, GAME.view(state, seat), seat, random.Random(seed))
            outcome = play_on_at_random(GAME, sample, random.Random(seed), Rng(bytes(32)))
            assert outcome is not None and len(outcome["scores"]) == players


def test_volcano_tokens_are_shuffled() -> None:
    state = first(lambda s: len(s["volcano_tokens"]) >= 4)
    view = GAME.view(state, 0)
    orders = Counter(tuple(sample_state(GAME, view, 0, random.Random(n))["volcano_tokens"]) for n in range(100))
    assert len(orders) > 20
    assert all(sorted(o) == sorted(state["volcano_tokens"]) for o in orders)


def test_a_rescue_is_followed_by_a_new_check_for_sinking_and_its_secret_answers_are_drawn() -> None:
    # Random play seldom strands colonists of three seats on one sinking part: this takes the
    # first rescue of a seeded match and gives both other seats colonists there, the first of
    # them having answered in secret.
    state = first(lambda s: s["decision"] is not None and s["decision"]["kind"] == "rescue", 3, "advanced")
    decision = state["decision"]
    assert decision is not None and state["queue"] == [{"step": "sink"}]
    actor = decision["actor"]
    secret, viewer = [s for s in range(3) if s != actor]
    for seat in (secret, viewer):
        state["hexes"][decision["part"][0]]["colonists"][seat] += 1
    decision.update(stage="others", others=[secret, viewer], waiting=[viewer], moves={str(secret): None})
    view = GAME.view(state, viewer)
    drawn: Counter[str | None] = Counter()
    for n in range(40):  # every answer is drawn within the first 4
        sample = sample_state(GAME, view, viewer, random.Random(n))
        assert GAME.view(sample, viewer) == view
        assert sample["queue"] == [{"step": "sink"}]
        assert sample["decision"]["others"] == [secret, viewer]
        drawn[sample["decision"]["moves"][str(secret)]] += 1
    assert set(drawn) == {*decision["targets"], None}, "any answer it could have given"
    own = sample_state(GAME, GAME.view(state, secret), secret, random.Random(0))
    assert own["decision"]["moves"] == {str(secret): None}, "its own answer it knows"


def test_a_prayer_after_an_erected_moai_keeps_its_points_and_the_check_for_sinking_behind_it() -> None:
    def after_erection(s: State) -> bool:
        return s["decision"] is not None and s["decision"]["kind"] == "prayer" and len(s["queue"]) == 2

    state = first(after_erection)
    view = GAME.view(state, 0)
    for n in range(20):
        queue = sample_state(GAME, view, 0, random.Random(n))["queue"]
        assert [step["step"] for step in queue] == ["score", "sink"]
        assert queue[0]["seat"] == state["current"]
        assert state["geysers"][queue[0]["geyser"]]["moai"] == state["current"]
