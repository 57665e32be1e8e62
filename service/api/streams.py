"""``GET /v1/matches/{id}/stream``: a match live, as server-sent events.

Everything that can go wrong with the request is answered before the stream starts, as
problem+json (unknown match, bad credentials, a bad ``Last-Event-ID``, no free stream slot);
after that the answer is ``200 text/event-stream`` and only ends with the match, when the
client leaves, or when the server stops (the client reconnects with ``Last-Event-ID``). Each
event is written as::

    id: <version>
    event: version
    data: <StreamEventSchema as JSON>

with a comment line ``: keep-alive`` after ``REFEREE_STREAM_HEARTBEAT`` seconds of silence,
so proxies keep the connection and a vanished client is noticed. :mod:`service.live.followers` decides
what each event holds; :mod:`service.live.feeds` wakes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from flask import Response, current_app, request

from schemas import examples
from schemas.streams import EVENT_STREAM
from service.api.auth import bearer_token
from service.api.bodies import Blueprint
from service.api.hang_ups import HangUpWatch, socket_of
from service.api.problems import BadRequest, Unavailable
from service.live.feeds import Feed
from service.live.followers import Follower, LiveMatches
from service.live.slots import Slot, StreamSlots
from service.live.waiting import WaitingRequests
from service.tokens import hash_seat_token, parse_number

blp = Blueprint(
    "streams",
    __name__,
    url_prefix="/v1/matches",
    description="Follow a match live: every version, as server-sent events.",
)

HEARTBEAT = b": keep-alive\n\n"

#: The first bytes of every stream: sent at once so that the answer's headers leave with them
#: (a WSGI server sends headers with the first body bytes) even when the client resumes at the
#: current version and nothing new comes for a while.
OPENED = b": open\n\n"


class EventStream:
    """The body of a stream answer: SSE frames from a follower. The server calls
    :meth:`close` when the answer ends, also when the client left before the first frame
    (a generator that never started would not run its cleanup). With the connection's
    socket, the stream ends as soon as its client hangs up (:mod:`service.api.hang_ups`);
    and it ends at once when the worker stops (:mod:`service.live.waiting`)."""

    def __init__(
        self, follower: Follower, heartbeat: float, slot: Slot, waiting: WaitingRequests, sock: Any | None = None
    ) -> None:
        self._follower = follower
        self._heartbeat = heartbeat
        self._slot = slot
        self._waiting = waiting
        self._watch = HangUpWatch(sock, follower.stop) if sock is not None else None
        waiting.add(follower.stop)

    def __iter__(self) -> Iterator[bytes]:
        yield OPENED
        if self._watch is not None:
            self._watch.start()
        yield from self._frames()

    def _frames(self) -> Iterator[bytes]:
        """The SSE frames after the opening: versions and heartbeats."""
        for frame in self._follower.frames(self._heartbeat):
            yield HEARTBEAT if frame is None else b"id: %d\nevent: version\ndata: %s\n\n" % (frame.version, frame.data)

    def close(self) -> None:
        self._waiting.discard(self._follower.stop)
        if self._watch is not None:
            self._watch.stop()
        self._follower.close()
        try:
            self._release()
        finally:
            self._slot.give_back()

    def _release(self) -> None:
        """What else the stream holds until it ends (nothing here), given back before its slot."""


def stream_clients(bearer: str | None) -> list[str]:
    """Who opens this stream, for each client's share of the slots: the address (the one
    forwarded by ``REFEREE_PROXY_HOPS`` trusted proxies, if set) and the seat token."""
    return slot_clients(request.remote_addr, bearer)


def slot_clients(remote: str | None, bearer: str | None) -> list[str]:
    """The clients a stream of ``remote`` with ``bearer`` counts against (its address and its
    seat token), for the event stream and a seat socket's follow alike."""
    clients = [f"addr:{remote or 'unknown'}"]
    if bearer is not None:
        clients.append(f"token:{hash_seat_token(bearer)}")
    return clients


def last_event_id(what: str = "a version: a whole number") -> int | None:
    """The event a reconnecting client saw last (a match's version, a bot's event id):
    ``Last-Event-ID`` (which EventSource sends), else the ``last_event_id`` query parameter;
    ``None`` for a fresh stream. ``what`` says what a valid one is, for the refusal."""
    text = request.headers.get("Last-Event-ID")
    if text is None:
        text = request.args.get("last_event_id")
    if text is None:
        return None
    version = parse_number(text.strip())
    if version is None:
        raise BadRequest("invalid_last_event_id", f"Last-Event-ID (or last_event_id) is not {what}.")
    return version


@blp.route("/<match_id>/stream")
@blp.response(
    200,
    EVENT_STREAM,
    content_type="text/event-stream",
    description="Server-sent events, one per version from the current one on (or from `Last-Event-ID`): "
    "`id: <version>`, `event: version`, `data:` a `StreamEvent` as JSON; a `: keep-alive` comment after "
    "each heartbeat interval (15 s) without news. The stream ends after the match's final version, or when "
    "the server stops (reconnect with `Last-Event-ID`).",
    headers={"Cache-Control": "Stream-Cache-Control", "X-Accel-Buffering": "X-Accel-Buffering"},
    example=examples.STREAM,
)
@blp.alt_response(
    204,
    description="The match has ended and `Last-Event-ID` is its last version: nothing more will come "
    "(EventSource stops reconnecting).",
)
@blp.alt_response(400, response="BAD_REQUEST", description="`invalid_last_event_id`: not a version of this match.")
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(
    503,
    response="SERVICE_UNAVAILABLE",
    description="`too_many_streams`: this server holds as many streams as it may, or the caller (its address, "
    "or its seat token) holds as many as the server has free; retry after `Retry-After`. "
    "`server_stopping`: this server is stopping; retry here or on another node. "
    "`store_unavailable`: the store cannot be read now.",
)
@blp.doc(operationId="streamMatch", parameters=["Last-Event-ID", "last_event_id"])
def stream(match_id: str) -> Any:
    """Follow a match live as the caller's seat (or a spectator) sees it: one event per version."""
    bearer, after = bearer_token(), last_event_id()
    waiting = waiting_requests()
    slots: StreamSlots = current_app.extensions["stream_slots"]
    slot = slots.take(stream_clients(bearer))
    if slot is None:
        raise too_many_streams()
    try:
        live: LiveMatches = current_app.extensions["live_matches"]
        feed: Feed = current_app.extensions["feed"]
        follower = Follower.open(live, feed, match_id, bearer, after)
    except BaseException:
        slot.give_back()
        raise
    if follower is None:
        slot.give_back()
        return Response(status=204, headers={"Cache-Control": "no-store"})
    heartbeat = current_app.config["REFEREE_STREAM_HEARTBEAT"]
    body = EventStream(follower, heartbeat, slot, waiting, socket_of(request.environ))
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Authorization"},
    )


def waiting_requests() -> WaitingRequests:
    """The worker's waiting requests, which a new stream or long poll joins; refused
    ``server_stopping`` once the worker is told to stop: it would end the request at once, and
    a client reconnecting at once would come back to it in a loop until its listener closes, up
    to a second later."""
    waiting: WaitingRequests = current_app.extensions["waiting_requests"]
    if waiting.ending:
        raise Unavailable(
            "server_stopping", "This server is stopping; retry shortly, here or on another node.", retry_after=1
        )
    return waiting


def too_many_streams() -> Unavailable:
    """The refusal of a stream (an event stream, a bot's, a socket's follow) for want of a slot."""
    return Unavailable(
        "too_many_streams",
        "This server holds as many streams as it may, or as many of yours as it has free slots; retry shortly.",
        retry_after=5,
    )
