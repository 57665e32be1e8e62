"""The store interface: matches as opaque records with a version, an action log and
idempotency records. Nothing here knows about games.

A record is bytes (the referee's JSON). A move commits with one atomic compare-and-set on the
version that also appends the log entry and, when asked, keeps the answer under an
idempotency key — all or nothing, so a crash leaves the old state or the new one, never a mix.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class StoreUnavailable(Exception):
    """The store cannot be reached now; the request may be retried later."""


@dataclass(frozen=True)
class Loaded:
    """A match as loaded: its version, its record, and any answer kept under the
    idempotency key the caller asked about."""

    version: int
    record: bytes
    replay: bytes | None = None


@dataclass(frozen=True)
class CommitResult:
    """``committed`` is false when the version had moved on; ``version`` is the version
    the match has now (the new one after a commit)."""

    committed: bool
    version: int


class MatchStore(Protocol):
    """What the referee needs from a store; see :mod:`service.store.redis_store` and
    :mod:`service.store.memory` for the two implementations."""

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        """Store a new match at version 0; false if the id is taken."""

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        """The match (and the answer kept under ``idempotency_key``), or ``None``."""

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency: tuple[str, bytes] | None = None,
    ) -> CommitResult:
        """Write ``record`` as version ``expected_version + 1`` if the match is still at
        ``expected_version``, append ``log_entry``, keep ``idempotency`` (key, answer) and
        refresh every key's time to live — atomically."""

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop - 1`` (0-based, oldest first)."""

    def history_length(self, match_id: str) -> int:
        """How many log entries the match has."""

    def ping(self) -> None:
        """Return if the store answers; raise :class:`StoreUnavailable` if not."""
