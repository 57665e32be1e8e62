"""The sweeper: the referee acting on matches nobody touches.

A request on a match applies its passed deadlines itself (:meth:`Referee.settle`), and the
node that commits a move that makes a house seat due plays that seat at once. The sweeper
covers everything else: a clock that runs out while every client is silent, and a house turn
whose node died before playing it. Every serving process runs one (``gunicorn_conf`` starts
it after the worker is ready; docs/clocks.md says how this plays out in each deployment).

Each pass reads the store's due index (matches whose due time has passed), loads each match,
applies what is due through the ordinary compare-and-set and writes its next due time back.
Several sweepers (workers, nodes) may pick the same match: the compare-and-set lets exactly
one apply each entry, the others find it done. The index is only a hint: an entry earlier
than the match's real due time costs one load and is moved to the right time.
"""

from __future__ import annotations

import logging
import threading

from service.challenges import Challenges
from service.errors import NotFound
from service.ladders import Ladders
from service.match import Snapshot
from service.referee import Referee

log = logging.getLogger("referee.sweeper")

DEFAULT_INTERVAL_SECONDS = 0.25
"""How often a sweeper looks at the due index: a deadline is applied well within a second."""

BATCH = 100
"""Due matches taken per pass (per shard on Redis); the rest wait for the next pass."""


def apply_due(referee: Referee, match_id: str, seen_ms: int) -> None:
    """Apply what is due on one match of the index (its entry said ``seen_ms``), start its
    house turn if one is due and nobody here plays it, and write its next due time."""
    try:
        match, game = referee.current(match_id)
    except NotFound:
        referee.store.reschedule(match_id, seen_ms, None)
        return
    snapshot = Snapshot.of_match(game, match)
    referee.house.start(match, snapshot)
    referee.store.reschedule(match_id, seen_ms, referee.next_due_ms(match, game))


class Sweeper:
    """One process's sweeper: a daemon thread (a greenlet under gevent) that sweeps every
    ``interval`` seconds until stopped."""

    def __init__(
        self,
        referee: Referee,
        interval: float = DEFAULT_INTERVAL_SECONDS,
        challenges: Challenges | None = None,
        ladders: Ladders | None = None,
    ) -> None:
        self.referee = referee
        self.interval = interval
        self.challenges = challenges
        self.ladders = ladders
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def sweep_once(self) -> int:
        """One pass over the due index; how many due matches it looked at."""
        due = self.referee.store.due(self.referee.now_ms(), BATCH)
        for match_id, seen_ms in due:
            try:
                apply_due(self.referee, match_id, seen_ms)
            except Exception:
                log.exception("sweeping match %s failed", match_id)
        return len(due) + self._expire_challenges() + self._pair()

    def _pair(self) -> int:
        """One pass of the ladders' pairing loop (it pairs only on the node holding the lease);
        how many matches it created."""
        if self.ladders is None:
            return 0
        try:
            return self.ladders.tick()
        except Exception:
            log.exception("pairing the ladders failed")
            return 0

    def _expire_challenges(self) -> int:
        """Expire the challenges whose time is up; how many were due."""
        if self.challenges is None:
            return 0
        due = self.challenges.store.due_challenges(self.challenges.now_ms(), BATCH)
        for challenge_id in due:
            try:
                self.challenges.expire(challenge_id)
            except Exception:
                log.exception("expiring challenge %s failed", challenge_id)
        return len(due)

    def run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.sweep_once()
            except Exception:
                log.exception("sweeping the due index failed")

    def start(self) -> None:
        """Start sweeping in the background (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, daemon=True, name="referee-sweeper")
            self._thread.start()
            log.info("sweeper started (every %.2f s)", self.interval)

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
