"""Checks of the engine contract that hold for every game, used by each game's tests.

:func:`random_playout` plays a match with uniformly random legal actions and, at every
decision, checks what DESIGN.md promises: the state round-trips through JSON exactly, every
seat in ``to_act`` has legal actions, ``apply`` accepts what ``legal_actions`` lists and
rejects (without changing anything) what it does not, views are JSON-safe, and a finished
match has a valid outcome. :func:`assert_replays` checks determinism.
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

import orjson

from service.engine import Game, IllegalAction, NotYourTurn, Rng


@dataclass
class Playout:
    """What a random playout did: the moves in order and the final state."""

    seed: bytes
    players: int
    options: dict[str, Any]
    moves: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    state: dict[str, Any] = field(default_factory=dict)
    rng_counter: int = 0


def roundtrip(value: Any) -> Any:
    """``value`` through JSON and back; must be equal to ``value``."""
    return orjson.loads(orjson.dumps(value))


def random_playout(
    game: Game,
    players: int,
    options: dict[str, Any] | None = None,
    *,
    seed: int = 0,
    max_steps: int = 20_000,
    probe_illegal: bool = True,
) -> Playout:
    """Play one match to its end with random legal actions, checking the contract as it goes.

    ``probe_illegal`` also submits, at each decision, one action that is not in the legal
    list (a legal action with a changed value, or another seat acting) and checks that it is
    refused and changes nothing.
    """
    chooser = random.Random(seed)
    rng_seed = seed.to_bytes(32, "big")
    resolved = game.resolve_options(players, options or {})
    rng = Rng(rng_seed)
    state = game.setup(players, resolved, rng)
    playout = Playout(rng_seed, players, resolved)
    for _ in range(max_steps):
        assert roundtrip(state) == state, "state does not round-trip through JSON"
        to_act = game.to_act(state)
        if not to_act:
            break
        assert game.outcome(state) is None, "outcome given while seats still owe decisions"
        assert to_act == sorted(set(to_act)) and all(0 <= s < players for s in to_act)
        for viewer in [None, *range(players)]:
            roundtrip(game.view(state, viewer))
        seat = chooser.choice(to_act)
        legal = game.legal_actions(state, seat)
        assert legal, f"seat {seat} owes a decision but has no legal action"
        if probe_illegal:
            _probe_illegal(game, state, seat, legal, to_act, players, chooser)
        action = copy.deepcopy(chooser.choice(legal))
        rng = Rng(rng_seed, rng.position())
        state, events = game.apply(state, seat, action, rng)
        roundtrip(events)
        playout.moves.append((seat, action))
    else:
        raise AssertionError(f"no end after {max_steps} decisions")
    outcome = game.outcome(state)
    assert outcome is not None, "the match ended without an outcome"
    assert len(outcome["scores"]) == players and len(outcome["ranks"]) == players
    assert all(1 <= r <= players for r in outcome["ranks"])
    assert set(outcome["winners"]) <= set(range(players))
    assert all(game.legal_actions(state, s) == [] for s in range(players))
    playout.state = state
    playout.rng_counter = rng.position()
    return playout


def _probe_illegal(
    game: Game,
    state: dict[str, Any],
    seat: int,
    legal: list[dict[str, Any]],
    to_act: list[int],
    players: int,
    chooser: random.Random,
) -> None:
    before = roundtrip(state)
    idle = [s for s in range(players) if s not in to_act]
    if idle:
        try:
            game.apply(state, chooser.choice(idle), legal[0], Rng(b"probe"))
        except NotYourTurn:
            pass
        else:
            raise AssertionError("a seat that owes no decision was allowed to act")
        assert state == before, "a refused action changed the state"
    bogus = dict(chooser.choice(legal))
    bogus["__probe__"] = 1
    try:
        game.apply(state, seat, bogus, Rng(b"probe"))
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"an action with an unknown field was accepted: {bogus}")
    assert state == before, "a refused action changed the state"


def assert_replays(game: Game, playout: Playout) -> None:
    """Replaying the same seed and moves gives the same final state and rng position."""
    rng = Rng(playout.seed)
    state = game.setup(playout.players, playout.options, rng)
    for seat, action in playout.moves:
        rng = Rng(playout.seed, rng.position())
        state, _ = game.apply(state, seat, copy.deepcopy(action), rng)
    assert state == playout.state
    assert rng.position() == playout.rng_counter
