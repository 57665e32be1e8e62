"""A bot's events: ``GET /v1/bots/me/events`` (server-sent events) and ``GET
/v1/bots/me/next`` (one event per request, for clients that cannot hold a stream).

Each SSE event is written as::

    id: <event id>
    event: <type>
    data: <the event as JSON, with its "id" and "type">

with ``: keep-alive`` after ``REFEREE_STREAM_HEARTBEAT`` seconds of silence. Where a stream
starts (pending state, or after ``Last-Event-ID``) is :mod:`service.live.bot_events`. A stream
takes a slot of the process (:mod:`service.live.slots`, shared with the match streams, the bot
and its address each a client), and a bot holds at most ``REFEREE_BOT_STREAM_LIMIT`` streams
on all nodes together (429 ``too_many_bot_streams``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import orjson
from flask import Response, current_app, request

from schemas import bot_examples as examples
from schemas.bots import BotEventSchema, NextEventQuerySchema
from schemas.streams import EVENT_STREAM
from service.accounts import Accounts, Bot
from service.api.bodies import Blueprint
from service.api.bots import BOT_AUTH, bot_first, current_bot, no_store
from service.api.hang_ups import socket_of
from service.api.matches import json_response
from service.api.streams import HEARTBEAT, EventStream, last_event_id, too_many_streams, waiting_requests
from service.challenges import event_data
from service.errors import TooMany
from service.live.bot_events import BotFollower, Presence
from service.live.feeds import Feed
from service.live.slots import Slot, StreamSlots
from service.live.waiting import WaitingRequests
from service.store import StoredEvent

blp = Blueprint(
    "bot_events",
    __name__,
    url_prefix="/v1/bots/me",
    description="A bot's events: challenges, their answers, its matches starting (with its seat token) and ending.",
)
blp.before_request(bot_first)
blp.after_request(no_store)


def sse_frame(event: StoredEvent) -> bytes:
    """One event as SSE: its id, its type as the event name, its JSON as data."""
    kind = orjson.loads(event.body)["type"]
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event.id, kind.encode(), event_data(event))


class BotEventStream(EventStream):
    """The body of a bot's stream: the match stream's opening, hang-up watch and slot, with
    the bot's events for frames and its presence kept while it runs."""

    def __init__(
        self,
        follower: BotFollower,
        presence: Presence,
        heartbeat: float,
        slot: Slot,
        waiting: WaitingRequests,
        sock: Any | None = None,
    ) -> None:
        super().__init__(follower, heartbeat, slot, waiting, sock)  # type: ignore[arg-type]  # a BotFollower stops and closes as a Follower does; its frames come from events()
        self._bot_follower = follower
        self._presence = presence

    def _frames(self) -> Iterator[bytes]:
        for event in self._bot_follower.events(self._heartbeat, self._presence.touch):
            yield HEARTBEAT if event is None else sse_frame(event)

    def _release(self) -> None:
        self._presence.drop()


def _accounts() -> Accounts:
    return current_app.extensions["accounts"]


def _stream_allowed(bot: Bot) -> None:
    limit = current_app.config["REFEREE_BOT_STREAM_LIMIT"]
    if _accounts().streams(bot.key) >= limit:
        raise TooMany(
            "too_many_bot_streams",
            f"This bot holds {limit} event streams already; close one first.",
            limit=f"{limit} event streams per bot",
            retry_after=5,
        )


@blp.route("/events")
@blp.response(
    200,
    EVENT_STREAM,
    content_type="text/event-stream",
    description="Server-sent events: `id: <event id>`, `event: <type>`, `data:` a `BotEvent` as JSON; "
    "first the pending state (open challenges as `challenge`, matches in progress as `match_started`) unless "
    "`Last-Event-ID` resumes; a `: keep-alive` comment after each heartbeat interval (15 s) without news.",
    headers={"Cache-Control": "Stream-Cache-Control", "X-Accel-Buffering": "X-Accel-Buffering"},
    example=examples.STREAM,
)
@blp.alt_response(400, response="BAD_REQUEST", description="`invalid_last_event_id`.")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(429, response="TOO_MANY_REQUESTS", description="`too_many_bot_streams`.")
@blp.alt_response(
    503, response="SERVICE_UNAVAILABLE", description="`too_many_streams`, `server_stopping`, `store_unavailable`."
)
@blp.doc(operationId="streamBotEvents", security=BOT_AUTH, parameters=["Last-Event-ID", "last_event_id"])
def events() -> Any:
    """The bot's events as they happen; the bot is online while a stream is open."""
    bot, after = current_bot(), last_event_id("an event id")
    waiting = waiting_requests()
    _stream_allowed(bot)
    slots: StreamSlots = current_app.extensions["stream_slots"]
    slot = slots.take([f"addr:{request.remote_addr or 'unknown'}", f"bot:{bot.key}"])
    if slot is None:
        raise too_many_streams()
    try:
        feed: Feed = current_app.extensions["feed"]
        accounts = _accounts()
        follower = BotFollower.open(accounts.store, feed, bot.key, after)
        heartbeat = current_app.config["REFEREE_STREAM_HEARTBEAT"]
        presence = Presence(accounts.store, bot.key, heartbeat, accounts.now_ms)
        presence.touch()  # online from now: the stream is accepted
    except BaseException:
        slot.give_back()
        raise
    body = BotEventStream(follower, presence, heartbeat, slot, waiting, socket_of(request.environ))
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Authorization"},
    )


@blp.route("/next")
@blp.arguments(NextEventQuerySchema(), location="query")
@blp.response(200, BotEventSchema, example=examples.EVENT)
@blp.alt_response(204, description="No event came within `wait` seconds.")
@blp.alt_response(400, response="BAD_REQUEST")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(503, response="SERVICE_UNAVAILABLE", description="`server_stopping`, `store_unavailable`.")
@blp.doc(operationId="nextBotEvent", security=BOT_AUTH)
def next_event(query: dict[str, Any]) -> Response:
    """The bot's next event after `after` (without it: its first pending event, else the next
    one to come), or 204 after at most `wait` seconds."""
    bot = current_bot()
    after = int(query["after"]) if "after" in query else None
    waiting = waiting_requests()
    feed: Feed = current_app.extensions["feed"]
    follower = BotFollower.open(_accounts().store, feed, bot.key, after)
    waiting.add(follower.stop)
    deadline = time.monotonic() + query["wait"]
    try:
        ready = follower.next_events()
        while not ready and not follower.stopped and (left := deadline - time.monotonic()) > 0:
            follower.wait(left)
            ready = follower.next_events()
    finally:
        waiting.discard(follower.stop)
        follower.close()
    if not ready:
        return Response(status=204)
    return json_response(orjson.loads(event_data(ready[0])))
