"""Every game's sampler, and the search on top of it that never peeks.

Parametrized over every game whose sampler module exists (``service.bots.samplers.<module>``,
named like the game's heuristic bot module), on states reached by seeded random play at every
player count: a sample looks exactly like the real state to its seat, plays on to an outcome,
varies with the seed where the seat has something hidden, and the search bot decides the same
on the real state and on a sample of it.
"""

from __future__ import annotations

import importlib.util
import inspect
import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service.bots.registry import HEURISTIC_BOTS, heuristic_bot, sampler_of
from service.bots.search import Budget, SearchBot
from service.engine import Game, Rng, State
from service.games import games
from tests.support.playout import play_on_at_random


def sampled_games() -> list[str]:
    """The games whose sampler module exists on this tree."""
    return [
        game_id
        for game_id, (module, _) in sorted(HEURISTIC_BOTS.items())
        if importlib.util.find_spec(f"service.bots.samplers.{module.rsplit('.', 1)[1]}") is not None
    ]


def reached_states(game: Game[Any], players: int, seed: int, every: int) -> Iterator[tuple[State, int]]:
    """(state, a seat owing a decision) every ``every`` decisions of a seeded random match,
    from the first decision on; each state a copy, free to be changed."""
    rng, chooser = Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    decisions = 0
    while to_act := game.to_act(state):
        seat = chooser.choice(to_act)
        if decisions % every == 0:
            yield orjson.loads(orjson.dumps(state)), seat
        state, _ = game.apply(state, seat, chooser.choice(game.legal_actions(state, seat)), rng)
        decisions += 1


def canonical(state: State) -> bytes:
    return orjson.dumps(state, option=orjson.OPT_SORT_KEYS)


def cases() -> list[tuple[str, int]]:
    return [
        (game_id, players)
        for game_id in sampled_games()
        for players in range(games()[game_id].min_players, games()[game_id].max_players + 1)
    ]


@pytest.mark.parametrize(("game_id", "players"), cases())
def test_a_sample_looks_like_the_state_to_its_seat_and_plays_on_to_an_outcome(game_id: str, players: int) -> None:
    game, sample = games()[game_id], sampler_of(game_id)
    for state, seat in reached_states(game, players, seed=players, every=7):
        view = game.view(state, seat)
        drawn = sample(game, orjson.loads(orjson.dumps(view)), seat, random.Random(1))
        assert orjson.loads(orjson.dumps(drawn)) == drawn, "a sample is plain JSON, like a state"
        assert game.view(drawn, seat) == view
        assert game.legal_actions(drawn, seat) == game.legal_actions(state, seat)
        outcome = play_on_at_random(game, drawn, random.Random(2), Rng(b"playing on"))
        assert outcome is not None and len(outcome["ranks"]) == players


@pytest.mark.parametrize(("game_id", "players"), [case for case in cases() if case[1] > 1])
def test_samples_differ_with_the_seed_where_the_seat_has_something_hidden(game_id: str, players: int) -> None:
    """At the first decision of a match with other seats, their hands (at least) are hidden."""
    game, sample = games()[game_id], sampler_of(game_id)
    state, seat = next(reached_states(game, players, seed=players, every=1))
    view = game.view(state, seat)
    drawn = {
        orjson.dumps(sample(game, view, seat, random.Random(seed)), option=orjson.OPT_SORT_KEYS) for seed in range(8)
    }
    assert len(drawn) > 1


def test_the_search_is_handed_a_view_and_legal_actions_never_a_state() -> None:
    assert list(inspect.signature(SearchBot.choose).parameters) == ["self", "view", "legal", "rng"]


@pytest.mark.parametrize(("game_id", "players"), cases())
def test_the_search_never_peeks(game_id: str, players: int) -> None:
    """A state and another with the same view for the seat (drawn by the sampler from that
    view): the level-3 search decides the same on both under the same seed. The budget is
    iterations only (no time cap), so the machine's speed cannot make them differ; enough
    worlds that a challenger could overturn the heuristic's move. The states are the three with
    a choice around the middle of a seeded random match: each rollout still plays the
    heuristic for every seat through about half a match, in which the hidden cards decide the
    outcome, at about half the cost of rollouts from the first decisions."""
    game, sample = games()[game_id], sampler_of(game_id)
    bot = SearchBot(game, sample, heuristic_bot(game_id), Budget(iterations=8, seconds=1e9, candidates=2))
    choices = [
        (state, seat)
        for state, seat in reached_states(game, players, seed=10 + players, every=11)
        if len(game.legal_actions(state, seat)) > 1
    ]
    middle = len(choices) // 2
    assert choices
    for state, seat in choices[max(0, middle - 1) : middle + 2]:
        twin = sample(game, game.view(state, seat), seat, random.Random(3))
        assert canonical(twin) != canonical(state) or players == 1
        real = bot.choose(game.view(state, seat), game.legal_actions(state, seat), random.Random(4))
        other = bot.choose(game.view(twin, seat), game.legal_actions(twin, seat), random.Random(4))
        assert real == other
