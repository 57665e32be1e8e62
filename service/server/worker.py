"""The server's gunicorn worker: gunicorn's gevent worker, which lets go of idle connections
as soon as it is told to stop.

A bot keeps its connection between moves (``keepalive``, docs/connections.md). A worker told to
stop (``SIGTERM``: a deploy, a scale-down) stops accepting, then waits until every connection it
holds has ended; a kept connection between two requests ends only when its keep-alive wait
runs out, so each one held the stop for up to ``keepalive`` seconds though nothing was under
way on it. This worker ends those waits when it stops (:meth:`RefereeWorker.let_go_of_idle`):
the connection closes, as the keep-alive timeout would have closed it, and its client opens a
new one to whichever server answers. A request already being read or served is left to finish;
its answer closes the connection.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import gevent
from greenlet import greenlet
from gunicorn.workers.ggevent import GeventWorker


class RefereeWorker(GeventWorker):
    """gunicorn's ``gevent`` worker, its keep-alive waits registered so a stop can end them."""

    def init_process(self) -> None:
        self._between_requests: dict[greenlet, gevent.Timeout] = {}
        super().init_process()

    @contextmanager
    def timeout_ctx(self) -> Iterator[None]:  # type: ignore[override]  # the stubs say None; gunicorn enters it
        """The wait for a connection's next request head, timed by ``keepalive`` as gunicorn
        does, and ended early by :meth:`let_go_of_idle`."""
        current = gevent.getcurrent()
        # False: the timeout ends the wait silently, as gunicorn's own (the stubs omit it).
        with gevent.Timeout(self.cfg.keepalive, False) as timeout:  # type: ignore[arg-type]
            self._between_requests[current] = timeout
            try:
                yield
            finally:
                del self._between_requests[current]

    def let_go_of_idle(self) -> None:
        """End every wait for a next request: each raises its own keep-alive timeout, which
        gunicorn takes for the client's silence and closes the connection."""
        for waiting, timeout in list(self._between_requests.items()):
            gevent.kill(waiting, timeout)
