"""The match cache shared by every worker process of one node (one server).

A server's workers take a match's moves in turn: a client that opens a connection per
request lands on any of them. With a cache per process, a move then finds the match's last
record only when the same worker answered the move before (about one move in two with two
workers), and every other move reads the match first: two round trips instead of one. So the
cache is kept per node, as :mod:`service.cache.process` describes it: the server's master maps
one anonymous shared memory table before it forks its workers, and every worker reads every
record any of them committed.

The table is split into regions, twice as many as the server's workers, so that a worker
restarted beside a living one finds a free region. A worker writes only its own
region, so writers never race one another. Each region is a two-way table of fixed-size
slots: a match may live in either of two slots chosen by the CRC of its id, and a new match
takes the one written least recently, so two active matches that share one choice both stay.
A lookup reads the match's two slots in every region and takes, of those holding the asked
version, the one written last.

Readers take no lock (a seqlock): a writer makes the slot's sequence number odd, writes, and
makes it even again; a reader copies the slot and uses it only if the sequence number was
even and unchanged across the copy, and if the slot's CRC-32 matches what it copied. A
worker killed halfway through a write leaves an odd number: the slot reads as empty until
its region's next owner writes it. An entry is a hint like any other (the compare-and-set
decides); these checks exist so that it is always a record the store really committed at
that version, never a torn mix of two.

Each entry keeps the record's identity (:mod:`service.store.base`), which the commit made
from it passes back: a record of a branch the store lost (a Redis restarted from an older
snapshot, a failover) is refused by the compare-and-set even when the match has come back to
its version number. And the node takes the store's word over its own: a worker writes every
record the store answers it (loaded, committed, or answered by a refused commit) whatever
version its region held, and a lookup takes the most recently written of the records at the
asked version, so once a worker has heard the store's record no worker of the node tries a
lost one again.

A record too big for a slot (game data far over the compact encoding's size) is not kept;
its moves read first, as before.
"""

from __future__ import annotations

import mmap
import struct
import threading
import time
import zlib

from service.store import IDENTITY_BYTES, Loaded

#: Slot header: sequence number, version, when it was written (the machine's monotonic
#: clock, ns), record length, base length (``NO_BASE`` when none), CRC-32 of the rest, match
#: id length, match id (new ids are 22 characters), identity length, the record's identity.
_HEADER = struct.Struct(f"<QqQIIIB27sB{IDENTITY_BYTES}s")
_HEADER_BYTES = 80
_SEQ = struct.Struct("<Q")
#: The header's first three fields (sequence number, version, when written), what a lookup
#: probes first.
_PROBE = struct.Struct("<QqQ")
_NO_BASE = 0xFFFFFFFF
_MAX_ID = 27

SLOT_BYTES = 4096
"""Room per match: a compact base record is 350–950 bytes and the delta beside it at most 256."""


class NodeTable:
    """The shared memory of one node's cache: ``regions`` regions of ``slots`` slots."""

    def __init__(self, regions: int, slots: int, slot_bytes: int = SLOT_BYTES) -> None:
        self.regions = regions
        self.slots = slots
        self.slot_bytes = slot_bytes
        self.region_bytes = slots * slot_bytes
        # Anonymous and shared: inherited by every process forked after this, gone with them.
        self.memory = mmap.mmap(-1, regions * self.region_bytes, flags=mmap.MAP_SHARED)

    def free_region(self, taken: set[int]) -> int | None:
        """A region no living worker holds (``taken``), or None when all are."""
        return next((r for r in range(self.regions) if r not in taken), None)

    def offset(self, region: int, slot: int) -> int:
        return region * self.region_bytes + slot * self.slot_bytes


_table: NodeTable | None = None
_region: int | None = None


def share_across_workers(workers: int, slots: int) -> None:
    """Map the node's table (in the server's master, before any worker forks); nothing to
    share with one worker or with the cache turned off."""
    global _table
    _table = NodeTable(2 * workers, slots) if workers > 1 and slots > 0 else None


def region_for_new_worker(taken: set[int]) -> int | None:
    """The region the next worker is to own (in the master: no race between forks)."""
    return None if _table is None else _table.free_region(taken)


def enter_worker(region: int | None) -> None:
    """In a newly forked worker: own ``region`` of the table (None: keep a private cache)."""
    global _region
    _region = region


def this_workers_cache() -> NodeCache | None:
    """The node cache as this worker sees it, or None outside a server that shares one."""
    if _table is None or _region is None:
        return None
    return NodeCache(_table, _region)


class NodeCache:
    """:class:`service.cache.process.MatchCache`'s interface over the node's shared table: this
    worker writes its region and reads all of them."""

    def __init__(self, table: NodeTable, region: int) -> None:
        self.table = table
        self.region = region
        self._write_lock = threading.Lock()  # for threaded servers; greenlets never interleave here

    def _slots(self, match_id: str) -> tuple[int, int]:
        """The two slots ``match_id`` may live in (one when the table has a single slot)."""
        slots = self.table.slots
        h = zlib.crc32(match_id.encode())
        first = h % slots
        if slots == 1:
            return first, first
        return first, (first + 1 + (h >> 16) % (slots - 1)) % slots

    def record(self, match_id: str, version: int) -> Loaded | None:
        """The record of ``match_id`` at ``version`` that a worker of this node wrote last,
        if one kept it.

        Each candidate slot's sequence number, version and time of writing are probed
        first: most slots hold another match or another version, and are passed over
        without unpacking the rest of their header; the others are read newest first."""
        ident = match_id.encode()
        memory = self.table.memory
        slots = self._slots(match_id)
        candidates = []
        for region in range(self.table.regions):
            for slot in slots:
                offset = self.table.offset(region, slot)
                seq, stored_version, written = _PROBE.unpack_from(memory, offset)
                if stored_version == version and not seq & 1:
                    candidates.append((written, offset))
        for _, offset in sorted(candidates, reverse=True):
            found = self._read(offset, ident, version)
            if found is not None:
                return found
        return None

    def _read(self, offset: int, ident: bytes, version: int) -> Loaded | None:
        memory = self.table.memory
        seq, stored_version, _, record_len, base_len, crc, id_len, stored_id, identity_len, identity = (
            _HEADER.unpack_from(memory, offset)
        )
        if seq & 1 or stored_version != version or stored_id[:id_len] != ident or id_len != len(ident):
            return None
        size = record_len + (0 if base_len == _NO_BASE else base_len)
        if size > self.table.slot_bytes - _HEADER_BYTES or identity_len > IDENTITY_BYTES:
            return None
        start = offset + _HEADER_BYTES
        data = memory[start : start + size]
        identity = identity[:identity_len]
        if _SEQ.unpack_from(memory, offset)[0] != seq or _checksum(version, ident, identity, data) != crc:
            return None
        base = None if base_len == _NO_BASE else data[record_len:]
        return Loaded(version, data[:record_len], None, base, identity)

    def remember(self, match_id: str, loaded: Loaded) -> None:
        """Keep ``loaded`` in this worker's region as the match's latest record, whatever
        version the region held (the store's word is the truth), unless it does not fit."""
        ident = match_id.encode()
        base = loaded.base
        data = loaded.record + (base or b"")
        if (
            len(ident) > _MAX_ID
            or len(loaded.identity) > IDENTITY_BYTES
            or len(data) > self.table.slot_bytes - _HEADER_BYTES
        ):
            self.forget(match_id)
            return
        with self._write_lock:
            offset, seq = self._slot_to_write(ident, self._slots(match_id))
            base_len = _NO_BASE if base is None else len(base)
            header = (
                loaded.version,
                time.monotonic_ns(),
                len(loaded.record),
                base_len,
                _checksum(loaded.version, ident, loaded.identity, data),
                len(ident),
                ident,
                len(loaded.identity),
                loaded.identity,
            )
            self._publish(offset, seq, header, data)

    def _slot_to_write(self, ident: bytes, slots: tuple[int, int]) -> tuple[int, int]:
        """In this worker's region, the slot that holds the match already, else the one
        written least recently (a slot left mid-write counts as empty): its offset and its
        sequence number."""
        candidates = []
        for slot in slots:
            offset = self.table.offset(self.region, slot)
            seq, _, stamp, _, _, _, id_len, stored_id, _, _ = _HEADER.unpack_from(self.table.memory, offset)
            if id_len and stored_id[:id_len] == ident:
                return offset, seq
            candidates.append((0 if seq & 1 or not id_len else stamp + 1, offset, seq))
        _, offset, seq = min(candidates)
        return offset, seq

    def _publish(self, offset: int, seq: int, header: tuple, data: bytes = b"") -> None:
        """Write a slot of this worker's region under its sequence number: odd while the
        header and ``data`` are written, even again once they are whole."""
        memory = self.table.memory
        _SEQ.pack_into(memory, offset, seq + 1)
        start = offset + _HEADER_BYTES
        memory[start : start + len(data)] = data
        _HEADER.pack_into(memory, offset, seq + 1, *header)
        _SEQ.pack_into(memory, offset, seq + 2)

    def forget(self, match_id: str) -> None:
        """Drop the match's entry from this worker's region (entries other workers keep are
        records the store committed: hints as good as any)."""
        ident = match_id.encode()
        with self._write_lock:
            for slot in set(self._slots(match_id)):
                offset = self.table.offset(self.region, slot)
                seq, _, _, _, _, _, id_len, stored_id, _, _ = _HEADER.unpack_from(self.table.memory, offset)
                if id_len and stored_id[:id_len] == ident:
                    self._publish(offset, seq, (-1, 0, 0, _NO_BASE, 0, 0, b"", 0, b""))


def _checksum(version: int, ident: bytes, identity: bytes, data: bytes) -> int:
    return zlib.crc32(data, zlib.crc32(identity, zlib.crc32(ident, version & 0xFFFFFFFF)))
