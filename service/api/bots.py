"""Bot accounts: register, read profiles, and a bot's own account (``/v1/bots/me…``).

A bot authenticates with ``Authorization: Bearer <bot key>``; an unknown, rotated or retired
key is 401 ``unknown_bot_key``. Registration is open (and rate limited per address,
``REFEREE_REGISTER_LIMIT``) unless ``REFEREE_ADMIN_TOKEN`` is set: then its bearer must be that
token. Keys appear in two answers only, registration and rotation, both ``no-store``.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Response, current_app, g, request

from schemas import bot_examples as examples
from schemas.bots import (
    BotKeySchema,
    BotListQuerySchema,
    BotListSchema,
    BotProfileSchema,
    OwnBotSchema,
    RegisterBotSchema,
    RegisteredBotSchema,
    UpdateBotSchema,
)
from service.accounts import Accounts, Bot
from service.api.auth import bearer_token
from service.api.bodies import Blueprint
from service.api.limits import NamedLimit, RateLimiter
from service.api.matches import json_response
from service.api.problems import Unauthorized
from service.errors import NotAuthenticated

blp = Blueprint(
    "bots",
    __name__,
    url_prefix="/v1/bots",
    description="Bot accounts: register a bot (its key is shown once), read profiles, manage your own bot.",
)

BOT_AUTH: list[dict[str, list[str]]] = [{"botKey": []}]
"""What an operation of a bot's own declares."""


def accounts() -> Accounts:
    return current_app.extensions["accounts"]


def current_bot() -> Bot:
    """The bot whose key the request carries (401 otherwise), read once per request. A key
    that is no bot's was counted against a budget of its own by the rate limiter: its
    address pays too."""
    if "bot" in g:
        return g.bot
    try:
        g.bot = accounts().authenticate(bearer_token())
        return g.bot
    except NotAuthenticated:
        limiter: RateLimiter | None = current_app.extensions["rate_limiter"]
        refusal = limiter.charge(f"addr:{request.remote_addr or 'unknown'}") if limiter is not None else None
        if refusal is not None:
            raise refusal from None
        raise


_BOT_ONLY = {"bots.me", "bots.update_me", "bots.retire_me", "bots.rotate_key"}


def bot_first() -> None:
    """A bot's own call answers 401 without a valid key before it reads the body: a missing
    credential is the first thing to fix, whatever else is wrong."""
    if request.blueprint != "bots" or request.endpoint in _BOT_ONLY:
        current_bot()


blp.before_request(bot_first)


@blp.after_request
def no_store(response: Response) -> Response:
    """A bot's own answers hold its key or its rules: no cache keeps them."""
    response.headers["Cache-Control"] = "no-store"
    response.vary.add("Authorization")
    return response


def _registration_allowed() -> None:
    """The admin token when one is set; else the per-address registration limit."""
    admin = current_app.config["REFEREE_ADMIN_TOKEN"]
    if admin:
        given = bearer_token()
        if given is None or not secrets.compare_digest(given.encode(), admin.encode()):
            raise Unauthorized("admin_token_required", "Registering a bot here needs the admin token as the bearer.")
        return
    limit: NamedLimit | None = current_app.extensions["register_limit"]
    if limit is not None:
        refusal = limit.check(f"addr:{request.remote_addr or 'unknown'}")
        if refusal is not None:
            raise refusal


@blp.route("", methods=["POST"])
@blp.arguments(RegisterBotSchema(), example=examples.REGISTER)
@blp.response(201, RegisteredBotSchema, example=examples.REGISTERED)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED", description="`admin_token_required` (when the server has one).")
@blp.alt_response(409, response="CONFLICT", description="`name_taken`: the name exists (in any case).")
@blp.doc(operationId="registerBot")
def register(body: dict[str, Any]) -> Response:
    """Register a bot; the answer holds its key, shown only here."""
    _registration_allowed()
    bot, key = accounts().register(body["name"], body["description"], body["owner"])
    answer = {"name": bot.name, "key": key, "description": bot.description, "owner": bot.owner, "created": bot.created}
    response = json_response(answer)
    response.status_code = 201
    return response


@blp.route("")
@blp.arguments(BotListQuerySchema(), location="query")
@blp.response(200, BotListSchema, example=examples.BOT_LIST)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.doc(operationId="listBots")
def list_bots(query: dict[str, Any]) -> Response:
    """The bots by name, a page at a time; `online=true`: only those with an event stream open."""
    cursor = query.get("cursor")
    bots, next_cursor = accounts().listing(cursor.lower() if cursor else None, 50, query["online"])
    return json_response({"bots": bots, "next_cursor": next_cursor})


@blp.route("/me")
@blp.response(200, OwnBotSchema, example=examples.OWN_PROFILE)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.doc(operationId="getOwnBot", security=BOT_AUTH)
def me() -> Response:
    """The calling bot's profile with its auto-accept rules."""
    return json_response(accounts().own_profile(current_bot()))


@blp.route("/me", methods=["PATCH"])
@blp.arguments(UpdateBotSchema(), example=examples.UPDATE)
@blp.response(200, OwnBotSchema, example=examples.OWN_PROFILE)
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.doc(operationId="updateOwnBot", security=BOT_AUTH)
def update_me(body: dict[str, Any]) -> Response:
    """Set the bot's description and/or auto-accept rules (null: accept nothing by itself)."""
    bot = accounts().update(current_bot(), body)
    return json_response(accounts().own_profile(bot))


@blp.route("/me", methods=["DELETE"])
@blp.response(204)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.doc(operationId="retireOwnBot", security=BOT_AUTH)
def retire_me() -> Response:
    """Retire the bot: its key stops working, its name stays taken, its matches and replays stay."""
    bot = current_bot()
    accounts().retire(bot, bearer_token() or "")
    return Response(status=204)


@blp.route("/me/key", methods=["POST"])
@blp.response(200, BotKeySchema, example=examples.KEY)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.doc(operationId="rotateBotKey", security=BOT_AUTH)
def rotate_key() -> Response:
    """A new key for the bot; the one this request carries stops working at once."""
    bot = current_bot()
    return json_response({"key": accounts().rotate(bot, bearer_token() or "")})


@blp.route("/<name>")
@blp.response(200, BotProfileSchema, example=examples.PROFILE)
@blp.alt_response(404, response="NOT_FOUND", description="`unknown_bot`.")
@blp.doc(operationId="getBot")
def profile(name: str) -> Response:
    """A bot's public profile (the name in any case), with its standing in each ladder it joined."""
    found = accounts().profile(name)
    return json_response(found | {"ratings": current_app.extensions["ladders"].bot_ladders(found["name"])})
