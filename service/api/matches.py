"""Matches: create, read, act, validate, legal actions, history, resign, abort.

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
    ListMatchesQuerySchema,
    MatchListSchema,
    MatchSchema,
    ValidationResultSchema,
    examples,
)
from service.api import metrics
from service.api.auth import bearer_token, idempotency_key
from service.api.bodies import Blueprint
from service.api.problems import Unauthorized
from service.listing import Listing
from service.referee import Referee

blp = Blueprint(
    "matches",
    __name__,
    url_prefix="/v1/matches",
    description="Create matches, act in them with a state token, read their state and history.",
)

_SEAT_AUTH: list[dict[str, list[str]]] = [{"seatToken": []}]
"""What a seat-only operation declares; the others keep the document's default (no token, or
a seat token: a read then shows that seat's view)."""
_CACHING = {"Cache-Control": "Cache-Control", "Vary": "Vary"}
"""Every answer of this blueprint says who may keep it (:func:`cache_policy`)."""


_SEAT_ONLY = {
    "matches.legal_actions",
    "matches.submit_action",
    "matches.validate_action",
    "matches.resign",
    "matches.abort",
}


@blp.before_request
def seat_required_first() -> None:
    """A seat-only route answers 401 without a bearer token before it reads the body: a
    missing credential is the first thing to fix, whatever else is wrong."""
    if request.endpoint in _SEAT_ONLY and bearer_token() is None:
        raise Unauthorized("authentication_required", "This needs a seat: send 'Authorization: Bearer <seat token>'.")


SEAT_CACHE_CONTROL = "private, no-store"
"""``Cache-Control`` of every answer to a request with a seat token, and of every write."""
SEAT_VARY = "Authorization"
"""What every answer of this blueprint varies with: the seat a token names."""
REPLAYED = {"Idempotent-Replayed": "true"}
"""What marks an answer given again for a repeated ``Idempotency-Key``."""


@blp.after_request
def cache_policy(response: Response) -> Response:
    """Who may keep this answer: see the module docstring."""
    response.vary.add(SEAT_VARY)
    spectator_read = request.method in ("GET", "HEAD") and "Authorization" not in request.headers
    response.headers["Cache-Control"] = "no-cache" if spectator_read else SEAT_CACHE_CONTROL
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
@blp.arguments(CreateMatchSchema(), example=examples.CREATE_MATCH)
@blp.response(201, CreatedMatchSchema, headers=_CACHING, example=examples.CREATED_MATCH)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.doc(operationId="createMatch")
def create_match(body: dict[str, Any]) -> dict[str, Any]:
    """Create a match; the answer holds each seat's bearer token (shown only here)."""
    created = referee().create_match(
        body["game"], body["players"], body["options"], body.get("seed"), body.get("clock"), body["house"]
    )
    metrics.MATCHES_CREATED.labels(created["game"]).inc()
    return created


@blp.route("")
@blp.arguments(ListMatchesQuerySchema(), location="query")
@blp.response(200, MatchListSchema, headers=_CACHING, example=examples.MATCH_LIST)
@blp.alt_response(
    400,
    response="BAD_REQUEST",
    description="`invalid_body`: a bad `status`, `limit` or `cursor`.",
)
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_game`: no game with the id in `game`.")
@blp.doc(operationId="listMatches")
def list_matches(query: dict[str, Any]) -> Response:
    """List matches updated recently (active and recently ended), the most recently updated first."""
    listing: Listing = current_app.extensions["listing"]
    return json_response(listing.page(query.get("game"), query.get("status"), query.get("cursor"), query["limit"]))


@blp.route("/<match_id>")
@blp.response(200, MatchSchema, headers={"ETag": "ETag", **_CACHING}, example=examples.MATCH)
@blp.alt_response(
    304,
    description="Not modified: `If-None-Match` named this viewer's current `ETag`.",
    headers={"ETag": "ETag", **_CACHING},
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(operationId="getMatch", parameters=["If-None-Match"])
def get_match(match_id: str) -> Any:
    """Read a match as the caller's seat (or a spectator) may see it; `ETag` is per viewer."""
    body = referee().get_match(match_id, bearer_token())
    etag = viewer_etag(body["state_token"], body["seat"])
    if etag in request.if_none_match:
        return Response(status=304, headers={"ETag": f'"{etag}"'})
    return json_response(body, {"ETag": f'"{etag}"'})


@blp.route("/<match_id>/legal-actions")
@blp.response(200, LegalActionsSchema, headers=_CACHING, example=examples.LEGAL_ACTIONS)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(operationId="listLegalActions", security=_SEAT_AUTH)
def legal_actions(match_id: str) -> Response:
    """List every legal action of the caller's seat now, with the state token they belong to."""
    return json_response(referee().legal_actions(match_id, bearer_token()))


@blp.route("/<match_id>/actions", methods=["POST"])
@blp.arguments(ActionRequestSchema(), example=examples.ACTION_REQUEST)
@blp.response(
    200,
    ActionResultSchema,
    headers={"Idempotent-Replayed": "Idempotent-Replayed", **_CACHING},
    example=examples.ACTION_RESULT,
)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(403, response="FORBIDDEN")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.alt_response(413, response="REQUEST_ENTITY_TOO_LARGE")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(operationId="submitAction", security=_SEAT_AUTH, parameters=["Idempotency-Key"])
def submit_action(body: dict[str, Any], match_id: str) -> Any:
    """Submit an action with the state token it was decided on; answers the new state."""
    result = referee().act(match_id, bearer_token(), body["state_token"], body["action"], idempotency_key())
    if not result.replayed:
        metrics.sample(metrics.MOVES, result.game).inc()
    return json_response(result.body, REPLAYED if result.replayed else None)


@blp.route("/<match_id>/actions/validate", methods=["POST"])
@blp.arguments(ActionRequestSchema(), example=examples.ACTION_REQUEST)
@blp.response(200, ValidationResultSchema, headers=_CACHING, example=examples.VALIDATION_RESULT)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT")
@blp.doc(operationId="validateAction", security=_SEAT_AUTH)
def validate_action(body: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Check whether an action would be accepted now, with the reason if not; changes nothing."""
    return referee().validate(match_id, bearer_token(), body["state_token"], body["action"])


@blp.route("/<match_id>/resign", methods=["POST"])
@blp.response(200, ActionResultSchema, headers=_CACHING, example=examples.RESIGNED)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(409, response="CONFLICT", description="`match_over`: the match has already ended.")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(operationId="resignMatch", security=_SEAT_AUTH)
def resign(match_id: str) -> Response:
    """Resign the caller's seat (no body): it is ranked last; in a cooperative game the table loses."""
    return json_response(referee().resign(match_id, bearer_token()))


@blp.route("/<match_id>/abort", methods=["POST"])
@blp.response(200, MatchSchema, headers=_CACHING, example=examples.ABORTED)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(
    409,
    response="CONFLICT",
    description="`match_started`: someone has moved (resign instead); `match_over`: the match has ended.",
)
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(operationId="abortMatch", security=_SEAT_AUTH)
def abort(match_id: str) -> Response:
    """Call off a match nobody has moved in yet (any seat, no body): no outcome, the seed is revealed."""
    return json_response(referee().abort(match_id, bearer_token()))


@blp.route("/<match_id>/history")
@blp.arguments(HistoryQuerySchema(), location="query")
@blp.response(200, HistorySchema, headers=_CACHING, example=examples.HISTORY)
@blp.alt_response(400, response="BAD_REQUEST", description="`invalid_body`: a bad `cursor` or `limit`.")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(operationId="getHistory")
def history(query: dict[str, Any], match_id: str) -> dict[str, Any]:
    """Page through the action log as the caller may see it (secret parts hidden)."""
    return referee().history(match_id, bearer_token(), query["cursor"], query["limit"])
