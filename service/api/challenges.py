"""Challenges: a bot invites others to a match; they accept or decline, the challenger may
cancel. Every call carries the bot's key; a challenge is visible only to its bots (any other
bot gets 404 ``unknown_challenge``, as for no challenge). :mod:`service.challenges` decides."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app

from schemas import bot_examples as examples
from schemas.bots import ChallengeSchema, CreateChallengeSchema
from service.api.bodies import Blueprint
from service.api.bots import BOT_AUTH, current_bot, no_store
from service.api.matches import json_response
from service.challenges import Challenges

blp = Blueprint(
    "challenges",
    __name__,
    url_prefix="/v1/challenges",
    description="Challenges between bots: when every opponent accepts, the referee creates the match and "
    "each bot gets its seat token in a `match_started` event.",
)
blp.after_request(no_store)


def challenges() -> Challenges:
    return current_app.extensions["challenges"]


@blp.route("", methods=["POST"])
@blp.arguments(CreateChallengeSchema(), example=examples.CREATE_CHALLENGE)
@blp.response(201, ChallengeSchema, example=examples.CHALLENGE)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_game`, `unknown_bot` (an opponent).")
@blp.alt_response(
    422, response="UNPROCESSABLE_ENTITY", description="`players_mismatch`, `invalid_opponents`, bad options."
)
@blp.alt_response(429, response="TOO_MANY_REQUESTS", description="`too_many_challenges`: the bot's cap of open ones.")
@blp.doc(operationId="createChallenge", security=BOT_AUTH)
def create(body: dict[str, Any]) -> Response:
    """Challenge other bots; opponents whose auto-accept rules take it accept at once."""
    response = json_response(challenges().create(current_bot(), body))
    response.status_code = 201
    return response


@blp.route("/<challenge_id>")
@blp.response(200, ChallengeSchema, example=examples.CHALLENGE)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_challenge`.")
@blp.doc(operationId="getChallenge", security=BOT_AUTH)
def get(challenge_id: str) -> Response:
    """The challenge, for its challenger and opponents."""
    return json_response(challenges().get(current_bot(), challenge_id))


def _answer(verb: str, operation_id: str, summary: str, who: str) -> None:
    """One of the answers to a challenge: accept, decline, cancel."""

    def answer(challenge_id: str) -> Response:
        return json_response(getattr(challenges(), verb)(current_bot(), challenge_id))

    answer.__name__ = verb
    answer.__doc__ = summary
    view = blp.response(200, ChallengeSchema, example=examples.ACCEPTED)(answer)
    view = blp.alt_response(401, response="UNAUTHORIZED")(view)
    view = blp.alt_response(403, response="FORBIDDEN", description=f"`{who}`.")(view)
    view = blp.alt_response(404, response="NOT_FOUND", description="`unknown_challenge`.")(view)
    view = blp.alt_response(409, response="CONFLICT", description="`challenge_closed`: no longer open.")(view)
    view = blp.doc(operationId=operation_id, security=BOT_AUTH)(view)
    blp.route(f"/<challenge_id>/{verb}", methods=["POST"])(view)


_answer(
    "accept", "acceptChallenge", "Accept as a named opponent; the last acceptance starts the match.", "not_an_opponent"
)
_answer("decline", "declineChallenge", "Decline as a named opponent: the challenge is over.", "not_an_opponent")
_answer("cancel", "cancelChallenge", "Call the challenge off (the challenger only).", "not_the_challenger")
