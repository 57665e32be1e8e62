"""The replayable random stream: documented algorithm, resumable from a stored position."""

from __future__ import annotations

import hashlib
from collections import Counter

from service.engine import Rng


def test_words_are_sha256_of_seed_and_counter_read_big_endian() -> None:
    seed = bytes(range(32))
    block = hashlib.sha256(seed + (0).to_bytes(8, "big")).digest()
    words = [int.from_bytes(block[i : i + 8], "big") for i in range(0, 32, 8)]
    rng = Rng(seed)
    n = 1 << 40  # a power of two: no word is ever rejected
    assert [rng.below(n) for _ in range(4)] == [w % n for w in words]
    assert rng.position() == 1


def test_same_seed_same_stream() -> None:
    a, b = Rng("11" * 32), Rng(bytes.fromhex("11" * 32))
    assert [a.below(100) for _ in range(50)] == [b.below(100) for _ in range(50)]


def test_resuming_at_a_stored_position_continues_identically() -> None:
    first = Rng("22" * 32)
    first.shuffle(list(range(30)))
    position = first.position()
    one, two = Rng("22" * 32, position), Rng("22" * 32, position)
    assert [one.below(6) for _ in range(10)] == [two.below(6) for _ in range(10)]
    assert position > 0


def test_below_is_uniform_enough_and_in_range() -> None:
    rng = Rng(b"x" * 32)
    counts = Counter(rng.below(6) for _ in range(60_000))
    assert set(counts) == set(range(6))
    assert all(9_000 < c < 11_000 for c in counts.values())
    assert all(3 <= rng.between(3, 5) <= 5 for _ in range(100))


def test_shuffle_is_a_permutation() -> None:
    items = list(range(98))
    Rng(b"y" * 32).shuffle(items)
    assert sorted(items) == list(range(98)) and items != list(range(98))
