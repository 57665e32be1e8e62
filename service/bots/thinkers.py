"""Searches in worker processes, so a house seat thinking never stalls the server's requests.

A gunicorn gevent worker serves every request from one thread: a CPU-bound search run there
(a greenlet never yields while it computes) holds up every other request of that worker for
the whole search, up to a second at level 5; gevent's pool of real threads would not help
much either, since the search holds the GIL. So each server process keeps a few long-lived
worker processes (``python -m service.bots.thinkers``, started before the server process
serves, or on first use) and hands each search to an idle one over a pipe, one JSON line each
way. The greenlet that asked waits on
the pipe, which gevent turns into a wait on its hub, so the worker's other requests go on.
At most ``size`` searches run at once; further ones queue for a worker, and their time on the
clock runs meanwhile (the worker is told when to stop, as a point in time, and its caller waits
for the answer only :data:`ANSWER_GRACE_S` past it).

The worker chooses with ``random.Random(seed)`` exactly as the caller would in process, so a
decision is the same wherever it is made.
"""

from __future__ import annotations

import contextlib
import logging
import random
import select
import subprocess
import sys
import threading
import time
from typing import Any

import orjson

from service.bots.registry import HEURISTIC_BOTS, heuristic_bot, make_bot, sampler_of
from service.engine import Action, View

log = logging.getLogger("referee")


class _Worker:
    """One worker process and its pipes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "service.bots.thinkers"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self._ready = False

    def wait_ready(self, until: float | None = None) -> None:
        """Wait for the line the worker writes once it has imported every game's bots: a search
        asked of it before would spend its seat's clock on the imports (a second or more on a
        loaded machine, where a house seat lost its first decision on a one-second clock)."""
        if not self._ready:
            self._line(until)
            self._ready = True

    def ask(self, request: dict[str, Any], until: float | None) -> Action:
        """The ready worker's choice; :class:`NoThinkerInTime` when it has not answered by
        ``until``, and the worker, whose answer may still come, can only be killed."""
        assert self.process.stdin is not None
        self.process.stdin.write(orjson.dumps(request) + b"\n")
        self.process.stdin.flush()
        action: Action = orjson.loads(self._line(until))["action"]
        return action

    def _line(self, until: float | None = None) -> bytes:
        assert self.process.stdout is not None
        if until is not None:
            # A select on the pipe (gevent's, in a server worker: the greenlet waits, the others
            # go on); each answer is one whole line, so nothing is left in the reader's buffer.
            readable, _, _ = select.select([self.process.stdout], [], [], max(0.0, until - time.time()))
            if not readable:
                raise NoThinkerInTime
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"a search worker exited with status {self.process.wait()}")
        return line

    def close(self) -> None:
        """End of input ends the worker; one that does not end at once is killed."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """Stop the worker now (it may be in the middle of a search)."""
        self.process.kill()
        self.process.wait()


ANSWER_GRACE_S = 0.1
"""How long after a search's stopping point its caller waits for the answer (the worker stops
searching then and answers in a millisecond) before it takes the worker for stuck, starved of
the CPU on an overloaded machine: the rest of the seat's thinking margin is left for the move
the caller plays instead, and for committing it."""


class NoThinkerInTime(Exception):
    """Every worker stayed busy until the decision had to be made, or the one asked did not
    answer by then."""


class Thinkers:
    """Up to ``size`` worker processes choosing for bots, each one decision at a time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._slots = threading.BoundedSemaphore(size)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []

    def start(self) -> None:
        """Start every worker now rather than on first use, and return once each is ready: a
        worker takes a few tenths of a second to start (seconds on a loaded machine), which a
        house seat's first decision on a short clock cannot spare. Call it in the process that
        will use them (after a server forks its workers, before it serves)."""
        started = [_Worker() for _ in range(self.size)]
        ready = []
        for worker in started:
            try:
                worker.wait_ready()
            except RuntimeError as exc:  # the server still serves; a search then starts its own
                log.warning("%s", exc)
                continue
            ready.append(worker)
        with self._lock:
            self._idle.extend(ready)

    def choose(
        self, game_id: str, bot: str, view: View, legal: list[Action], seed: str, stop_at: float | None
    ) -> Action:
        """What bot ``bot`` of ``game_id`` chooses with ``random.Random(seed)``, thinking no
        later than ``stop_at`` (epoch seconds of this machine) when given.

        :raises NoThinkerInTime: no worker came free before ``stop_at``, or ready, or answered
            :data:`ANSWER_GRACE_S` after it (a worker starved of the CPU: it is killed).
        """
        request = {"game": game_id, "bot": bot, "view": view, "legal": legal, "seed": seed, "stop_at": stop_at}
        if not self._slots.acquire(timeout=None if stop_at is None else max(0.0, stop_at - time.time())):
            raise NoThinkerInTime
        until = None if stop_at is None else stop_at + ANSWER_GRACE_S
        try:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                worker = _Worker()
            try:
                worker.wait_ready(until)
            except NoThinkerInTime:  # still importing: ready for a later decision
                with self._lock:
                    self._idle.append(worker)
                raise
            try:
                action = worker.ask(request, until)
            except NoThinkerInTime:
                worker.kill()
                raise
            except BaseException:
                worker.close()
                raise
            with self._lock:
                self._idle.append(worker)
        finally:
            self._slots.release()
        return action


def _serve() -> None:
    """The worker's loop: once every game's bots are imported, a ``{"ready": true}`` line out;
    then one request line in, one ``{"action": ...}`` line out, until end of input."""
    for game_id in HEURISTIC_BOTS:
        # A game whose bots do not load (its data missing) fails when a search of it is asked.
        with contextlib.suppress(Exception):
            heuristic_bot(game_id)
            sampler_of(game_id)
    sys.stdout.buffer.write(b'{"ready": true}\n')
    sys.stdout.buffer.flush()
    for line in sys.stdin.buffer:
        request = orjson.loads(line)
        stop_at = request["stop_at"]
        within_s = None if stop_at is None else max(0.0, stop_at - time.time())
        bot = make_bot(request["game"], request["bot"], within_s=within_s)
        action = bot.choose(request["view"], request["legal"], random.Random(request["seed"]))
        sys.stdout.buffer.write(orjson.dumps({"action": action}) + b"\n")
        sys.stdout.buffer.flush()


if __name__ == "__main__":
    _serve()
