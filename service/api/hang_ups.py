"""Noticing at once that the client of an event stream hung up.

A stream writes only when its match moves or a heartbeat is due, and the first write to a
connection its client closed usually succeeds (the kernel takes the bytes; the peer answers
with a reset), so a client that left was noticed one or two heartbeats later: up to 30 s of
a stream slot, a greenlet and its buffers for nobody, and a burst of clients that left kept
the slots from the next ones. A client of an event stream sends nothing after its request, so
its connection turning readable means it hung up (a read gives end of file, or a reset) —
or that it pipelined another request, which is left alone for the server.

:class:`HangUpWatch` waits for that on the connection's socket, in a thread of its own (a
greenlet under gunicorn's gevent workers), and calls back once. It needs the socket, which
gunicorn gives the application (``gunicorn.socket``); under another server a departed client
is noticed at the next write, as before.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Callable
from typing import Any

#: How long one wait lasts before the watch checks whether its stream has ended (and so
#: stops watching): a watch outlives its stream by at most this.
WATCH_SLICE_SECONDS = 5.0


class HangUpWatch:
    """Calls ``on_hang_up`` once if the client of ``sock`` hangs up before :meth:`stop`."""

    def __init__(self, sock: Any, on_hang_up: Callable[[], None]) -> None:
        self._sock = sock
        self._on_hang_up = on_hang_up
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="referee-hang-up", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def _watch(self) -> None:
        while not self._stopped.is_set():
            try:
                readable, _, _ = select.select([self._sock], [], [], WATCH_SLICE_SECONDS)
            except (OSError, ValueError):
                return  # the server closed the connection: the stream is over
            if readable:
                break
        else:
            return
        if self._stopped.is_set():
            return
        try:
            hung_up = self._sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            hung_up = True  # reset by the peer
        if hung_up:
            self._on_hang_up()


def socket_of(environ: dict[str, Any]) -> Any | None:
    """The client connection's socket, when the server gives it to the application."""
    return environ.get("gunicorn.socket")
