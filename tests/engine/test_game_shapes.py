"""Every view, event, legal action and outcome the engines produce fits the per-game types the
OpenAPI document publishes (schemas/game_types.py, service/games/<game>/shapes.json): an engine that
changes a shape without its declaration fails here."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import orjson
import pytest
from jsonschema_rs import Draft202012Validator

from schemas.game_types import game_prefix
from service.engine import Game, Rng
from service.games import games
from service.server.cli import spec_bytes

MAX_STEPS = 4_000


@cache
def spec() -> dict[str, Any]:
    return orjson.loads(spec_bytes())


def validator(name: str) -> Draft202012Validator:
    """jsonschema-rs: the same verdicts as the pure-Python jsonschema, a hundred times faster on
    these views (their checks were 30 of this module's 34 s)."""
    return Draft202012Validator({"$ref": f"#/components/schemas/{name}", "components": spec()["components"]})


def option_variants(game: Game, players: int) -> list[dict[str, Any]]:
    """The default options, then each option set to each other value it accepts here."""
    variants: list[dict[str, Any]] = [{}]
    for option in game.options:
        values = [not option.default] if option.kind == "bool" else list(option.choices)
        variants += [{option.name: value} for value in values]
    fitting = []
    for options in variants:
        try:
            game.resolve_options(players, options)
        except Exception:
            continue
        fitting.append(options)
    return fitting


def unseen(produced: Any, seen: set[bytes]) -> bool:
    """Whether ``produced`` is new to ``seen`` (it is added): the same JSON fits a schema or not
    every time, and a match repeats most of its legal actions and many of its events, so each
    distinct one is validated once (about twenty times fewer action validations)."""
    key = orjson.dumps(produced, option=orjson.OPT_SORT_KEYS)
    if key in seen:
        return False
    seen.add(key)
    return True


@pytest.mark.parametrize("game_id", list(games()))
def test_what_the_engine_produces_fits_the_published_types(game_id: str) -> None:
    game = games()[game_id]
    prefix = game_prefix(game)
    view, event, action, detail = (validator(prefix + kind) for kind in ("View", "Event", "Action", "OutcomeDetail"))
    finished = 0
    actions_seen: set[bytes] = set()
    events_seen: set[bytes] = set()
    for players in sorted({game.min_players, game.max_players}):
        for number, options in enumerate(option_variants(game, players)):
            chooser = random.Random(f"{game_id}/{players}/{number}")
            rng = Rng(bytes([players, number]) * 16)
            state = game.setup(players, game.resolve_options(players, options), rng)
            for _ in range(MAX_STEPS):
                to_act = game.to_act(state)
                for viewer in [None, *range(players)]:
                    view.validate(game.view(state, viewer))
                if not to_act:
                    break
                seat = chooser.choice(to_act)
                legal = game.legal_actions(state, seat)
                for candidate in filter(lambda a: unseen(a, actions_seen), legal):
                    action.validate(candidate)
                    game.action_shapes.check(candidate)  # Game.check skips it for listed actions
                state, events = game.apply(state, seat, chooser.choice(legal), rng)
                for produced in filter(lambda e: unseen(e, events_seen), events):
                    event.validate(produced)
            outcome = game.outcome(state)
            if outcome is not None:
                detail.validate(outcome["detail"])
                finished += 1
    assert finished, "no match finished: raise MAX_STEPS"


def test_every_game_has_its_types_in_the_document() -> None:
    schemas = spec()["components"]["schemas"]
    for game in games().values():
        prefix = game_prefix(game)
        union = schemas[prefix + "Action"]
        assert union["discriminator"]["propertyName"] == "type"
        assert set(union["discriminator"]["mapping"]) == {t.name for t in game.action_types}
        for kind in ("Event", "View", "OutcomeDetail", "Options"):
            assert prefix + kind in schemas
