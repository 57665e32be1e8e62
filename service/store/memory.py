"""The in-memory store: the same semantics as Redis in one process, for tests
(``REFEREE_STORE=memory``).

A dict behind one lock: each operation is atomic, as each Lua script is in Redis. It holds
one copy per process and loses everything when the process ends: the embedded default of
``referee serve`` is the SQLite file store (:mod:`service.store.file`). Expiry is checked
lazily on access with a monotonic clock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from service.store.base import CommitResult, Loaded


@dataclass
class _Match:
    version: int
    record: bytes
    expires_at: float
    log: list[bytes] = field(default_factory=list)
    idempotency: dict[str, int] = field(default_factory=dict)


class MemoryStore:
    """Matches in a dict; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._matches: dict[str, _Match] = {}
        self._lock = threading.Lock()

    def _live(self, match_id: str) -> _Match | None:
        match = self._matches.get(match_id)
        if match is not None and match.expires_at <= self._clock():
            del self._matches[match_id]
            return None
        return match

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        with self._lock:
            if self._live(match_id) is not None:
                return False
            self._matches[match_id] = _Match(0, record, self._clock() + ttl)
            return True

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        with self._lock:
            match = self._live(match_id)
            if match is None:
                return None
            produced = match.idempotency.get(idempotency_key) if idempotency_key else None
            return Loaded(match.version, match.record, produced)

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        with self._lock:
            match = self._live(match_id)
            if match is None:
                return CommitResult(False, -1)
            if match.version != expected_version:
                return CommitResult(False, match.version)
            match.version += 1
            match.record = record
            match.log.append(log_entry)
            match.expires_at = self._clock() + ttl
            if idempotency_key:
                match.idempotency[idempotency_key] = match.version
            return CommitResult(True, match.version)

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        with self._lock:
            match = self._live(match_id)
            return list(match.log[start:stop]) if match else []

    def history_length(self, match_id: str) -> int:
        with self._lock:
            match = self._live(match_id)
            return len(match.log) if match else 0

    def ping(self) -> None:
        """The embedded store is always reachable."""
