"""Per-game types of the OpenAPI document, generated from the engines' own declarations.

For each game package (``TheGame``, ``Viaggio``, …) the document gets:

- ``<Game>Action``: a union of one schema per action type (``<Game><Type>Action``, its ``type``
  a required ``const``), discriminated on ``type``, made from the engine's
  :class:`~service.engine.ActionType` declarations (the same schemas that check every submitted
  action, so the document cannot drift from what the referee accepts);
- ``<Game>Event``: the same for its events; ``<Game>View`` and ``<Game>OutcomeDetail``;
  these three from the ``shapes.json`` in the game's package (service.engine.shapes);
- ``<Game>Options``: its options at match creation.

A body field whose type depends on the match's game is declared with :class:`PerGame`, and a
body's ``game`` with :class:`GameId`. Where the body names its game (every answer about a match:
the match, its legal actions, an action's answer, the history, a stream event, the replay; and
the creation request) the document gives each game a variant of that body, discriminated on
``game``, in which those fields are that game's types; elsewhere (the action a client sends)
they are any game's (:meth:`GameTypes.of_any_game`). service/api/spec.py writes the variants;
this module says what each field is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from marshmallow import Schema, fields

from service.engine.game import Game
from service.engine.shapes import shapes

KINDS = {
    "Action": "An action",
    "Event": "An event",
    "View": "A view",
    "OutcomeDetail": "The detail of an outcome",
    "Options": "Options",
}
"""What a :class:`PerGame` field may hold (one of the games' ``<Game><kind>`` types), and how
the document words one of it."""

GAME_ID = "GameId"
"""The component naming every game's id."""

OTHER_EVENT = "OtherEvent"
"""Any event a client does not know yet: newer engines may add event types, and a client
must skip those rather than fail (the test suite checks that today's engines produce only
declared ones)."""

ENDED_EARLY_DETAIL = "EndedEarlyDetail"
"""The outcome detail of a match a timeout or a resignation ended, whatever its game."""


class GameId(fields.String):
    """A game's id: the ``GameId`` enum in the document, and in each game's variant of a body
    that names its game, that game's id alone (a ``const`` generated clients narrow on)."""


class PerGame(fields.Dict):
    """A JSON object whose type is one of the games' ``<Game><kind>``: which one, only the
    match's game says. Loads and dumps as a plain object (the referee checks it against the
    game's own rules); the document types it (:class:`GameTypes`)."""

    def __init__(self, kind: str, description: str, metadata: dict[str, Any] | None = None, **kwargs: Any) -> None:
        if kind not in KINDS:
            raise ValueError(f"no per-game kind {kind!r}: one of {', '.join(KINDS)}")
        super().__init__(keys=fields.String(), metadata={"description": description, **(metadata or {})}, **kwargs)
        self.kind = kind


def depends_on_game(schema: Schema) -> bool:
    """Whether some field of ``schema`` (or of a schema nested in it) is :class:`PerGame`."""
    return any(_field_depends_on_game(field) for field in schema.fields.values())


def _field_depends_on_game(field: fields.Field) -> bool:
    if isinstance(field, PerGame):
        return True
    if isinstance(field, fields.List):
        return _field_depends_on_game(field.inner)
    if isinstance(field, fields.Nested) and isinstance(field.schema, Schema):
        return depends_on_game(field.schema)
    return False


def names_its_game(schema: Schema) -> bool:
    """Whether ``schema`` is a body that says which game it is of and holds per-game parts:
    the document then describes it as one variant per game, discriminated on ``game``."""
    return isinstance(schema.fields.get("game"), GameId) and depends_on_game(schema)


def type_prefix(package: str) -> str:
    """A game package's name as the prefix of its types: ``the_game`` → ``TheGame``."""
    return "".join(part.capitalize() for part in package.split("_"))


def game_prefix(game: Game) -> str:
    """The type prefix of the package that defines ``game``'s class."""
    return type_prefix(type(game).__module__.split(".")[2])


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


@dataclass(frozen=True)
class GameTypes:
    """Every game's types, as components of the document, and what a :class:`PerGame` field
    is for one game or for any game."""

    components: dict[str, dict[str, Any]]
    prefixes: dict[str, str]
    """Type prefix by game id, in id order."""
    titles: dict[str, str]
    """Title by game id."""
    variants: dict[str, list[str]]
    """Of ``Action`` and ``Event``: every game's variant components, the most specific first
    (:func:`most_specific_first`)."""

    @classmethod
    def of(cls, games: Iterable[Game]) -> GameTypes:
        components: dict[str, dict[str, Any]] = {}
        variants: dict[str, list[str]] = {"Action": [], "Event": []}
        prefixes, titles = {}, {}
        for game in games:
            prefix = prefixes[game.id] = game_prefix(game)
            titles[game.id] = game.title
            own = game_components(game)
            components |= own
            for kind in variants:
                union = own[prefix + kind]
                variants[kind] += [item["$ref"].rsplit("/", 1)[1] for item in union["oneOf"]]
        components |= _common_components(list(prefixes))
        return cls(
            components,
            prefixes,
            titles,
            {kind: most_specific_first(names, components) for kind, names in variants.items()},
        )

    def of_game(self, kind: str, game_id: str) -> dict[str, Any]:
        """What a :class:`PerGame` field of ``kind`` is in a body of this game."""
        own = ref(self.prefixes[game_id] + kind)
        if kind == "Event":
            return {"anyOf": [own, ref(OTHER_EVENT)]}
        if kind == "OutcomeDetail":
            return {"anyOf": [own, ref(ENDED_EARLY_DETAIL)]}
        return own

    def of_any_game(self, kind: str) -> tuple[str, dict[str, Any]]:
        """What a :class:`PerGame` field of ``kind`` is in a body that does not say its game
        (an action request): the component ``AnyGame<kind>`` (its name, and its schema), any
        game's.

        Action and event unions list every game's variants, the most specific first, so a
        generated client that tries them in turn (openapi-python-client) takes The Game's
        ``play`` (card and pile) as The Game's, not as Halunken's (card alone)."""
        if kind in self.variants:
            names = list(self.variants[kind])
        else:
            names = most_specific_first([prefix + kind for prefix in self.prefixes.values()], self.components)
        if kind == "Event":
            names.append(OTHER_EVENT)
        if kind == "OutcomeDetail":
            names.append(ENDED_EARLY_DETAIL)
        description = (
            f"{KINDS[kind]} of any game: a body that does not name its game lists every game's "
            "types. The match's `game` says which game's it is."
        )
        return "AnyGame" + kind, {"description": description, "anyOf": [ref(name) for name in names]}


def most_specific_first(names: list[str], components: dict[str, dict[str, Any]]) -> list[str]:
    """``names`` ordered by how many properties their schemas require, most first (then by
    name): a client trying the variants in turn meets one that requires more before one whose
    required properties are a subset of it. Variants of one shape (The Game's and Isola's
    ``end_turn`` are both ``{type}``) cannot be told apart from the data: the first one wins."""
    return sorted(names, key=lambda name: (-len(components[name].get("required", ())), name))


def _const_tagged(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with a required ``type`` that is ``name`` alone (a ``const``, which
    generators turn into a literal type and a check on decoding).

    ``additionalProperties: false`` is left out: the referee refuses unknown fields all the
    same, but a body that does not say its game (an action request) lists every game's
    variants, and a field one game's action has must survive a generated client that took it
    for another game's action of the same ``type`` (see :func:`most_specific_first`).
    """
    properties = {**schema.get("properties", {}), "type": {"type": "string", "const": name}}
    tagged = {key: value for key, value in schema.items() if key != "additionalProperties"}
    return {**tagged, "properties": properties, "required": sorted({"type", *schema.get("required", ())})}


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


def _union(prefix: str, suffix: str, variants: dict[str, dict[str, Any]], description: str) -> dict[str, Any]:
    """``<prefix><suffix>`` as a union discriminated on ``type``, plus one component per variant."""
    components: dict[str, Any] = {}
    mapping: dict[str, str] = {}
    for name, schema in variants.items():
        component = prefix + type_prefix(name) + suffix
        components[component] = _typed_enums(_const_tagged(name, schema))
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


def _common_components(game_ids: list[str]) -> dict[str, dict[str, Any]]:
    """The components every game shares: the games' ids, unknown events, an early end."""
    return {
        GAME_ID: {
            "type": "string",
            "enum": game_ids,
            "description": "A game's id, as `GET /v1/games` lists them.",
        },
        OTHER_EVENT: {
            "type": "object",
            "description": "An event of a type this version of the document does not declare: skip it.",
            "properties": {"type": {"type": "string"}},
            "required": ["type"],
        },
        ENDED_EARLY_DETAIL: {
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
        },
    }
