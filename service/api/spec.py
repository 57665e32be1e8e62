"""What the OpenAPI document says about every operation beyond its decorators.

An apispec plugin, so the conventions are written once: the headers every answer carries
(``X-Request-ID``), the 429 every rate-limited operation may answer, the reusable header
components the endpoints name (``ETag``, ``Retry-After``, ``Idempotent-Replayed``, …) and
every game's types (schemas/game_types.py).
"""

from __future__ import annotations

import logging
from typing import Any

from apispec import APISpec, BasePlugin

from schemas.game_types import all_game_components

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


class ConventionsPlugin(BasePlugin):
    """Adds the API-wide headers and responses to every operation."""

    def init_spec(self, spec: APISpec) -> None:
        try:
            components = all_game_components()
        except OSError:
            # The game data is missing: /readyz says so (503) and the games cannot be
            # played; the document still lists the operations.
            log.exception("the games' types cannot be documented: is the game data (seeds) installed?")
            components = {}
        for name, schema in components.items():
            spec.components.schema(name, schema)
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
