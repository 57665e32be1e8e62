"""What the OpenAPI document says beyond the endpoints' decorators.

Two apispec plugins, so the conventions are written once:

- :class:`GameTypesPlugin` (in place of flask-smorest's marshmallow plugin) writes every game's
  types (schemas/game_types.py), each body that names its game as one variant per game
  (``TheGameMatch``, ``ViaggioMatch``, … discriminated on ``game``), every other per-game
  field as any game's type, and the named enums (schemas/enums.py) as components;
- :class:`ConventionsPlugin` adds the headers every answer carries (``X-Request-ID``), the 429
  every rate-limited operation may answer and the reusable header components the endpoints
  name (``ETag``, ``Retry-After``, ``Idempotent-Replayed``, …).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from apispec import APISpec, BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin, OpenAPIConverter
from apispec.ext.marshmallow.common import make_schema_key, resolve_schema_instance
from marshmallow import Schema, fields

from schemas.enums import NamedEnum
from schemas.game_types import GAME_ID, GameId, GameTypes, PerGame, depends_on_game, names_its_game, ref
from schemas.streams import StreamEventSchema
from service.games import games

SEAT_TOKEN = {
    "type": "http",
    "scheme": "bearer",
    "description": "A seat's bearer token, from the answer that created the match. Without one you are a "
    "spectator; with one, reads show that seat's view.",
}

BOT_KEY = {
    "type": "http",
    "scheme": "bearer",
    "description": "A bot's API key (`rbk_…`), from the answer that registered the bot or rotated its key.",
}

ADMIN_TOKEN = {
    "type": "http",
    "scheme": "bearer",
    "description": "The server's `REFEREE_ADMIN_TOKEN`, for operator calls (creating and running ladders).",
}

DEFAULT_SECURITY: list[dict[str, list[str]]] = [{}, {"seatToken": []}]
"""What an operation accepts unless it says otherwise: no token, or a seat token (a read then
shows that seat's view). Only seat-only operations declare their own (``[{"seatToken": []}]``):
a generated client then calls every other one with or without a token (openapi-python-client
asks for its ``AuthenticatedClient`` exactly where an operation declares security)."""

HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "description": "The request's id: the one sent in `X-Request-ID` (when it is 1–128 visible "
        "characters), else a new one. Logs name it.",
        "schema": {"type": "string"},
        "example": "3f2c9a7e5b1d4c08",
    },
    "ETag": {
        "description": "The version of this answer for this viewer; send it back in `If-None-Match`.",
        "schema": {"type": "string"},
        "example": '"v1.17.AbCdEf;spectator"',
    },
    "Cache-Control": {
        "description": "`no-cache` for a spectator's read (revalidate with `ETag`); "
        "`private, no-store` for anything a seat sees.",
        "schema": {"type": "string", "enum": ["no-cache", "private, no-store"]},
    },
    "Vary": {
        "description": "The answer depends on `Authorization` (whose view it is).",
        "schema": {"type": "string"},
        "example": "Authorization",
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying.",
        "schema": {"type": "integer", "minimum": 0},
        "example": 1,
    },
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored answer of an earlier request with the same "
        "`Idempotency-Key`: nothing was done again.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Stream-Cache-Control": {
        "description": "`no-store`: a stream is never kept by a cache.",
        "schema": {"type": "string", "enum": ["no-store"]},
    },
    "X-Accel-Buffering": {
        "description": "`no`: tells a proxy (nginx) to pass each event on at once.",
        "schema": {"type": "string", "enum": ["no"]},
    },
    "Allow": {
        "description": "The methods the route answers.",
        "schema": {"type": "string"},
        "example": "GET, HEAD",
    },
    "WWW-Authenticate": {
        "description": "The scheme to authenticate with.",
        "schema": {"type": "string"},
        "example": 'Bearer realm="referee"',
    },
}

PARAMETERS: dict[str, dict[str, Any]] = {
    "X-Request-ID": {
        "in": "header",
        "name": "X-Request-ID",
        "required": False,
        "description": "Your id for this request, echoed in the answer and the logs.",
        "schema": {"type": "string", "maxLength": 128},
    },
    "If-None-Match": {
        "in": "header",
        "name": "If-None-Match",
        "required": False,
        "description": "The `ETag` you hold: the answer is 304 with no body while it is current.",
        "schema": {"type": "string"},
    },
    "Last-Event-ID": {
        "in": "header",
        "name": "Last-Event-ID",
        "required": False,
        "description": "The last version received: the stream resumes with the next one (EventSource "
        "sends it when it reconnects).",
        "schema": {"type": "string", "pattern": "^(0|[1-9][0-9]{0,15})$"},
    },
    "last_event_id": {
        "in": "query",
        "name": "last_event_id",
        "required": False,
        "description": "`Last-Event-ID` for a client that cannot set headers (the header wins).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "Idempotency-Key": {
        "in": "header",
        "name": "Idempotency-Key",
        "required": False,
        "description": "Retrying with the same key (same seat, same body) returns the first answer "
        "with `Idempotent-Replayed: true` instead of acting twice.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7e]+$"},
    },
}

log = logging.getLogger("referee")

UNLIMITED_TAGS = frozenset({"ops"})
"""Operations of these tags are exempt from the rate limit (service.api.limits)."""

STORE_PATHS = ("/v1/matches",)
"""Operations under these paths read the match store, which may be unreachable (503)."""


def header_ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/headers/{name}"}


class DocumentConverter(OpenAPIConverter):
    """apispec's converter, writing this project's own kinds of field: :class:`PerGame` and
    :class:`GameId` as the games' types (for one game while :meth:`writing` its variant of a
    body, else for any game), and a :class:`NamedEnum` as a reference to its component."""

    types: GameTypes | None = None
    """Every game's types; ``None`` when the games cannot be loaded (their fields are then
    plain objects and strings)."""
    game: str | None = None
    """The game whose variant is being written."""

    @contextmanager
    def writing(self, game: str) -> Iterator[None]:
        previous, self.game = self.game, game
        try:
            yield
        finally:
            self.game = previous

    def field2property(self, field: fields.Field) -> dict[str, Any]:
        if isinstance(field, NamedEnum):
            return self._named_enum(field)
        if self.types is None or not isinstance(field, (PerGame, GameId)):
            return super().field2property(field)
        if isinstance(field, GameId):
            typed: dict[str, Any] = {"type": "string", "const": self.game} if self.game else ref(GAME_ID)
        elif self.game:
            typed = self.types.of_game(field.kind, self.game)
        else:
            name, union = self.types.of_any_game(field.kind)
            if name not in self.spec.components.schemas:
                self.spec.components.schema(name, union)
            typed = ref(name)
        if field.allow_none:
            typed = {"anyOf": [*typed.get("anyOf", [typed]), {"type": "null"}]}
        shown = ("description",) if isinstance(field, GameId) and self.game else ("description", "example")
        documented = {key: field.metadata[key] for key in shown if key in field.metadata}
        return {**typed, **documented}

    def _named_enum(self, field: NamedEnum) -> dict[str, Any]:
        """A reference to the enum's component (written once), or that or null."""
        if field.component not in self.spec.components.schemas:
            enum = {"type": "string", "enum": field.values, "description": field.meaning}
            self.spec.components.schema(field.component, enum)
        typed: dict[str, Any] = ref(field.component)
        if field.allow_none:
            typed = {"anyOf": [typed, {"type": "null"}]}
        if "description" in field.metadata:
            typed["description"] = field.metadata["description"]
        return typed

    def resolve_nested_schema(self, schema: Any) -> dict[str, Any]:
        """A nested schema holding per-game fields is, in a game's variant, that game's own
        component (``TheGameOutcome``, ``TheGameReplayEntry``)."""
        instance = resolve_schema_instance(schema)
        if self.types is None or self.game is None or not depends_on_game(instance):
            return super().resolve_nested_schema(schema)
        name = self.types.prefixes[self.game] + self.schema_name_resolver(schema)
        if name not in self.spec.components.schemas:
            self.spec.components.schema(name, self.schema2jsonschema(instance))
        return ref(name)


class GameTypesPlugin(MarshmallowPlugin):
    """flask-smorest's marshmallow plugin with every game's types (:class:`DocumentConverter`)."""

    Converter = DocumentConverter
    converter: DocumentConverter

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        try:
            self.converter.types = GameTypes.of(games().values())
        except OSError:
            # The game data is missing: /readyz says so (503) and the games cannot be
            # played; the document still lists the operations.
            log.exception("the games' types cannot be documented: is the game data (seeds) installed?")
            return
        for name, schema in self.converter.types.components.items():
            spec.components.schema(name, schema)

    # apispec's MarshmallowPlugin names this parameter ``_``, its BasePlugin ``definition``: no
    # signature matches both.
    def schema_helper(self, name: str, definition: dict[Any, Any], **kwargs: Any) -> dict[Any, Any] | None:  # type: ignore[override]
        """A body that names its game is a union of one variant per game, discriminated on
        ``game``: ``Match`` is ``TheGameMatch``, ``ViaggioMatch``, …"""
        schema = kwargs.get("schema")
        instance = resolve_schema_instance(schema) if schema is not None else None
        types = self.converter.types
        if instance is None or types is None or not names_its_game(instance):
            return super().schema_helper(name, definition, **kwargs)
        self.converter.refs[make_schema_key(instance)] = name
        mapping = {}
        for game, prefix in types.prefixes.items():
            with self.converter.writing(game):
                variant = self.converter.schema2jsonschema(instance)
            description = _variant_doc(instance, types.titles[game])
            self.converter.spec.components.schema(prefix + name, {**variant, "description": description})
            mapping[game] = ref(prefix + name)["$ref"]
        return {
            "description": f"{_doc(instance)} One variant per game, by `game`: its fields are that game's types.",
            "oneOf": [{"$ref": target} for target in mapping.values()],
            "discriminator": {"propertyName": "game", "mapping": mapping},
        }


def _doc(schema: Schema) -> str:
    return " ".join((type(schema).__doc__ or "").split())


def _variant_doc(schema: Schema, title: str) -> str:
    return f"{title}: {_doc(schema)}".strip()


DATA_SCHEMAS = {"StreamEvent": StreamEventSchema}
"""Schemas of JSON that travels inside answers that are not JSON themselves (the ``data`` of
each server-sent event): no operation names them, so they are registered by name."""


class ConventionsPlugin(BasePlugin):
    """Adds the API-wide headers and responses to every operation."""

    def init_spec(self, spec: APISpec) -> None:
        for name, schema in DATA_SCHEMAS.items():
            spec.components.schema(name, schema=schema)
        for name, header in HEADERS.items():
            spec.components.header(name, header)
        for name, parameter in PARAMETERS.items():
            spec.components.parameter(name, parameter["in"], parameter)

    def operation_helper(self, path: str | None = None, operations: dict | None = None, **_: Any) -> None:
        for operation in (operations or {}).values():
            operation.setdefault("parameters", []).append("X-Request-ID")
            responses = operation.setdefault("responses", {})
            if not UNLIMITED_TAGS & set(operation.get("tags", [])):
                responses.setdefault("429", "TOO_MANY_REQUESTS")
            if (path or "").startswith(STORE_PATHS):
                responses.setdefault("503", "SERVICE_UNAVAILABLE")
            for response in responses.values():
                if isinstance(response, dict):
                    response.setdefault("headers", {}).setdefault("X-Request-ID", header_ref("X-Request-ID"))
