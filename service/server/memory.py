"""Giving a worker's memory back to the system once a burst of streams has left.

A burst of streams (hundreds of connections each holding a greenlet, its saved stack,
buffers, and what following a match reads) takes a worker tens of MB. When the clients leave,
Python frees those objects, but the C allocator keeps most of the freed pages for later:
the worker's resident memory stays at the burst's height (bench/README.md, "Stream bursts").
glibc's ``malloc_trim(0)`` hands every wholly free page back; it takes about a millisecond.

:func:`give_back_memory` does that where the C library has it (glibc) and nothing elsewhere.
The stream slots call it once their count has fallen to a quarter of its peak
(:class:`service.live.slots.StreamSlots`), so a worker trims once per burst, not per stream.
What it cannot return are Python's own arenas (1 MiB each) still holding one live object.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import logging
from collections.abc import Callable

log = logging.getLogger("referee.memory")


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or ``None`` where the C library has none."""
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        return None


def give_back_memory() -> None:
    """Return the C allocator's wholly free pages to the system (glibc only)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
        log.debug("memory: free pages returned to the system")
