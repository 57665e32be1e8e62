"""The match cache on its own: keyed by match and version, bounded, least recently used first."""

from __future__ import annotations

from service.cache.process import MatchCache
from service.store import Loaded


def test_a_record_is_found_only_at_its_version() -> None:
    cache = MatchCache(4)
    cache.remember("match-a", Loaded(3, b"a3"))
    assert cache.record("match-a", 3).record == b"a3"
    assert cache.record("match-a", 2) is None and cache.record("match-a", 4) is None
    assert cache.record("match-b", 3) is None
    cache.remember("match-a", Loaded(4, b"a4"))
    assert cache.record("match-a", 3) is None and cache.record("match-a", 4).record == b"a4"


def test_the_least_recently_used_match_goes_first() -> None:
    cache = MatchCache(2)
    cache.remember("match-a", Loaded(1, b"a"))
    cache.remember("match-b", Loaded(1, b"b"))
    cache.record("match-a", 1)  # a is used: b is now the oldest
    cache.remember("match-c", Loaded(1, b"c"))
    assert len(cache) == 2
    assert cache.record("match-b", 1) is None
    assert cache.record("match-a", 1).record == b"a" and cache.record("match-c", 1).record == b"c"


def test_forget_and_a_newer_record() -> None:
    cache = MatchCache(2)
    cache.remember("match-a", Loaded(1, b"a1"))
    cache.remember("match-a", Loaded(5, b"a5"))  # what a refused commit answered
    assert cache.record("match-a", 5).record == b"a5"
    cache.forget("match-a")
    cache.forget("never-seen")
    assert cache.record("match-a", 5) is None and len(cache) == 0


def test_capacity_zero_keeps_nothing() -> None:
    cache = MatchCache(0)
    cache.remember("match-a", Loaded(1, b"a"))
    assert cache.record("match-a", 1) is None and len(cache) == 0


def test_the_record_keeps_its_identity_and_the_stores_record_replaces_the_entry_whatever_its_version() -> None:
    """A store that lost writes answers an older version than the one kept: that is the
    truth, and it replaces the entry (an idempotency answer belongs to one request: dropped)."""
    cache = MatchCache(2)
    cache.remember("match-a", Loaded(6, b"six of a lost branch", None, None, b"lost-six"))
    cache.remember("match-a", Loaded(4, b"four", 3, b"base", b"held-4"))
    assert cache.record("match-a", 6) is None
    assert cache.record("match-a", 4) == Loaded(4, b"four", None, b"base", b"held-4")
