"""Matches kept as the objects a process committed, so that its next move of one skips the decode.

Every move starts from the match's record (from the record cache or the store) and decodes it:
inflates it against its base record, parses the JSON, builds the match. That is about a
tenth of a move's CPU, yet the process that committed the match's last move already holds
the very object it encoded. With a seat's socket, or a bot's kept connection, the next move
of the match comes to that same process. So the referee keeps, per recently committed match,
the object it committed under the record's version and identity (:mod:`service.store.base`),
and a move whose record has that identity takes the object instead of decoding the record.

The record still decides: an object is only taken for a record the move found anyway, with
the same identity, which every write makes new. After the store lost writes (a restarted
Redis, a failover), or after another process moved the match, the record's identity is
another one and the record is decoded as before.

An object serves one request at a time. Taking it removes it, since a move changes the match
in place; the request that committed it gives it back only once its answer, which may share
parts of the state, has been written. A request that takes it and commits nothing (a
refusal, a lost compare-and-set, an answer given again) drops it: the next move decodes.
A record written before identities has none (``b""``), which names no one record: it is
never kept. The least recently kept object goes when the cache is full; capacity 0 keeps
nothing.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class DecodedMatches(Generic[T]):
    """A bounded LRU map ``match_id -> (version, identity, object)``, safe to share between
    threads and greenlets."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[int, bytes, T]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def take(self, match_id: str, version: int, identity: bytes) -> T | None:
        """The object kept for ``match_id`` if it is the record at ``version`` with
        ``identity``, removed from the cache; ``None`` otherwise (and a kept object of another
        record is dropped: it can never be taken again)."""
        if not self._entries:
            return None
        with self._lock:
            entry = self._entries.pop(match_id, None)
        if entry is None or entry[0] != version or entry[1] != identity:  # keep stores no b""
            return None
        return entry[2]

    def keep(self, match_id: str, version: int, identity: bytes, match: T) -> None:
        """Keep ``match``, the object of the record at ``version`` with ``identity``, for the
        next request of the match; ``match`` must not be used by its giver afterwards."""
        if self.capacity <= 0 or not identity:
            return
        with self._lock:
            self._entries[match_id] = (version, identity, match)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
