"""The ladders of the in-memory store: dicts behind one lock (``REFEREE_STORE=memory``)."""

from __future__ import annotations

import threading


class MemoryLadders:
    """Versioned documents and leases in dicts; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._documents: dict[str, tuple[int, bytes]] = {}
        self._leases: dict[str, tuple[str, int]] = {}
        self._queues: dict[str, dict[int, bytes]] = {}
        self._pushed = 0

    def get(self, key: str) -> tuple[int, bytes] | None:
        with self._lock:
            return self._documents.get(key)

    def put(self, key: str, expected_version: int, body: bytes) -> bool:
        with self._lock:
            version = self._documents.get(key, (0, b""))[0]
            if version != expected_version:
                return False
            self._documents[key] = (version + 1, body)
            return True

    def keys(self, prefix: str) -> list[str]:
        with self._lock:
            return sorted(k for k in self._documents if k.startswith(prefix))

    def hold_lease(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        with self._lock:
            current = self._leases.get(name)
            if current is not None and current[0] != holder and current[1] > now_ms:
                return False
            self._leases[name] = (holder, until_ms)
            return True

    def lease_holder(self, name: str, now_ms: int) -> str | None:
        with self._lock:
            current = self._leases.get(name)
            return current[0] if current is not None and current[1] > now_ms else None

    def push(self, queue: str, item: bytes) -> None:
        with self._lock:
            self._pushed += 1
            self._queues.setdefault(queue, {})[self._pushed] = item

    def queued(self, queue: str, count: int) -> list[tuple[str, bytes]]:
        with self._lock:
            items = list(self._queues.get(queue, {}).items())[:count]
        return [(str(item_id), item) for item_id, item in items]

    def unqueue(self, queue: str, ids: list[str]) -> None:
        with self._lock:
            items = self._queues.get(queue, {})
            for item_id in ids:
                items.pop(int(item_id), None)
