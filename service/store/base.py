"""The store interface: matches as opaque records with a version, an action log and
idempotency keys. Nothing here knows about games.

A record is bytes (the referee's JSON). A move commits with one atomic compare-and-set on the
version that also appends the log entry and, when asked, remembers which version an
idempotency key produced — all or nothing, so a crash leaves the old state or the new one,
never a mix. The log always has exactly ``version`` entries: a store that finds otherwise
(keys evicted by Redis) raises :class:`MatchDamaged` instead of serving the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class StoreUnavailable(Exception):
    """The store cannot take the request now (unreachable, out of memory, read-only);
    the request may be retried later."""


class MatchDamaged(Exception):
    """The match's record and log disagree (part of it was deleted behind the referee's
    back); it must not be served or continued."""


class StoreMisconfigured(Exception):
    """The store is set up in a way that would lose matches; raised at start."""


@dataclass(frozen=True)
class Loaded:
    """A match as loaded: its version, its record, and the version that the idempotency
    key the caller asked about produced (``None`` if the key is new)."""

    version: int
    record: bytes
    idempotent_version: int | None = None


@dataclass(frozen=True)
class CommitResult:
    """``committed`` is false when the version had moved on; ``version`` is the version
    the match has now (the new one after a commit, -1 when the match does not exist)."""

    committed: bool
    version: int


class MatchStore(Protocol):
    """What the referee needs from a store; see :mod:`service.store.redis_store`,
    :mod:`service.store.file` and :mod:`service.store.memory` for the implementations."""

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        """Store a new match at version 0; false if the id is taken."""

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        """The match (and the version ``idempotency_key`` produced), or ``None``."""

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        """Write ``record`` as version ``expected_version + 1`` if the match is still at
        ``expected_version``, append ``log_entry``, remember that ``idempotency_key``
        produced the new version, and refresh the whole match's time to live —
        atomically."""

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop - 1`` (0-based, oldest first); entry ``i`` is
        the move that produced version ``i + 1``."""

    def history_length(self, match_id: str) -> int:
        """How many log entries the match has."""

    def ping(self) -> None:
        """Return if the store can take writes now; raise :class:`StoreUnavailable` if not."""
