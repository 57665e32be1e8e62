"""What a node remembers of recently active matches, so that a move skips the store read:
one cache per process (:mod:`service.cache.process`) or one shared by a server's workers
(:mod:`service.cache.node`), both behind :class:`RecordCache`. A cached record is a hint; the
store's compare-and-set decides. Beside them, each process keeps the match objects it
committed, so that its next move of a match skips the decode (:mod:`service.cache.decoded`)."""

from service.cache.process import MatchCache, RecordCache

__all__ = ["MatchCache", "RecordCache"]
