"""The node's match cache: one shared table, a region per worker, read without locks.

Two :class:`NodeCache` views over one :class:`NodeTable` stand for two workers; the tests that
fork show the table really is shared between processes, and that a reader racing a writer
gets either a whole record of the version it asked for or nothing.
"""

from __future__ import annotations

import multiprocessing
import struct

import pytest

from service.cache.node import _HEADER, _HEADER_BYTES, NodeCache, NodeTable
from service.store import IDENTITY_BYTES, Loaded


def workers(regions: int = 2, slots: int = 8, slot_bytes: int = 512) -> list[NodeCache]:
    table = NodeTable(regions, slots, slot_bytes)
    return [NodeCache(table, region) for region in range(regions)]


def test_a_record_one_worker_keeps_is_found_by_the_other_at_its_version_only() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(3, b"record-3", None, b"base"))
    found = second.record("match-a", 3)
    assert found == Loaded(3, b"record-3", None, b"base")
    assert second.record("match-a", 2) is None and second.record("match-a", 4) is None
    assert second.record("match-b", 3) is None


def test_no_base_and_an_empty_base_stay_apart() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(1, b"r"))
    first.remember("match-b", Loaded(1, b"r", None, b""))
    assert second.record("match-a", 1).base is None
    assert second.record("match-b", 1).base == b""


def test_the_newest_version_any_worker_kept_is_found() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(5, b"five"))
    second.remember("match-a", Loaded(6, b"six"))  # the other worker moved the match on
    assert first.record("match-a", 6).record == b"six"
    assert first.record("match-a", 5).record == b"five"  # still a true record of version 5


def test_the_record_and_its_identity_are_found_together() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(3, b"record-3", None, b"base", b"identity"))
    assert second.record("match-a", 3) == Loaded(3, b"record-3", None, b"base", b"identity")
    first.remember("match-b", Loaded(1, b"r"))  # written before identities
    assert second.record("match-b", 1).identity == b""


def test_the_stores_record_replaces_the_entry_whatever_version_it_had() -> None:
    """A store that lost writes answers an older version than the one kept: the store's
    record is the truth, so it replaces the entry."""
    first, second = workers()
    first.remember("match-a", Loaded(6, b"six of a lost branch", None, None, b"lost-six"))
    first.remember("match-a", Loaded(4, b"four", None, None, b"held-4"))
    assert second.record("match-a", 6) is None
    assert second.record("match-a", 4) == Loaded(4, b"four", None, None, b"held-4")


def test_of_two_records_at_the_asked_version_the_one_written_last_is_found() -> None:
    """One worker kept a record the store then lost, another has since heard the record the
    store holds at that version number: every worker of the node takes the latter."""
    first, second = workers()
    first.remember("match-a", Loaded(5, b"five, lost", None, None, b"lost-5.."))
    second.remember("match-a", Loaded(5, b"five, held", None, None, b"held-5.."))
    assert first.record("match-a", 5).record == second.record("match-a", 5).record == b"five, held"
    first.remember("match-a", Loaded(5, b"five, held", None, None, b"held-5.."))
    second.forget("match-a")
    assert second.record("match-a", 5).identity == b"held-5.."


def test_an_identity_longer_than_a_slot_holds_is_not_kept() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(1, b"r", None, None, b"i"))
    first.remember("match-a", Loaded(2, b"r", None, None, b"i" * (IDENTITY_BYTES + 1)))
    assert second.record("match-a", 1) is None and second.record("match-a", 2) is None


def test_forget_drops_this_workers_entry_and_a_newer_record_is_kept() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(1, b"one"))
    first.remember("match-a", Loaded(4, b"four"))  # what a refused commit answered
    assert second.record("match-a", 4).record == b"four"
    first.forget("match-a")
    first.forget("never-seen")
    assert second.record("match-a", 4) is None


def test_a_record_too_big_for_a_slot_is_not_kept() -> None:
    first, second = workers(slot_bytes=256)
    first.remember("match-a", Loaded(1, b"small"))
    first.remember("match-a", Loaded(2, b"x" * 300))
    assert second.record("match-a", 2) is None and second.record("match-a", 1) is None


def test_a_slot_caught_mid_write_or_damaged_reads_as_empty() -> None:
    first, second = workers()
    first.remember("match-a", Loaded(1, b"record-one", None, None, b"identity"))
    offset, _ = first._slot_to_write(b"match-a", first._slots("match-a"))
    memory = first.table.memory
    (seq,) = struct.unpack_from("<Q", memory, offset)
    struct.pack_into("<Q", memory, offset, seq + 1)  # a writer died halfway
    assert second.record("match-a", 1) is None
    struct.pack_into("<Q", memory, offset, seq)
    assert second.record("match-a", 1).record == b"record-one"
    memory[offset + _HEADER_BYTES] ^= 0xFF  # one byte of the record changed: the checksum refuses it
    assert second.record("match-a", 1) is None
    memory[offset + _HEADER_BYTES] ^= 0xFF
    memory[offset + _HEADER.size - 1] ^= 0xFF  # the last byte of the identity: refused as well
    assert second.record("match-a", 1) is None


def test_matches_of_one_slot_replace_each_other_and_never_answer_for_one_another() -> None:
    first, second = workers(slots=1)
    first.remember("match-a", Loaded(1, b"a"))
    first.remember("match-b", Loaded(1, b"b"))
    assert second.record("match-a", 1) is None and second.record("match-b", 1).record == b"b"


def test_two_matches_that_share_a_slot_both_stay_and_a_third_replaces_the_least_recent() -> None:
    """With two slots every match may live in either: two matches both stay, whatever their
    ids; a third takes the slot written least recently."""
    first, second = workers(slots=2)
    first.remember("match-a", Loaded(1, b"a1"))
    first.remember("match-b", Loaded(1, b"b1"))
    assert second.record("match-a", 1).record == b"a1" and second.record("match-b", 1).record == b"b1"
    first.remember("match-a", Loaded(2, b"a2"))  # match-a moves on: match-b is now the older
    first.remember("match-c", Loaded(1, b"c1"))
    assert second.record("match-b", 1) is None
    assert second.record("match-a", 2).record == b"a2" and second.record("match-c", 1).record == b"c1"


def test_a_match_id_longer_than_a_slot_holds_is_not_kept() -> None:
    first, second = workers()
    long_id = "m" * 40
    first.remember(long_id, Loaded(1, b"r"))
    assert second.record(long_id, 1) is None


def _keep_versions(table: NodeTable, versions: int) -> None:
    cache = NodeCache(table, 1)
    for version in range(1, versions + 1):
        cache.remember("match-a", Loaded(version, b"%d" % version * (version % 50 + 1), None, b"b%d" % version))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_forked_worker_shares_the_table_and_a_racing_reader_never_sees_a_torn_record() -> None:
    """The child keeps versions 1..N of one match as fast as it can while this process reads
    whatever version it last saw: every hit is exactly the record and base of that version."""
    table = NodeTable(2, 4, 512)
    reader = NodeCache(table, 0)
    child = multiprocessing.get_context("fork").Process(target=_keep_versions, args=(table, 20_000))
    child.start()
    hits = 0
    while child.is_alive() or hits == 0:
        for version in range(1, 20_001, 97):
            found = reader.record("match-a", version)
            if found is not None:
                hits += 1
                assert found.record == b"%d" % version * (version % 50 + 1)
                assert found.base == b"b%d" % version
        if not child.is_alive() and hits == 0:
            break
    child.join()
    assert child.exitcode == 0
    assert reader.record("match-a", 20_000).base == b"b20000"


def test_each_new_worker_owns_a_region_no_living_worker_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    """What gunicorn's hooks do: the master picks a free region for the worker it forks,
    the worker enters it; a worker beyond the regions keeps a cache of its own."""
    from service.cache import node as node_cache

    monkeypatch.setattr(node_cache, "_table", None)
    monkeypatch.setattr(node_cache, "_region", None)
    node_cache.share_across_workers(1, 100)
    assert node_cache._table is None and node_cache.region_for_new_worker(set()) is None
    node_cache.share_across_workers(2, 100)  # four regions
    assert node_cache.region_for_new_worker(set()) == 0
    assert node_cache.region_for_new_worker({0, None}) == 1
    assert node_cache.region_for_new_worker({0, 1, 3}) == 2
    assert node_cache.region_for_new_worker({0, 1, 2, 3}) is None
    node_cache.enter_worker(None)
    assert node_cache.this_workers_cache() is None
    node_cache.enter_worker(2)
    cache = node_cache.this_workers_cache()
    assert cache is not None and cache.region == 2 and cache.table is node_cache._table
