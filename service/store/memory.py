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

from service.store.base import (
    CommitResult,
    Listed,
    ListedMatch,
    ListFilter,
    ListPosition,
    Loaded,
    Timing,
    new_identity,
)


@dataclass
class _Match:
    version: int
    record: bytes
    expires_at: float
    log: list[bytes] = field(default_factory=list)
    idempotency: dict[str, int] = field(default_factory=dict)
    base: bytes | None = None
    listed: Listed | None = None
    identity: bytes = b""

    def loaded(self, produced: int | None = None) -> Loaded:
        return Loaded(self.version, self.record, produced, self.base, self.identity)


class MemoryStore:
    """Matches in a dict; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._matches: dict[str, _Match] = {}
        self._due: dict[str, int] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, int], None]] = []

    def on_commit(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(match_id, version)`` after each commit (:mod:`service.live.feeds`)."""
        self._listeners.append(listener)

    def _set_due(self, match_id: str, due_ms: int | None) -> None:
        if due_ms is None:
            self._due.pop(match_id, None)
        else:
            self._due[match_id] = due_ms

    def _live(self, match_id: str) -> _Match | None:
        match = self._matches.get(match_id)
        if match is not None and match.expires_at <= self._clock():
            del self._matches[match_id]
            return None
        return match

    def create(
        self, match_id: str, record: bytes, ttl: int, listed: Listed | None = None, due_ms: int | None = None
    ) -> bytes | None:
        with self._lock:
            if self._live(match_id) is not None:
                return None
            identity = new_identity()
            self._matches[match_id] = _Match(0, record, self._clock() + ttl, listed=listed, identity=identity)
            self._set_due(match_id, due_ms)
            return identity

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        with self._lock:
            match = self._live(match_id)
            if match is None:
                return None
            return match.loaded(match.idempotency.get(idempotency_key) if idempotency_key else None)

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
        base: bytes | None = None,
        listed: Listed | None = None,
        due_ms: int | None = None,
        expected_identity: bytes | None = None,
        timing: Timing | None = None,  # the referee's clock is this process's: already judged
    ) -> CommitResult:
        with self._lock:
            match = self._live(match_id)
            if match is None:
                return CommitResult(False, -1)
            produced = match.idempotency.get(idempotency_key) if idempotency_key else None
            if (
                match.version != expected_version
                or (expected_identity is not None and match.identity != expected_identity)
                or produced is not None
            ):
                return CommitResult(False, match.version, match.loaded(produced))
            match.version += 1
            match.record = record
            match.identity = new_identity()
            if base is not None:
                match.base = base
            match.log.append(log_entry)
            match.expires_at = self._clock() + ttl
            if idempotency_key:
                match.idempotency[idempotency_key] = match.version
            if listed is not None:
                match.listed = listed
            self._set_due(match_id, due_ms)
            new_version, identity = match.version, match.identity
        for listener in self._listeners:
            listener(match_id, new_version)
        return CommitResult(True, new_version, identity=identity)

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        with self._lock:
            match = self._live(match_id)
            return list(match.log[start:stop]) if match else []

    def history_length(self, match_id: str) -> int:
        with self._lock:
            match = self._live(match_id)
            return len(match.log) if match else 0

    def list_matches(
        self, which: ListFilter, after: ListPosition | None, count: int
    ) -> tuple[list[ListedMatch], ListPosition | None]:
        with self._lock:
            entries = sorted(
                (
                    ListedMatch(ListPosition(m.listed.updated_ms, match_id), m.version, m.record, m.base)
                    for match_id in list(self._matches)
                    if (m := self._live(match_id)) is not None
                    and m.listed is not None
                    and _passes(m.listed, which)
                    and (after is None or ListPosition(m.listed.updated_ms, match_id) < after)
                ),
                key=lambda entry: entry.position,
                reverse=True,
            )
        page = entries[:count]
        return page, page[-1].position if len(entries) > count else None

    def ping(self) -> None:
        """The embedded store is always reachable."""

    def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        with self._lock:
            return sorted(((m, t) for m, t in self._due.items() if t <= now_ms), key=lambda item: item[1])[:limit]

    def reschedule(self, match_id: str, seen_ms: int, due_ms: int | None) -> None:
        with self._lock:
            if self._due.get(match_id) == seen_ms:
                self._set_due(match_id, due_ms if self._live(match_id) is not None else None)


def _passes(listed: Listed, which: ListFilter) -> bool:
    return (
        listed.updated_ms >= which.since_ms
        and which.game in (None, listed.game)
        and which.status in (None, listed.status)
    )
