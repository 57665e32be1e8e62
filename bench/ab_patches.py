"""The referee with named fast-path optimisations taken out, for ``bench/ab_moves.py``.

Each optimisation of the move path is measured alone by serving the same tree twice: once as
shipped, once with that one optimisation replaced by the plain code it stands in for. The
replacement is a patch applied here, in the benchmark, before the app is built, so the
service itself carries no switch for it:

    python bench/ab_moves.py . ".:AB_WITHOUT=move_lane" ".:AB_WITHOUT=direct_connections"

``AB_WITHOUT`` names one or more (comma-separated) entries of :data:`PATCHES`;
``bench/ab_moves.py`` serves such a variant as ``bench.ab_patches:create_app()``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any


def _without_move_lane() -> None:
    """Moves through the Flask route: the lane built as shipped, its path pattern made to
    match nothing."""
    from service.api.action_lane import ActionLane

    built = ActionLane.__init__

    def __init__(self: ActionLane, *args: Any) -> None:
        built(self, *args)
        self._actions = re.compile(r"(?!)")

    ActionLane.__init__ = __init__


def _without_direct_connections() -> None:
    """The commit's EVALSHA through redis-py's ``Script`` call (pool, retry, hooks)."""
    from service.store import direct

    direct.DirectConnections.evalsha = lambda self, script, keys, args: script(keys=keys, args=args)


def _without_node_cache() -> None:
    """A match cache per worker process instead of one shared by the node's workers."""
    from service.cache import node

    node.this_workers_cache = lambda: None


def _without_direct_access_line() -> None:
    """The access line through :mod:`logging` (record, handler lock, formatter)."""
    from service.api import observability

    def write(self: Any, fields: dict[str, Any]) -> None:
        observability.access_log.info(fields)

    observability.AccessLog.write = write


def _without_frame_reader() -> None:
    """A seat socket's client frames read by wsproto's server connection, the library
    :mod:`service.api.frames` stands in for (its events handled as the channel handles the
    reader's)."""
    from wsproto import ConnectionType
    from wsproto.connection import Connection
    from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage

    from service.api import sockets

    def received(self: Any, data: bytes) -> bool:
        ws = self.__dict__.setdefault("_wsproto", Connection(ConnectionType.SERVER))
        pending: list[str] = self.__dict__.setdefault("_fragments", [])
        ws.receive_data(data)
        for event in ws.events():
            if isinstance(event, TextMessage):
                pending.append(event.data)
                if event.message_finished:
                    text = "".join(pending)
                    pending.clear()
                    self._answer(text)
            elif isinstance(event, Ping):
                self._send(ws.send(event.response()))
            elif isinstance(event, BytesMessage):
                self._close(sockets.UNSUPPORTED, "messages are JSON text")
                return False
            elif isinstance(event, CloseConnection):
                self._send(ws.send(event.response()))
                return False
        return True

    sockets.Channel.received = received  # type: ignore[method-assign]  # the patch, as above


def _without_decoded_matches() -> None:
    """Every move decodes its match's record: the referee keeps no committed match object."""
    from service.referee import Referee

    Referee.keep = lambda self, result: None  # type: ignore[method-assign]  # the patch, as above


def _without_resp_packer() -> None:
    """The commit's EVALSHA packed by the connection's own serializer (redis-py's general one)."""
    from service.store import direct

    direct.pack = lambda command, connection: connection.pack_command(*command)


def _without_batched_commits() -> None:
    """Every commit on a connection of its own, sent and answered alone: no queue, no
    leader."""
    from service.store import direct

    def execute(self: Any, command: tuple[Any, ...]) -> Any:
        for attempt in (1, 2):
            try:
                return exchange(self, command)
            except direct._DROPPED:
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def exchange(self: Any, command: tuple[Any, ...]) -> Any:
        connection = self._take()
        try:
            connection.send_packed_command(direct.pack(command, connection), check_health=False)
            reply = connection.read_response()
        except direct.ResponseError:
            self._idle.append(connection)
            raise
        except BaseException:
            connection.disconnect()
            raise
        self._idle.append(connection)
        return reply

    direct.DirectConnections.execute = execute  # type: ignore[method-assign]  # the patch, as above


def _without_lean_calls() -> None:
    """The per-move system calls and rebuilt hashes back: token MACs by ``hmac.digest``,
    ``os.getpid`` for every Prometheus sample, gevent's ``sendall`` for a socket's answers
    (it asks for the buffer's size first), a datetime built for every timestamp, and
    ``os.urandom`` for every record identity. (The commit script's single HMGET stays.)"""
    import hmac

    from prometheus_client import values

    from service import clock, referee, tokens
    from service.api import metrics, sockets
    from service.store import base, redis_store

    def state_mac(self: Any, match_id: str, version: int) -> str:
        return tokens._b64(hmac.digest(self._secret, f"{match_id}.{version}".encode(), "sha256"))

    def seat_tag(self: Any, body: str) -> str:
        return tokens._b64(hmac.digest(self._key, body.encode(), "sha256")[:16])

    def state_init(self: Any, secret: bytes) -> None:
        self._secret = secret

    def seat_init(self: Any, secret: bytes) -> None:
        self._key = hmac.digest(secret, tokens._SEAT_TOKEN_LABEL, "sha256")

    tokens.StateTokens.__init__ = state_init  # type: ignore[method-assign]  # the patch, as above
    tokens.StateTokens._mac = state_mac  # type: ignore[method-assign]  # the patch, as above
    tokens.SeatTokens.__init__ = seat_init  # type: ignore[method-assign]  # the patch, as above
    tokens.SeatTokens._tag = seat_tag  # type: ignore[method-assign]  # the patch, as above
    if metrics.MULTIPROCESS:  # samples are made per label set on first use, after this
        values.ValueClass = values.MultiProcessValue()

    def iso_ms(epoch_ms: int) -> str:
        return f"{clock._calendar_second.__wrapped__(epoch_ms // 1000)}.{epoch_ms % 1000:03d}Z"

    clock.iso_ms = referee.iso_ms = iso_ms
    sockets.Channel._send = lambda self, frame: self._sock.sendall(frame)  # type: ignore[method-assign]  # the patch, as above
    redis_store.new_identity = lambda: os.urandom(base.IDENTITY_BYTES)


#: The optimisations of the move path that measured clearly above the noise, each with the
#: patch that takes it out. (Those that did not were removed from the service: legal actions
#: in the lane, the orjson JSON provider, counted request ids, the bracket count before the
#: nesting walk.)
PATCHES: dict[str, Callable[[], None]] = {
    "move_lane": _without_move_lane,
    "direct_connections": _without_direct_connections,
    "node_cache": _without_node_cache,
    "direct_access_line": _without_direct_access_line,
    "frame_reader": _without_frame_reader,
    "decoded_matches": _without_decoded_matches,
    "resp_packer": _without_resp_packer,
    "batched_commits": _without_batched_commits,
    "lean_calls": _without_lean_calls,
}


def create_app() -> Any:
    """``service.create_app()`` with the optimisations named in ``AB_WITHOUT`` taken out."""
    for name in filter(None, os.environ.get("AB_WITHOUT", "").split(",")):
        PATCHES[name]()
    from service import create_app as build

    return build()
