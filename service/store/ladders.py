"""The ladders store: versioned documents and leases, beside the accounts in the same backend
(memory, the SQLite file, Redis or a Redis Cluster).

A ladder is kept as a few documents (:mod:`service.ladders`), each a record with a version:
:meth:`LadderStore.put` writes the next version only if the document is still at the version
the writer read, so two nodes that change one ladder at once never both win, and a writer that
lost reads again and decides again. Nothing here knows what a document holds.

A *lease* names one holder of a role across every node (the pairing loop): whoever holds it
renews it before it lapses; once it has lapsed anyone may take it. The holder's clock is not
trusted across nodes: each call passes the time the caller judges by (on Redis, the store's
own clock through :class:`service.clock.StoreClock`).

A *queue* holds what many writers hand to one reader (the ends of a ladder's matches, which
the pairing loop applies): pushing never conflicts, so a thousand matches ending at once never
contend for the ladder document. An item stays until its reader removes it by id, after it
has been applied: a reader that dies before removing leaves it for the next, so readers apply
items idempotently.
"""

from __future__ import annotations

from typing import Protocol


class LadderStore(Protocol):
    """What :mod:`service.ladders` needs from a store."""

    def get(self, key: str) -> tuple[int, bytes] | None:
        """The document's version (1 and up) and body, or ``None``."""

    def put(self, key: str, expected_version: int, body: bytes) -> bool:
        """Write ``body`` as version ``expected_version + 1`` if the document is at
        ``expected_version`` now (0: it does not exist yet); whether it was written."""

    def keys(self, prefix: str) -> list[str]:
        """Every document key that starts with ``prefix``, sorted."""

    def hold_lease(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        """Take or renew the lease ``name`` for ``holder`` until ``until_ms`` if it is free,
        lapsed at ``now_ms``, or ``holder``'s already; whether ``holder`` holds it now."""

    def lease_holder(self, name: str, now_ms: int) -> str | None:
        """Who holds the lease ``name`` at ``now_ms``, if anyone."""

    def push(self, queue: str, item: bytes) -> None:
        """Append ``item`` to ``queue``."""

    def queued(self, queue: str, count: int) -> list[tuple[str, bytes]]:
        """The first ``count`` items of ``queue``, oldest first, each with its id."""

    def unqueue(self, queue: str, ids: list[str]) -> None:
        """Remove these items (ids already gone are ignored)."""
