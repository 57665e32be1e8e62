"""How many streams a process holds open, and each client's share of them.

Each open stream holds a connection of its worker for as long as its match lasts, so a
process caps them (``REFEREE_STREAM_LIMIT``). A cap alone lets one client take every slot and
leave everyone else a 503; so a client may open another stream only while it holds fewer
streams than there are free slots. A client is each key a request names: its address, and
the seat token it streams with, if any, so that neither many addresses sharing one token nor
many tokens from one address escape the rule.

What that gives, for a cap of ``n``:

- one client alone gets at most half the slots (it stops when what it holds equals what is
  free); two get a half and a quarter, and so on: the more a client holds, the sooner it stops;
- the last free slot only ever goes to a client that holds none, so a newcomer is refused only
  when the process is full of streams of many clients;
- the cap itself is unchanged: never more than ``n`` streams.

When the streams of a burst have left (their count fell to a quarter of its peak, from at
least :data:`DRAINED_FROM` streams), ``on_drained`` is called once: the server gives the
memory they held back to the system then (:mod:`service.server.memory`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

#: The fewest streams whose leaving counts as a burst drained (fewer hold little memory).
DRAINED_FROM = 64


class Slot:
    """One stream's place: give it back once (more calls do nothing)."""

    def __init__(self, slots: StreamSlots, clients: tuple[str, ...]) -> None:
        self._slots: StreamSlots | None = slots
        self.clients = clients

    def give_back(self) -> None:
        slots, self._slots = self._slots, None
        if slots is not None:
            slots._release(self.clients)


class StreamSlots:
    """The streams one process holds open, counted in total and per client key."""

    def __init__(self, limit: int, on_drained: Callable[[], None] | None = None) -> None:
        self.limit = limit
        self._open = 0
        self._peak = 0
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()
        self._on_drained = on_drained

    def take(self, clients: Sequence[str]) -> Slot | None:
        """A slot for a stream of ``clients`` (their keys: ``addr:…``, ``token:…``), or
        ``None`` when the process is full or one of them holds its share already."""
        keys = tuple(dict.fromkeys(clients))
        with self._lock:
            free = self.limit - self._open
            if free <= 0 or any(self._held.get(key, 0) >= free for key in keys):
                return None
            self._open += 1
            self._peak = max(self._peak, self._open)
            for key in keys:
                self._held[key] = self._held.get(key, 0) + 1
        return Slot(self, keys)

    def held(self, client: str) -> int:
        """How many streams ``client`` holds here."""
        with self._lock:
            return self._held.get(client, 0)

    @property
    def open(self) -> int:
        with self._lock:
            return self._open

    def _release(self, keys: tuple[str, ...]) -> None:
        with self._lock:
            self._open -= 1
            for key in keys:
                left = self._held[key] - 1
                if left:
                    self._held[key] = left
                else:
                    del self._held[key]
            drained = self._peak >= DRAINED_FROM and self._open * 4 <= self._peak
            if drained:
                self._peak = self._open
        if drained and self._on_drained is not None:
            self._on_drained()
