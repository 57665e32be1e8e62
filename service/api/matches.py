"""Matches: create, read, act, validate, legal actions, history.

Seats act with ``Authorization: Bearer <seat token>``; without it the caller is a spectator
and may only read. What an answer shows depends on who asks, so every answer varies with
``Authorization`` and a seat's answers are never stored by a cache (they hold its hand, its
legal actions, or at creation every seat's token); a spectator's read may be cached but is
revalidated (its ``ETag``) every time, since any move changes it.
"""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response, current_app, request

from schemas import (
    ActionRequestSchema,
    ActionResultSchema,
    CreatedMatchSchema,
    CreateMatchSchema,
    HistoryQuerySchema,
    HistorySchema,
    LegalActionsSchema,
    MatchSchema,
    ValidationResultSchema,
)
from service import metrics
from service.api.auth import bearer_token, idempotency_key
from service.api.bodies import Blueprint
from service.referee import Referee

blp = Blueprint(
    "matches", __name__, url_prefix="/v1/matches",
    description="Create matches, act in them with a state token, read their state and history.",
)

_SEAT_AUTH = [{"seatToken": []}]
_READ_AUTH = [{"seatToken": []}, {}]
_IDEMPOTENCY = {
    "in": "header", "name": "Idempotency-Key", "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Retrying with the same key (same seat, same body) returns the first answer.",
}


@blp.after_request
def cache_policy(response: Response) -> Response:
    """Who may keep this answer: see the module docstring."""
    response.vary.add("Authorization")
    spectator_read = request.method in ("GET", "HEAD") and "Authorization" not in request.headers
    response.headers["Cache-Control"] = "no-cache" if spectator_read else "private, no-store"
    return response


def viewer_etag(state_token: str, seat: int | None) -> str:
    """The ``ETag`` of a match as one viewer sees it: the state token and whose view it is,
    so one viewer's ``If-None-Match`` never gets another's view confirmed."""
    return f"{state_token};{'spectator' if seat is None else f'seat-{seat}'}"


def referee() -> Referee:
    return current_app.extensions["referee"]


def json_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """The answer serialized once with orjson.

    The hot endpoints build their bodies as plain dicts whose shape the response schema
    documents (and schemathesis checks); a marshmallow dump of them would only copy them.
    """
    return Response(orjson.dumps(body), mimetype="application/json", headers=headers)


@blp.route("", methods=["POST"])
@blp.arguments(CreateMatchSchema())
@blp.response(201, CreatedMatchSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
def create_match(body: dict[str, Any]) -> dict[str, Any]:
    """Create a match; the answer holds each seat's bearer token (shown only here)."""
    created = referee().create_match(body["game"], body["players"], body["options"], body.get("seed"))
    metrics.MATCHES_CREATED.labels(created["game"]).inc()
    return created


@blp.route("/<match_id>")
@blp.response(200, MatchSchema)
@blp.alt_response(304, description="Not modified: `If-None-Match` named this viewer's current `ETag`.")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_READ_AUTH)
def get_match(match_id: str) -> Any:
    """Read a match as the caller's seat (or a spectator) may see it; `ETag` is per viewer."""
    body = referee().get_match(match_id, bearer_token())
    etag = viewer_etag(body["state_token"], body["seat"])
    if etag in request.if_none_match:
        return Response(status=304, headers={"ETag": f'"{etag}"'})
    return json_response(body, {"ETag": f'"{etag}"'})


@blp.route("/<match_id>/legal-actions")
@blp.response(200, LegalActionsSchema)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_SEAT_AUTH)
def legal_actions(match_id: str) -> Response:
    """List every legal action of the caller's seat now, with the state token they belong to."""
    return json_response(referee().legal_actions(match_id, bearer_token()))


@blp.route("/<match_id>/actions", methods=["POST"])
@blp.arguments(ActionRequestSchema())
@blp.response(200, ActionResultSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(security=_SEAT_AUTH, parameters=[_IDEMPOTENCY])
def submit_action(body: dict[str, Any], match_id: str) -> Any:
    """Submit an action with the state token it was decided on; answers the new state."""
    result = referee().act(match_id, bearer_token(), body["state_token"], body["action"], idempotency_key())
    if not result.replayed:
        metrics.MOVES.labels(result.game).inc()
    return json_response(result.body, {"Idempotent-Replayed": "true"} if result.replayed else None)


@blp.route("/<match_id>/actions/validate", methods=["POST"])
@blp.arguments(ActionRequestSchema())
@blp.response(200, ValidationResultSchema)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.doc(security=_SEAT_AUTH)
def validate_action(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Check whether an action would be accepted now, with the reason if not; changes nothing."""
    return referee().validate(match_id, bearer_token(), body["state_token"], body["action"])


@blp.route("/<match_id>/history")
@blp.arguments(HistoryQuerySchema(), location="query")
@blp.response(200, HistorySchema)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(security=_READ_AUTH)
def history(query: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Page through the action log as the caller may see it (secret parts hidden)."""
    return referee().history(match_id, bearer_token(), query["cursor"], query["limit"])
