"""Ladders: operators create and run them with the admin token; bots join and leave with
their key; anyone reads them, their leaderboards and their matches. :mod:`service.ladders`
decides."""

from __future__ import annotations

import secrets
from typing import Any

from flask import Response, current_app

from schemas import ladder_examples as examples
from schemas.ladders import (
    CreateLadderSchema,
    HouseMemberSchema,
    LadderListSchema,
    LadderMatchesQuerySchema,
    LadderMatchesSchema,
    LadderSchema,
    LeaderboardSchema,
    MembershipSchema,
)
from service.api.auth import bearer_token
from service.api.bodies import Blueprint
from service.api.bots import BOT_AUTH, current_bot
from service.api.matches import json_response
from service.api.problems import Unauthorized
from service.ladders import Ladders

blp = Blueprint(
    "ladders",
    __name__,
    url_prefix="/v1/ladders",
    description="Ladders: the referee pairs the online bots that joined, rates every match and keeps a "
    "leaderboard. Operators (the admin token) create, pause, resume and close them; bots join and leave.",
)

ADMIN_AUTH: list[dict[str, list[str]]] = [{"adminToken": []}]
"""What an operator's operation declares."""

PAGE = 50
"""Matches per page of ``GET /v1/ladders/{id}/matches``."""


def ladders() -> Ladders:
    return current_app.extensions["ladders"]


def admin_only() -> None:
    """The bearer must be the server's admin token; a server without one has no operators."""
    admin = current_app.config["REFEREE_ADMIN_TOKEN"]
    if not admin:
        raise Unauthorized("admin_token_missing", "This server has no REFEREE_ADMIN_TOKEN: it takes no operator calls.")
    given = bearer_token()
    if given is None or not secrets.compare_digest(given.encode(), admin.encode()):
        raise Unauthorized("admin_token_required", "This is an operator call: send the admin token as the bearer.")


@blp.route("", methods=["POST"])
@blp.arguments(CreateLadderSchema(), example=examples.CREATE)
@blp.response(201, LadderSchema, example=examples.LADDER)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED", description="`admin_token_required`, `admin_token_missing`.")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_game`.")
@blp.alt_response(409, response="CONFLICT", description="`ladder_exists`.")
@blp.alt_response(
    422, response="UNPROCESSABLE_ENTITY", description="`invalid_ladder_id`, `unknown_house_bot`, bad options."
)
@blp.doc(operationId="createLadder", security=ADMIN_AUTH)
def create(body: dict[str, Any]) -> Response:
    """Open a ladder (operators)."""
    admin_only()
    response = json_response(ladders().create(body))
    response.status_code = 201
    return response


@blp.route("")
@blp.response(200, LadderListSchema, example=examples.LADDER_LIST)
@blp.doc(operationId="listLadders")
def list_ladders() -> Response:
    """Every ladder, by id."""
    return json_response({"ladders": ladders().listing()})


@blp.route("/<ladder_id>")
@blp.response(200, LadderSchema, example=examples.LADDER)
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.doc(operationId="getLadder")
def get(ladder_id: str) -> Response:
    """A ladder's settings, status and size."""
    return json_response(ladders().get(ladder_id))


def _status_route(name: str, status: str, summary: str) -> None:
    @blp.route(f"/<ladder_id>/{name}", methods=["POST"], endpoint=name)
    @blp.response(200, LadderSchema, example=examples.LADDER)
    @blp.alt_response(401, response="UNAUTHORIZED", description="`admin_token_required`, `admin_token_missing`.")
    @blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
    @blp.alt_response(409, response="CONFLICT", description="`ladder_closed` (resuming a closed ladder).")
    @blp.doc(operationId=f"{name}Ladder", security=ADMIN_AUTH, summary=summary)
    def change(ladder_id: str) -> Response:
        admin_only()
        return json_response(ladders().set_status(ladder_id, status))


_status_route("pause", "paused", "Pause pairing (operators); matches in progress play on.")
_status_route("resume", "open", "Resume pairing (operators).")
_status_route("close", "closed", "Close the ladder for good (operators); matches in progress play on.")


@blp.route("/<ladder_id>/house", methods=["POST"])
@blp.arguments(HouseMemberSchema(), example=examples.HOUSE)
@blp.response(200, LadderSchema, example=examples.LADDER)
@blp.alt_response(401, response="UNAUTHORIZED", description="`admin_token_required`, `admin_token_missing`.")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY", description="`unknown_house_bot`.")
@blp.doc(operationId="addHouseMember", security=ADMIN_AUTH)
def add_house(body: dict[str, Any], ladder_id: str) -> Response:
    """Make a house bot a permanent member (operators)."""
    admin_only()
    return json_response(ladders().add_house(ladder_id, body["bot"]))


@blp.route("/<ladder_id>/join", methods=["POST"])
@blp.response(200, MembershipSchema, example=examples.MEMBERSHIP)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.alt_response(
    409, response="CONFLICT", description="`already_joined`, `ladder_closed`, `suspended` (with `retry_after`)."
)
@blp.alt_response(422, response="UNPROCESSABLE_ENTITY", description="`game_not_accepted`.")
@blp.doc(operationId="joinLadder", security=BOT_AUTH)
def join(ladder_id: str) -> Response:
    """Join the ladder (or rejoin it, also after a suspension's cool-down); the referee pairs the bot while
    its event stream is open."""
    return json_response(ladders().join(current_bot(), ladder_id))


@blp.route("/<ladder_id>/leave", methods=["POST"])
@blp.response(200, MembershipSchema, example=examples.MEMBERSHIP)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.alt_response(409, response="CONFLICT", description="`not_joined`.")
@blp.doc(operationId="leaveLadder", security=BOT_AUTH)
def leave(ladder_id: str) -> Response:
    """Leave the ladder: no new matches; the ones in progress (`playing`) play on by their clocks."""
    return json_response(ladders().leave(current_bot(), ladder_id))


@blp.route("/<ladder_id>/leaderboard")
@blp.response(200, LeaderboardSchema, example=examples.LEADERBOARD)
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.doc(operationId="getLeaderboard")
def leaderboard(ladder_id: str) -> Response:
    """The members, best first (μ − 3σ; mean score in a cooperative game)."""
    return json_response(ladders().leaderboard(ladder_id))


@blp.route("/<ladder_id>/matches")
@blp.arguments(LadderMatchesQuerySchema(), location="query")
@blp.response(200, LadderMatchesSchema, example=examples.MATCHES)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_ladder`.")
@blp.doc(operationId="listLadderMatches")
def matches(query: dict[str, Any], ladder_id: str) -> Response:
    """Finished matches, newest first (of one bot with `bot`), with replay links; and those being played."""
    page = ladders().matches(ladder_id, query.get("bot"), int(query.get("cursor", 0)), PAGE)
    return json_response(page | {"live": ladders().live(ladder_id)})
