"""The requests of one process that wait for news: event streams and long polls.

Such a request holds its connection until something happens, so a worker told to stop
(``SIGTERM``: a deploy, a scale-down) would wait its whole graceful timeout for them and then
cut them mid-stream. Each one registers how to end it; when the worker stops,
:meth:`WaitingRequests.end_all` ends every one at once, cleanly, and their clients reconnect
(with ``Last-Event-ID``, missing nothing) to whichever server answers next.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

Stop = Callable[[], None]


class WaitingRequests:
    """How to end each waiting request of the process, until it ends by itself."""

    def __init__(self) -> None:
        self._stops: set[Stop] = set()
        self._lock = threading.Lock()
        self.ending = False

    def add(self, stop: Stop) -> None:
        """Register a request's ``stop``; a request that starts once the process is ending
        is stopped at once."""
        with self._lock:
            if not self.ending:
                self._stops.add(stop)
                return
        stop()

    def discard(self, stop: Stop) -> None:
        """The request ended: forget it."""
        with self._lock:
            self._stops.discard(stop)

    def end_all(self) -> None:
        """Stop every waiting request, and any that starts later."""
        with self._lock:
            self.ending = True
            stops, self._stops = list(self._stops), set()
        for stop in stops:
            stop()
