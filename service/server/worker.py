"""The server's gunicorn worker: gunicorn's gevent worker, which lets go of idle connections
as soon as it is told to stop.

A bot keeps its connection between moves (``keepalive``, docs/connections.md). A worker told to
stop (``SIGTERM``: a deploy, a scale-down) stops accepting, then waits until every connection it
holds has ended; a kept connection between two requests ends only when its keep-alive wait
runs out, so each one held the stop for up to ``keepalive`` seconds though nothing was under
way on it. This worker ends those waits when it stops (:meth:`RefereeWorker.let_go_of_idle`):
the connection closes, as the keep-alive timeout would have closed it, and its client opens a
new one to whichever server answers. A request being served is left to finish (its answer
closes the connection); one whose head is still arriving when the worker lets go (a quarter of a
second after the stop, ``gunicorn_conf.IDLE_GRACE_S``) is let go of as an idle one would be.
"""

from __future__ import annotations

from types import TracebackType

import gevent
from greenlet import greenlet
from gunicorn.workers.ggevent import GeventWorker


class _KeepAliveWait:
    """One wait for a connection's next request head, timed by ``keepalive`` as gunicorn times
    it, and listed in ``waits`` while it lasts (a class, not a generator: it is entered for every
    request)."""

    __slots__ = ("_waits", "_timeout", "_greenlet")

    def __init__(self, waits: dict[greenlet, gevent.Timeout], seconds: float) -> None:
        self._waits = waits
        # False: the timeout ends the wait silently, as gunicorn's own (the stubs omit it).
        self._timeout = gevent.Timeout(seconds, False)  # type: ignore[arg-type]

    def __enter__(self) -> None:
        self._greenlet = gevent.getcurrent()
        self._waits[self._greenlet] = self._timeout
        self._timeout.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> bool:
        del self._waits[self._greenlet]
        return bool(self._timeout.__exit__(kind, error, trace))


class RefereeWorker(GeventWorker):
    """gunicorn's ``gevent`` worker, its keep-alive waits listed so a stop can end them."""

    def init_process(self) -> None:
        self._keep_alive_waits: dict[greenlet, gevent.Timeout] = {}
        super().init_process()

    def timeout_ctx(self) -> _KeepAliveWait:  # type: ignore[override]  # the stubs say None; gunicorn enters it
        """The wait for a connection's next request head, ended early by :meth:`let_go_of_idle`."""
        return _KeepAliveWait(self._keep_alive_waits, self.cfg.keepalive)

    def let_go_of_idle(self) -> None:
        """End every wait for a next request: each raises its own keep-alive timeout, which
        gunicorn takes for the client's silence and closes the connection."""
        for waiting, timeout in list(self._keep_alive_waits.items()):
            gevent.kill(waiting, timeout)
