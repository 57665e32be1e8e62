"""``GET /v1/matches/{id}/socket``: one seat's persistent WebSocket channel (docs/socket.md).

Over HTTP, even with the connection kept, about half of the server's CPU per move went to
the HTTP layer (gunicorn's request parsing, the WSGI environ, headers, two sends) rather than
to the move. Here a seat upgrades once, with its token as ``Authorization: Bearer`` (never in
the URL, which is logged), and then each move is one text message in and one out: the body of
``POST /v1/matches/{id}/actions`` plus a client-chosen ``id``, answered with that ``id``, the
status and the body the move endpoint gives, made by the same code
(:meth:`ActionLane.move <service.api.action_lane.ActionLane.move>` and
:meth:`ActionLane.answer <service.api.action_lane.ActionLane.answer>`): the same rate limit,
idempotency, metrics and access line. ``{"id": ..., "op": "follow", "from": version}``
pushes the versions the match's event stream sends (:class:`service.live.followers.Follower`).

The channel runs in front of Flask on gunicorn's gevent workers, on the connection's own socket
(``gunicorn.socket``), reading and writing the frames with :mod:`service.api.frames` (wsproto
computes the handshake's accept token). The connection keeps its
worker greenlet, so ``REFEREE_WORKER_CONNECTIONS`` still bounds a worker's connections; when
the channel closes, ``StopIteration`` tells gunicorn to close the connection without writing
an answer of its own (as flask-sock does). A request to the route that is no well-formed
upgrade is answered 426 (here when it asks for an upgrade, which werkzeug's routing would
refuse with a bare 400; by the documented Flask route otherwise); a well-formed one
whose match or token is refused is answered with the problem the move endpoint would give.
"""

from __future__ import annotations

import base64
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from wsproto.utilities import generate_accept_token

from service.api import errors, frames, limits
from service.api.action_lane import BODY_KEYS, MAX_STATE_TOKEN, REQUEST_ID_ENVIRON, ActionLane, Answer, WSGIApp
from service.api.auth import IDEMPOTENCY_KEY
from service.api.bodies import Blueprint, load_json_body
from service.api.observability import REQUEST_ID_HEADER, RequestRecorder
from service.api.problems import BadRequest, Problem, Unauthorized, UpgradeRequired
from service.api.streams import slot_clients, too_many_streams
from service.errors import RefereeError
from service.live.feeds import Feed
from service.live.followers import Follower, LiveMatches
from service.live.slots import StreamSlots
from service.referee import Referee
from service.tokens import MATCH_ID_PATTERN, parse_bearer, parse_number

ROUTE = "/v1/matches/<match_id>/socket"
_PATH = re.compile(rf"^/v1/matches/({MATCH_ID_PATTERN})/socket$")
_MESSAGE_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
#: The keys a move message may carry besides the move body's.
_MOVE_EXTRAS = {"id", "idempotency_key"}
#: What the access line and request metrics name a socket message's method.
METHOD = "WS"
_RECEIVE_BYTES = 65536
#: Close codes (RFC 6455 section 7.4.1) the channel gives besides the protocol's own.
GOING_AWAY, UNSUPPORTED = 1001, 1003


def _upgrade_key(environ: dict[str, Any]) -> str | None:
    """The ``Sec-WebSocket-Key`` of a well-formed version-13 upgrade request, else None."""
    if environ.get("REQUEST_METHOD") != "GET" or environ.get("HTTP_UPGRADE", "").lower() != "websocket":
        return None
    if "upgrade" not in {part.strip().lower() for part in environ.get("HTTP_CONNECTION", "").split(",")}:
        return None
    if environ.get("HTTP_SEC_WEBSOCKET_VERSION") != "13" or environ.get("gunicorn.socket") is None:
        return None
    key = environ.get("HTTP_SEC_WEBSOCKET_KEY", "")
    try:
        if len(base64.b64decode(key, validate=True)) != 16:
            return None
    except ValueError:
        return None
    return key


class SocketLane:
    """WSGI middleware: upgrade requests to a match's socket route served here, all else by
    ``inner``."""

    def __init__(
        self,
        inner: WSGIApp,
        lane: ActionLane,
        referee: Referee,
        recorder: RequestRecorder,
        limiter: limits.RateLimiter | None,
        live: LiveMatches,
        feed: Feed,
        slots: StreamSlots,
        max_message_bytes: int,
        idle_seconds: float,
        heartbeat_seconds: float,
    ) -> None:
        self.inner = inner
        self.lane = lane
        self.referee = referee
        self.recorder = recorder
        self.limiter = limiter
        self.live = live
        self.feed = feed
        self.slots = slots
        self.max_message_bytes = max_message_bytes
        self.idle_seconds = idle_seconds
        self.heartbeat_seconds = heartbeat_seconds
        self._open: set[Channel] = set()

    def going_away(self) -> None:
        """Close every open channel with 1001, as a server going down does: called when the
        worker stops (``service/server/gunicorn_conf.py``), so bots learn it at once and
        reconnect elsewhere rather than finding their connection cut when the worker's
        graceful timeout ends."""
        for channel in list(self._open):
            channel.end(GOING_AWAY, "the server is going away")

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        matched = _PATH.match(environ.get("PATH_INFO", ""))
        key = _upgrade_key(environ) if matched is not None else None
        if matched is None:
            return self.inner(environ, start_response)
        if key is None:
            if "HTTP_UPGRADE" in environ:  # werkzeug's routing would refuse it 400, not saying why
                return errors.handle_problem(_upgrade_required())(environ, start_response)
            return self.inner(environ, start_response)
        started = time.perf_counter()
        match_id, path, remote = matched.group(1), environ["PATH_INFO"], environ.get("REMOTE_ADDR")
        request_id = self.recorder.request_id(environ.get(REQUEST_ID_ENVIRON))
        authorization = environ.get("HTTP_AUTHORIZATION", "")
        bearer = parse_bearer(authorization)
        refused = None
        try:
            if self.limiter is not None and (refusal := self.limiter.check(authorization, remote)):
                raise refusal
            if bearer is None:
                raise Unauthorized(
                    "bad_credentials", "Send the seat token as 'Authorization: Bearer <token>' on the upgrade request."
                )
            self.referee.caller(self.referee.load(match_id), bearer)
        except RefereeError as refusal:
            refused = errors.handle_refusal(refusal)
        except Problem as problem:
            refused = errors.handle_problem(problem)
        except limits.RateLimited as refusal:
            refused = errors.problem_response(*errors.rate_limited(refusal))
        status = refused.status_code if refused is not None else 101
        self.recorder.finish(request_id, "GET", ROUTE, path, status, time.perf_counter() - started, match_id, remote)
        if refused is not None:
            refused.headers[REQUEST_ID_HEADER] = request_id
            return refused(environ, start_response)
        assert bearer is not None
        sock = environ["gunicorn.socket"]
        sock.sendall(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Accept: %s\r\n\r\n" % generate_accept_token(key.encode())
        )
        budget = self.limiter.key_of(authorization, remote) if self.limiter is not None else ""
        channel = Channel(self, sock, match_id, bearer, budget, remote, path)
        self._open.add(channel)
        try:
            channel.run()
        finally:
            self._open.discard(channel)
        raise StopIteration("the socket closed")  # gunicorn closes the connection, writing nothing


class Channel:
    """One seat's open socket: messages read, answered, and the followed versions pushed."""

    def __init__(
        self,
        lane: SocketLane,
        sock: socket.socket,
        match_id: str,
        bearer: str,
        budget: str,
        remote: str | None,
        path: str,
    ) -> None:
        self._lane = lane
        self._sock = sock
        self._match_id = match_id
        self._bearer = bearer
        self._remote = remote
        self._path = path
        # The rate limit's key of the seat's requests: worked out once, not per message.
        self._budget = budget
        self._frames = frames.FrameReader(lane.max_message_bytes)
        self._sending = threading.Lock()
        self._follower: Follower | None = None
        self._slot: Any = None

    def run(self) -> None:
        """Serve messages until the client closes, breaks the protocol, sends too much or
        stays silent ``idle_seconds`` long; then stop following."""
        self._sock.settimeout(self._lane.idle_seconds)
        try:
            while True:
                try:
                    data = self._sock.recv(_RECEIVE_BYTES)
                except TimeoutError:
                    self._close(GOING_AWAY, "idle")
                    return
                except OSError:
                    return
                if not data or not self.received(data):
                    return
        finally:
            self._unfollow()

    def end(self, code: int, reason: str) -> None:
        """Close the channel from outside its loop: the close frame sent, the reading side
        shut, so the loop's ``recv`` returns and the channel ends."""
        self._close(code, reason)
        try:
            self._sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def received(self, data: bytes) -> bool:
        """Act on the frames ``data`` completes; False when the channel is over."""
        try:
            events = self._frames.feed(data)
        except frames.ProtocolViolation as violation:
            self._close(violation.code, violation.reason)
            return False
        for event in events:
            if type(event) is frames.Text:
                self._answer(event.data)
            elif type(event) is frames.Ping:
                self._send(frames.control_frame(frames.PONG, event.payload))
            elif type(event) is frames.Binary:
                self._close(UNSUPPORTED, "messages are JSON text")
                return False
            else:  # the client's close, answered with its code
                assert type(event) is frames.Close
                self._close(event.code, event.reason)
                return False
        return True

    def _answer(self, text: str) -> None:
        started = time.perf_counter()
        message_id: str | None = None
        # Counted first, as an HTTP request is before its body is read: a refused message gets
        # 429 whatever it holds (with its id when it has a readable one).
        refusal = self._lane.limiter.charge(self._budget) if self._lane.limiter is not None else None
        try:
            try:
                body = load_json_body(text)
            except BadRequest:
                if refusal is not None:
                    raise refusal from None
                raise
            found = body.get("id") if type(body) is dict else None
            message_id = found if type(found) is str and _MESSAGE_ID.match(found) else None
            if refusal is not None:
                raise refusal
            if type(body) is not dict:
                raise BadRequest("invalid_body", "A message is a JSON object.")
            if message_id is None:
                raise BadRequest("invalid_body", "A message's `id` is 1-128 characters of A-Z a-z 0-9 . _ -.")
            if body.get("op") == "follow":
                self._finish(started, message_id, *self._follow(body))
                return
            move = self._move_of(body)
        except (Problem, limits.RateLimited) as problem:
            self._finish(started, message_id, *_problem(problem))
            return
        except Exception as failure:  # as a move's: a logged 500, and the channel stays open
            errors.log_unhandled(failure, METHOD, self._path, message_id)
            failed = errors.internal_error_response()
            self._finish(started, message_id, failed.status, failed.get_data(), [])
            return
        status, answer, extra = self._lane.lane.answer(
            message_id,
            METHOD,
            ROUTE,
            self._path,
            self._match_id,
            self._remote,
            started,
            lambda: self._lane.lane.move(self._match_id, self._bearer, *move),
        )
        self._reply(message_id, status, answer, extra)

    def _move_of(self, body: dict[str, Any]) -> tuple[str, dict[str, Any], str | None]:
        """The state token, action and idempotency key of a move message, checked as the
        move endpoint checks its body and ``Idempotency-Key``."""
        unknown = body.keys() - BODY_KEYS - _MOVE_EXTRAS
        missing = BODY_KEYS - body.keys()
        state_token, action, key = body.get("state_token"), body.get("action"), body.get("idempotency_key")
        if unknown or missing:
            found = {name: ["Unknown field."] for name in unknown} | {
                n: ["Missing data for required field."] for n in missing
            }
            raise _invalid_body(found)
        if type(state_token) is not str or len(state_token) > MAX_STATE_TOKEN:
            raise _invalid_body({"state_token": [f"A string of at most {MAX_STATE_TOKEN} characters."]})
        if type(action) is not dict:
            raise _invalid_body({"action": ["Not a valid mapping type."]})
        if key is not None and (type(key) is not str or not IDEMPOTENCY_KEY.match(key)):
            raise BadRequest("invalid_idempotency_key", "idempotency_key must be 1–255 visible ASCII characters.")
        return state_token, action, key

    def _follow(self, body: dict[str, Any]) -> tuple[str, bytes, list[tuple[str, str]]]:
        """Start pushing the match's versions after ``from`` (or from the current one)."""
        after = body.get("from")
        if after is not None and (type(after) is not int or parse_number(str(after)) is None):
            raise BadRequest("invalid_last_event_id", "`from` is not a version: a whole number.")
        if self._follower is not None:
            raise BadRequest("invalid_body", "This socket follows its match already.")
        slot = self._lane.slots.take(slot_clients(self._remote, self._bearer))
        if slot is None:
            raise too_many_streams()
        try:
            follower = Follower.open(self._lane.live, self._lane.feed, self._match_id, self._bearer, after)
        except RefereeError as refusal:
            slot.give_back()
            raise errors.problem_for(refusal) from refusal
        except BaseException:
            slot.give_back()
            raise
        if follower is None:
            slot.give_back()
            return "204 No Content", b"null", []
        self._follower, self._slot = follower, slot
        threading.Thread(target=self._push, args=(follower,), name="referee-socket-follow", daemon=True).start()
        return "200 OK", b'{"following":true}', []

    def _push(self, follower: Follower) -> None:
        """Send each version's event as the stream would (a ping for each heartbeat)."""
        try:
            for frame in follower.frames(self._lane.heartbeat_seconds):
                if frame is None:
                    self._send(frames.control_frame(frames.PING))
                else:
                    self._send_text(b'{"event":"version","version":%d,"data":%s}' % (frame.version, frame.data))
        except OSError:
            pass

    def _unfollow(self) -> None:
        if self._follower is not None:
            self._follower.stop()
            self._follower.close()
            self._slot.give_back()
            self._follower = None

    def _finish(
        self, started: float, message_id: str | None, status: str, body: bytes, extra: list[tuple[str, str]]
    ) -> None:
        """Answer a message the move lane did not (refused before it, or a follow), with the
        metrics and access line the lane gives each of its answers."""
        request_id = message_id or self._lane.recorder.request_id(None)
        elapsed = time.perf_counter() - started
        self._lane.recorder.finish(
            request_id, METHOD, ROUTE, self._path, int(status[:3]), elapsed, self._match_id, self._remote
        )
        self._reply(message_id, status, body, extra)

    def _reply(self, message_id: str | None, status: str, body: bytes, extra: list[tuple[str, str]]) -> None:
        replayed = b',"replayed":true' if ("Idempotent-Replayed", "true") in extra else b""
        self._send_text(
            b'{"id":%s,"status":%s%s,"body":%s}' % (orjson.dumps(message_id), status[:3].encode(), replayed, body)
        )

    def _send_text(self, data: bytes) -> None:
        """One text frame of ``data`` (UTF-8 JSON already)."""
        self._send(frames.text_frame(data))

    def _send(self, frame: bytes) -> None:
        """``frame`` whole. One ``send`` takes an answer whole unless the client's buffer is
        full; gevent's ``sendall`` would first ask the kernel for the buffer's size, a system
        call per answer."""
        with self._sending:
            sent = self._sock.send(frame)
            if sent < len(frame):
                self._sock.sendall(memoryview(frame)[sent:])

    def _close(self, code: int, reason: str) -> None:
        try:
            self._send(frames.close_frame(code, reason))
        except OSError:
            pass


blp = Blueprint(
    "sockets",
    __name__,
    url_prefix="/v1/matches",
    description="A seat's persistent channel: moves and the match's versions over one WebSocket.",
)


@blp.route("/<match_id>/socket")
@blp.response(
    101,
    description="Switching Protocols: the connection is the seat's WebSocket. Each client message is a JSON text "
    "frame, a `SocketMove` or a `SocketFollow`; the server answers each with a `SocketAnswer` carrying its `id`, "
    "and after `follow` pushes a `SocketEvent` per version. Send the upgrade with `Authorization: Bearer <seat "
    "token>`. Close codes: 1000 normal, 1001 idle (`REFEREE_SOCKET_IDLE` seconds without a frame), 1002 protocol "
    "error, 1003 binary message, 1007 invalid UTF-8, 1009 message longer than `REFEREE_MAX_BODY_BYTES`.",
)
@blp.alt_response(401, response="UNAUTHORIZED")
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(
    426, response="UPGRADE_REQUIRED", description="`websocket_required`: not a WebSocket (version 13) upgrade request."
)
@blp.alt_response(429, response="TOO_MANY_REQUESTS")
@blp.doc(operationId="openMatchSocket")
def socket_route(match_id: str) -> Any:
    """Open the caller's seat's WebSocket (a well-formed upgrade never reaches this view)."""
    raise _upgrade_required()


def _upgrade_required() -> UpgradeRequired:
    return UpgradeRequired("websocket_required", "Open this route with a WebSocket upgrade request (version 13).")


def _invalid_body(found: dict[str, list[str]]) -> BadRequest:
    return BadRequest("invalid_body", "The request does not match the schema; see errors.", errors=found)


def _problem(refusal: Problem | limits.RateLimited) -> Answer:
    """The status line, problem body and headers the move endpoint answers a refusal with."""
    if isinstance(refusal, limits.RateLimited):
        response = errors.problem_response(*errors.rate_limited(refusal))
    else:
        response = errors.handle_problem(refusal)
    return response.status, response.get_data(), response.headers.to_wsgi_list()
