"""Property tests of the action check, generated from each game's catalogue schemas.

Well-shaped actions (drawn from the schemas) never make an engine fail: they are legal or an
``IllegalAction``. Malformed ones (an integer written as a float or a boolean, an integer
beyond 64 bits, a field missing or unknown, a type that is not a string, deep nesting) are
refused as ``bad_action`` or ``unknown_action_type`` before the engine looks, and change
nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.engine import IllegalAction, Rng
from service.games import games

GAMES = sorted(games())


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values fitting ``schema``, for the subset of JSON Schema the catalogue uses."""
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds] if kinds else None
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    strategies = []
    for kind in kinds or []:
        if kind == "integer":
            strategies.append(st.integers(schema.get("minimum", -(2**63)), schema.get("maximum", 2**64 - 1)))
        elif kind == "string":
            pattern = schema.get("pattern")
            strategies.append(st.from_regex(pattern, fullmatch=True) if pattern else st.text(max_size=20))
        elif kind == "boolean":
            strategies.append(st.booleans())
        elif kind == "null":
            strategies.append(st.none())
        elif kind == "array":
            strategies.append(
                st.lists(
                    from_schema(schema["items"]), min_size=schema.get("minItems", 0), max_size=schema.get("maxItems", 5)
                )
            )
        elif kind == "object":
            strategies.append(st.fixed_dictionaries({k: from_schema(v) for k, v in schema["properties"].items()}))
    assert strategies, f"the catalogue uses a schema this test cannot draw from: {schema}"
    return st.one_of(strategies)


@st.composite
def well_shaped(draw: st.DrawFn, game_id: str) -> dict[str, Any]:
    schemas = games()[game_id].describe()["action_schemas"]
    name = draw(st.sampled_from(sorted(schemas)))
    return draw(from_schema(schemas[name]))


def _integer_paths(value: Any, path: tuple = ()) -> list[tuple]:
    if isinstance(value, bool):
        return []
    if isinstance(value, int):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() if k != "type" for p in _integer_paths(v, (*path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _integer_paths(v, (*path, i))]
    return []


def _replace(value: Any, path: tuple, new: Any) -> None:
    for part in path[:-1]:
        value = value[part]
    value[path[-1]] = new


@st.composite
def malformed(draw: st.DrawFn, game_id: str) -> dict[str, Any]:
    action = copy.deepcopy(draw(well_shaped(game_id)))
    fields = [k for k in action if k != "type"]
    integers = _integer_paths(action)
    ways = ["unknown_field", "type_not_a_string", "unknown_type"]
    ways += ["missing_field", "deep"] if fields else []
    ways += ["float", "bool", "huge", "digits"] if integers else []
    way = draw(st.sampled_from(ways))
    if way == "unknown_field":
        action[draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in action))] = draw(st.integers())
    elif way == "type_not_a_string":
        action["type"] = draw(st.sampled_from([[action["type"]], {"name": action["type"]}, None, 1, True]))
    elif way == "unknown_type":
        action["type"] = action["type"] + draw(st.text(min_size=1, max_size=3))
    elif way == "missing_field":
        del action[draw(st.sampled_from(fields))]
    elif way == "deep":
        nested: Any = action[draw(st.sampled_from(fields))]
        for _ in range(draw(st.integers(2, 300))):
            nested = [nested]
        action[fields[0]] = nested
    else:
        path = draw(st.sampled_from(integers))
        original = action
        for part in path:
            original = original[part]
        new = {
            "float": float(original),
            "bool": bool(original % 2),
            "digits": str(original),
            "huge": draw(st.sampled_from([2**64, 2**70, -(2**63) - 1])),
        }[way]
        _replace(action, path, new)
    return action


def _start(game_id: str) -> tuple[Any, dict[str, Any], int]:
    game = games()[game_id]
    state = game.setup(game.min_players, game.resolve_options(game.min_players, {}), Rng(b"shapes"))
    return game, state, game.to_act(state)[0]


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=150)
@given(data=st.data())
def test_malformed_actions_are_refused_before_the_engine(game_id: str, data: st.DataObject) -> None:
    game, state, seat = _start(game_id)
    action = data.draw(malformed(game_id))
    with pytest.raises(IllegalAction) as refused:
        game.action_shapes.check(action)
    assert refused.value.code in ("bad_action", "unknown_action_type")
    before = copy.deepcopy(state)
    with pytest.raises(IllegalAction) as refused:
        game.apply(state, seat, action, Rng(b"shapes"))
    assert refused.value.code in ("bad_action", "unknown_action_type")
    assert state == before


@pytest.mark.parametrize("game_id", GAMES)
@settings(max_examples=150)
@given(data=st.data())
def test_well_shaped_actions_are_legal_or_refused_with_a_reason(game_id: str, data: st.DataObject) -> None:
    game, state, seat = _start(game_id)
    action = data.draw(well_shaped(game_id))
    game.action_shapes.check(action)
    try:
        game.check(state, seat, action)
    except IllegalAction as refused:
        assert refused.code and refused.message


def test_a_listed_action_is_recognised_only_with_its_json_types() -> None:
    from service.engine.actions import is_listed

    listed = [{"type": "play", "card": 17, "pile": 0}, {"type": "end_turn"}]
    assert is_listed({"pile": 0, "card": 17, "type": "play"}, listed)
    assert is_listed({"type": "end_turn"}, listed)
    for lookalike in ({"type": "play", "card": 17.0, "pile": 0}, {"type": "play", "card": 17, "pile": False}):
        assert lookalike in listed and not is_listed(lookalike, listed)
    assert not is_listed({"type": "play", "card": 18, "pile": 0}, listed)
    assert not is_listed(["play"], listed)
