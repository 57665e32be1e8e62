"""Deterministic, replayable randomness for a match.

All chance in a match derives from one secret 256-bit seed and a draw counter. Each block of
randomness is ``SHA-256(seed || counter as 8 big-endian bytes)``; the counter goes up by one
per block. Integers below ``n`` are taken by rejection sampling from 64-bit words, shuffles are
Fisher–Yates from the last index down. The algorithm is short on purpose: once a match ends and
its seed is revealed, anyone can recompute every shuffle and roll in any language.

The counter is part of what the referee stores after each move, so a chance step in move 40
does not replay the 39 moves before it.
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

_WORD_BYTES = 8
_WORD_SPACE = 1 << 64


class Rng:
    """A seeded stream of random integers; ``counter`` is its whole position."""

    __slots__ = ("seed", "counter", "_words")

    def __init__(self, seed: bytes | str, counter: int = 0) -> None:
        self.seed = bytes.fromhex(seed) if isinstance(seed, str) else bytes(seed)
        self.counter = counter
        self._words: list[int] = []

    def _next_word(self) -> int:
        if not self._words:
            block = hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
            self._words = [
                int.from_bytes(block[i : i + _WORD_BYTES], "big")
                for i in range(len(block) - _WORD_BYTES, -1, -_WORD_BYTES)
            ]
        return self._words.pop()

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = _WORD_SPACE - _WORD_SPACE % n
        while True:
            word = self._next_word()
            if word < limit:
                return word % n

    def between(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]`` (both included), like a die."""
        return low + self.below(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence, uniformly."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle in place (Fisher–Yates, last index first)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def position(self) -> int:
        """The counter to store so that the next move continues this stream.

        Words left over from a partly used block are dropped: the next move starts a fresh
        block, which keeps the stored position a single integer.
        """
        return self.counter
