"""Per-game types of the OpenAPI document, generated from the engines' own declarations.

For each game package (``TheGame``, ``Viaggio``, …) the document gets:

- ``<Game>Action``: a discriminated union on ``type`` of one schema per action type, made
  from the engine's :class:`~service.engine.ActionType` declarations (the same schemas that
  check every submitted action, so the document cannot drift from what the referee accepts);
- ``<Game>Event``: the same for its events; ``<Game>View`` and ``<Game>OutcomeDetail``;
  these three from the ``shapes.json`` in the game's package (service.engine.shapes);
- ``<Game>Options``: its options at match creation.

A match's fields are then "one of the games' types" (:func:`any_game`): a typed client
switches on the match's ``game``, then on ``type``.
"""

from __future__ import annotations

import pkgutil
from typing import Any

import service.games
from service.engine.game import Game
from service.engine.shapes import shapes
from service.games import games


def game_packages() -> list[str]:
    """The game packages under ``service.games``, found without importing them: a game's
    module may read its data at import, and the app must start (not ready) without it."""
    return sorted(module.name for module in pkgutil.iter_modules(service.games.__path__) if module.ispkg)


def type_prefix(package: str) -> str:
    """A game package's name as the prefix of its types: ``the_game`` → ``TheGame``."""
    return "".join(part.capitalize() for part in package.split("_"))


def game_prefix(game: Game) -> str:
    """The type prefix of the package that defines ``game``'s class."""
    return type_prefix(type(game).__module__.split(".")[2])


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


OTHER_EVENT = "OtherEvent"
"""Any event a client does not know yet: newer engines may add event types, and a client
must skip those rather than fail (the test suite checks that today's engines produce only
declared ones)."""


ENDED_EARLY_DETAIL = "EndedEarlyDetail"
"""The outcome detail of a match a timeout or a resignation ended, whatever its game."""


def any_game(kind: str, description: str) -> dict[str, Any]:
    """Field metadata: one of the games' ``<Game><kind>`` schemas (or, for events, one not
    declared yet: :data:`OTHER_EVENT`; for outcome details, the referee's own
    :data:`ENDED_EARLY_DETAIL`)."""
    choices = [ref(type_prefix(package) + kind) for package in game_packages()]
    if kind == "Event":
        choices.append(ref(OTHER_EVENT))
    if kind == "OutcomeDetail":
        choices.append(ref(ENDED_EARLY_DETAIL))
    return {"description": description, "anyOf": choices}


_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}


def _typed_enums(schema: Any) -> Any:
    """``schema`` with every enum typed, and an enum mixing types (``["agree", 0, 1]``) split
    into an ``anyOf`` of one enum per type: the same values, in a form that client generators
    turn into types (openapi-python-client drops a schema with a mixed enum)."""
    if isinstance(schema, list):
        return [_typed_enums(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    schema = {key: _typed_enums(value) for key, value in schema.items()}
    if "enum" not in schema or isinstance(schema.get("type"), str):
        return schema
    by_type: dict[str, list[Any]] = {}
    for value in schema["enum"]:
        by_type.setdefault(_JSON_TYPES[type(value)], []).append(value)
    rest = {key: value for key, value in schema.items() if key not in ("enum", "type")}
    if len(by_type) == 1:
        ((kind, values),) = by_type.items()
        return {**rest, "type": kind, "enum": values}
    return {**rest, "anyOf": [{"type": kind, "enum": values} for kind, values in by_type.items()]}


def _tagged(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with ``type`` a one-value string enum (what generators read as a tag).

    ``additionalProperties: false`` is left out: the referee refuses unknown fields all the
    same, but a field that one game's action has and another game's action of the same
    ``type`` lacks must survive a generated client that parsed it as the other game's
    (the generic fields say "any game's action"; only the match's ``game`` tells which).
    """
    properties = {**schema.get("properties", {}), "type": {"type": "string", "enum": [name]}}
    tagged = {key: value for key, value in schema.items() if key != "additionalProperties"}
    return {**tagged, "properties": properties, "required": sorted({"type", *schema.get("required", ())})}


def _union(prefix: str, suffix: str, variants: dict[str, dict[str, Any]], description: str) -> dict[str, Any]:
    """``<prefix><suffix>`` as a union discriminated on ``type``, plus one component per variant."""
    components: dict[str, Any] = {}
    mapping: dict[str, str] = {}
    for name, schema in variants.items():
        component = prefix + type_prefix(name) + suffix
        components[component] = _typed_enums(_tagged(name, schema))
        mapping[name] = ref(component)["$ref"]
    components[prefix + suffix] = {
        "description": description,
        "oneOf": [{"$ref": target} for target in mapping.values()],
        "discriminator": {"propertyName": "type", "mapping": mapping},
    }
    return components


def game_components(game: Game) -> dict[str, dict[str, Any]]:
    """Every component of one game."""
    prefix = game_prefix(game)
    declared = shapes(game)
    components = _union(
        prefix,
        "Action",
        {t.name: t.json_schema() for t in game.action_types},
        f"An action of {game.title}, by its `type`.",
    )
    components |= _union(prefix, "Event", declared.events, f"An event of {game.title}, by its `type`.")
    components[prefix + "View"] = {
        **declared.view,
        "description": f"What a seat (or a spectator) of {game.title} sees.",
    }
    components[prefix + "OutcomeDetail"] = {
        **declared.outcome_detail,
        "description": f"{game.title}'s own breakdown of a finished match.",
    }
    components[prefix + "Options"] = _typed_enums({**game.options_schema(), "description": f"Options of {game.title}."})
    return components


def all_game_components() -> dict[str, dict[str, Any]]:
    """The components of every game, by name."""
    components: dict[str, dict[str, Any]] = {}
    for game in games().values():
        components |= game_components(game)
    components[OTHER_EVENT] = {
        "type": "object",
        "description": "An event of a type this version of the document does not declare: skip it.",
        "properties": {"type": {"type": "string"}},
        "required": ["type"],
    }
    components[ENDED_EARLY_DETAIL] = {
        "type": "object",
        "description": "A match that a seat's timeout or resignation ended before its rules did: that seat is "
        "ranked last, every score is 0.",
        "properties": {
            "end_reason": {"type": "string", "enum": ["timeout", "resigned"]},
            "seat": {"type": "integer", "minimum": 0},
            "score_means": {"type": "string"},
        },
        "required": ["end_reason", "seat", "score_means"],
        "additionalProperties": False,
    }
    return components
