"""The store interface: matches as opaque records with a version, an action log and
idempotency keys. Nothing here knows about games.

A record is bytes (the referee's, :mod:`service.codec`), and so is the match's *base record*,
which the record may be a delta against: the referee writes the base only now and then, and
every load answers both. A move commits with one atomic compare-and-set on the
version that also appends the log entry and, when asked, remembers which version an
idempotency key produced — all or nothing, so a crash leaves the old state or the new one,
never a mix. A refused commit answers what a load would have, in the same round trip: the
referee may commit on a cached record without reading first (:mod:`service.cache.process`),
and re-checks the move on the current record when the cache was behind.

Every record a create or commit writes gets an *identity*: :data:`IDENTITY_BYTES` random
bytes, new with each write, kept beside the version and answered with the record by every
load and refused commit (:attr:`Loaded.identity`). A version number alone does not name a
record: a store that loses acknowledged writes (Redis restarted from an older snapshot, a
failover to a replica that had not received them) goes back to an earlier version, and the
match's next moves write new records under the numbers the lost ones had. The identity tells
them apart. A commit given the identity of the record it was made from
(``expected_identity``) succeeds only if the store still holds that very record, so a record
a cache kept from a lost branch can never be built on: the commit is refused and answers the
record the store does hold. A record written before identities has none (``b""``), and a
commit naming none succeeds on it, so matches in progress across the upgrade go on; their
next commit writes one.

The log always has exactly ``version`` entries: a store that finds otherwise
(keys evicted by Redis) raises :class:`MatchDamaged` instead of serving the match.

Each store also keeps a listing index (``GET /v1/matches``): what :class:`Listed` says of a
match (its game, status and last update), written with the create or commit it describes, in
the same transaction or round trip. The index only finds matches; the referee reads each
one's record to build what it answers, so an index entry may be a stale hint (on Redis, where
it cannot share the match's slot) but never a wrong answer.

Beside the matches each store keeps a *due index*: when the referee must next act on a match
by itself (a clock's deadline, a house seat's turn), written with the create or commit that
changes it. The sweeper (:mod:`service.live.sweeper`) reads it. It is a hint, never the truth: the
sweeper loads the match and applies what is due through the compare-and-set, and a store may
keep an entry earlier than the match's real due time (Redis does, see its module), never
later.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from typing import Protocol

IDENTITY_BYTES = 8
"""The length of a record's identity: 64 random bits, so two writes of one match's version
never share one."""


_IDENTITIES = random.Random()
os.register_at_fork(after_in_child=_IDENTITIES.seed)


def new_identity() -> bytes:
    """A fresh identity for a record being written. It tells records apart and guards no
    secret, so a generator seeded from the system's randomness (and seeded afresh in every
    forked child, so that workers never share a sequence) serves, sparing the system call
    ``os.urandom`` makes on every move."""
    return _IDENTITIES.randbytes(IDENTITY_BYTES)


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
    """A match as loaded: its version, its record, the version that the idempotency
    key the caller asked about produced (``None`` if the key is new), its base record
    (``None`` until a commit wrote one) and the record's identity (``b""`` for a record
    written before identities), which a commit made from this record passes back."""

    version: int
    record: bytes
    idempotent_version: int | None = None
    base: bytes | None = None
    identity: bytes = b""


@dataclass(frozen=True)
class CommitResult:
    """``committed`` is false when the store no longer held the record the commit was made
    from (the version had moved on, or another record holds it) or the idempotency key was
    already used; ``version`` is the version the match has now (the new one after a commit,
    -1 when the match does not exist). A committed record's identity is ``identity``. A
    refused commit of an existing match carries the match as :meth:`MatchStore.load` would
    have returned it for the same key (``current``), so the caller re-checks its move
    without another read."""

    committed: bool
    version: int
    current: Loaded | None = None
    identity: bytes = b""
    mistimed: bool = False
    """Refused because the store's clock says the commit comes too early or too late
    (:class:`Timing`); the match is unchanged, at ``version``."""
    store_ms: int | None = None
    """The store's clock (epoch ms) when it judged the commit's :class:`Timing`."""


@dataclass(frozen=True)
class Timing:
    """When a commit may happen, by the store's own clock (epoch ms): not before
    ``not_before_ms`` (a timeout is applied at or after its deadline), and before
    ``before_ms`` (a move decided while its seat's clock still ran must reach the store before
    that clock runs out). ``None``: no bound."""

    not_before_ms: int | None = None
    before_ms: int | None = None


@dataclass(frozen=True)
class Listed:
    """What the listing index keeps of a match: enough to filter and order without reading
    the record. ``updated_ms`` is the match's last update, in epoch milliseconds."""

    game: str
    status: str
    updated_ms: int


@dataclass(frozen=True, order=True)
class ListPosition:
    """A place in the listing, which runs from the most recently updated match down, ties
    broken by match id (also descending); a page continues strictly after it."""

    updated_ms: int
    match_id: str


@dataclass(frozen=True)
class ListFilter:
    """Which matches to list: of one game and/or one status (``None``: any), updated at
    ``since_ms`` or later (older entries have left the listing)."""

    game: str | None
    status: str | None
    since_ms: int


@dataclass(frozen=True)
class ListedMatch:
    """One listing entry with the match's current record (and base record, as
    :class:`Loaded`), to build its summary from."""

    position: ListPosition
    version: int
    record: bytes
    base: bytes | None = None


class MatchStore(Protocol):
    """What the referee needs from a store; see :mod:`service.store.redis_store`,
    :mod:`service.store.file` and :mod:`service.store.memory` for the implementations."""

    def create(
        self, match_id: str, record: bytes, ttl: int, listed: Listed | None = None, due_ms: int | None = None
    ) -> bytes | None:
        """Store a new match at version 0 (and its listing entry, if given; due at ``due_ms``):
        the record's identity, or ``None`` if the id is taken."""

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
        base: bytes | None = None,
        listed: Listed | None = None,
        due_ms: int | None = None,
        expected_identity: bytes | None = None,
        timing: Timing | None = None,
    ) -> CommitResult:
        """Write ``record`` as version ``expected_version + 1``, with a new identity, if the
        match is still at ``expected_version`` and the record there has ``expected_identity``
        and ``idempotency_key`` (if any) produced no earlier version; append ``log_entry``,
        remember that ``idempotency_key`` produced the new version, replace the base record
        with ``base`` if given, put ``listed`` in the listing index, and refresh the whole
        match's time to live — atomically (the index entry is a hint beside it on Redis).
        Otherwise change nothing and answer the match as it is (:attr:`CommitResult.current`,
        with its base and identity).

        ``expected_identity`` is the :attr:`Loaded.identity` of the record the new one was
        made from: a caller that holds a record passes it (the referee always does).
        ``None`` compares the version only, for callers that hold none (tools, tests).

        On success, also note in the due index that the new version is due at ``due_ms``
        (``None``: never), in the same round trip.

        ``timing`` is judged by the store's own clock in the same step: a commit outside it
        changes nothing and is refused (:attr:`CommitResult.mistimed`, with the store's time),
        so that every node's decisions about deadlines are judged by one clock. Only Redis
        judges it: the embedded stores run in the referee's own process, whose clock is theirs
        (docs/clocks.md), and take it as already judged.

        :raises MatchDamaged: the log does not have one entry per version."""

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop - 1`` (0-based, oldest first); entry ``i`` is
        the move that produced version ``i + 1``."""

    def history_length(self, match_id: str) -> int:
        """How many log entries the match has."""

    def list_matches(
        self, which: ListFilter, after: ListPosition | None, count: int
    ) -> tuple[list[ListedMatch], ListPosition | None]:
        """Up to ``count`` listing entries after ``after`` (newest first) with their
        records, and the position to continue from (``None``: nothing older is listed).
        Fewer than ``count`` entries with a position means some entries were skipped
        (matches that expired): ask again from there."""

    def ping(self) -> None:
        """Return if the store can take writes now; raise :class:`StoreUnavailable` if not."""

    def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        """Up to ``limit`` ``(match_id, due_ms)`` of the due index with ``due_ms <= now_ms``,
        earliest first (per shard, on Redis)."""

    def reschedule(self, match_id: str, seen_ms: int, due_ms: int | None) -> None:
        """Set the match's due time to ``due_ms`` (``None``: drop it), unless it changed
        from ``seen_ms`` since the sweeper read it (a commit wrote a newer one)."""
