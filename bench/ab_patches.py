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


#: The optimisations of the move path that measured clearly above the noise, each with the
#: patch that takes it out. (Those that did not were removed from the service: legal actions
#: in the lane, the orjson JSON provider, keyed-HMAC copies, counted request ids, the
#: per-second timestamp cache, the bracket count before the nesting walk.)
PATCHES: dict[str, Callable[[], None]] = {
    "move_lane": _without_move_lane,
    "direct_connections": _without_direct_connections,
    "node_cache": _without_node_cache,
    "direct_access_line": _without_direct_access_line,
    "frame_reader": _without_frame_reader,
    "decoded_matches": _without_decoded_matches,
    "resp_packer": _without_resp_packer,
}


def create_app() -> Any:
    """``service.create_app()`` with the optimisations named in ``AB_WITHOUT`` taken out."""
    for name in filter(None, os.environ.get("AB_WITHOUT", "").split(",")):
        PATCHES[name]()
    from service import create_app as build

    return build()
