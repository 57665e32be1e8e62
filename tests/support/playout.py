"""Seeded matches played in process by bots: the loop every bot test shares.

Every choice is checked against the legal list, so a bot that ever picks an illegal action
fails the test that plays it. The seed fixes the deal (``Rng``) and the bots' own choices
(``random.Random``), so a strength test plays the same matches on every run.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from service.engine import Game, Outcome, Rng, State


@dataclass(frozen=True)
class Playout:
    """How a match ended: the final state, its outcome and how many decisions each seat made."""

    state: State
    outcome: Outcome
    decisions: list[int]


def play_out(
    game: Game,
    bots: list[Any],
    seed: int,
    options: dict[str, Any] | None = None,
    *,
    seed_bytes: int = 32,
    random_seat: bool = False,
    json_view: bool = False,
    max_decisions: int = 20_000,
    on_move: Callable[[State, int, list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]], None] | None = None,
) -> Playout:
    """Play one match with ``bots[seat]`` deciding for each seat.

    ``random_seat`` picks which of several seats owing a decision moves next at random
    (else the lowest); ``json_view`` hands each bot a JSON copy of its view, as it would get
    over HTTP. ``on_move(state before, seat, legal, action, events)`` sees every move, for
    tests that look at the match along the way.
    """
    players = len(bots)
    rng = Rng(seed.to_bytes(seed_bytes, "big"))
    chooser = random.Random(seed)
    state = game.setup(players, game.resolve_options(players, options or {}), rng)
    decisions = [0] * players
    while to_act := game.to_act(state):
        assert sum(decisions) < max_decisions, f"no end after {max_decisions} decisions"
        seat = chooser.choice(to_act) if random_seat else to_act[0]
        legal = game.legal_actions(state, seat)
        view = game.view(state, seat)
        if json_view:
            view = orjson.loads(orjson.dumps(view))
        action = bots[seat].choose(view, legal, chooser)
        assert action in legal, (seat, action)
        before = orjson.loads(orjson.dumps(state)) if on_move else state  # engines may change state in place
        state, events = game.apply(state, seat, action, rng)
        if on_move:
            on_move(before, seat, legal, action, events)
        decisions[seat] += 1
    outcome = game.outcome(state)
    assert outcome is not None
    return Playout(state, outcome, decisions)


def play_on_at_random(game: Game, state: State, chooser: random.Random, rng: Rng) -> Outcome | None:
    """Play ``state`` on to the end, each decision by a random one of the seats owing one with
    a random legal action (both drawn from ``chooser``, in that order); the outcome."""
    while to_act := game.to_act(state):
        seat = chooser.choice(to_act)
        state, _ = game.apply(state, seat, chooser.choice(game.legal_actions(state, seat)), rng)
    return game.outcome(state)
