"""The accounts of the in-memory store: dicts behind one lock, one process, for tests
(``REFEREE_STORE=memory``). Each method is atomic, as each Lua script is on Redis."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from service.store.accounts import EVENTS_KEPT, BotRow, StoredEvent, bot_topic


@dataclass
class _Log:
    last: int = 0
    events: list[StoredEvent] = field(default_factory=list)
    pending: dict[str, StoredEvent] = field(default_factory=dict)


class MemoryAccounts:
    """Bots, challenges, event logs and presence in dicts; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._bots: dict[str, BotRow] = {}
        self._keys: dict[str, str] = {}
        self._challenges: dict[str, tuple[int, bytes, float]] = {}
        self._expiring: dict[str, int] = {}
        self._logs: dict[str, _Log] = {}
        self._matches: dict[str, list[str]] = {}
        self._presence: dict[str, dict[str, int]] = {}
        self._listeners: list[Callable[[str, int], None]] = []

    def on_append(self, listener: Callable[[str, int], None]) -> None:
        """Call ``listener(topic, event_id)`` after each append (:mod:`service.live.feeds`)."""
        self._listeners.append(listener)

    # -- bots ------------------------------------------------------------------------------

    def create_bot(self, name_key: str, record: bytes, key_hash: str) -> bool:
        with self._lock:
            if name_key in self._bots:
                return False
            self._bots[name_key] = BotRow(record, key_hash)
            self._keys[key_hash] = name_key
            return True

    def bot(self, name_key: str) -> BotRow | None:
        with self._lock:
            return self._bots.get(name_key)

    def bot_by_key(self, key_hash: str) -> str | None:
        with self._lock:
            return self._keys.get(key_hash)

    def update_bot(self, name_key: str, record: bytes) -> None:
        with self._lock:
            self._bots[name_key] = replace(self._bots[name_key], record=record)

    def set_key(self, name_key: str, old_hash: str, new_hash: str) -> None:
        with self._lock:
            self._keys.pop(old_hash, None)
            if new_hash:
                self._keys[new_hash] = name_key
            self._bots[name_key] = replace(self._bots[name_key], key_hash=new_hash)

    def count_match(self, name_key: str, fault: str | None) -> None:
        with self._lock:
            row = self._bots.get(name_key)
            if row is None:
                return
            faults = dict(row.faults)
            if fault is not None:
                faults[fault] = faults.get(fault, 0) + 1
            self._bots[name_key] = replace(row, played=row.played + 1, faults=faults)

    def list_bots(self, after: str | None, count: int) -> list[tuple[str, BotRow]]:
        with self._lock:
            names = sorted(n for n in self._bots if after is None or n > after)[:count]
            return [(n, self._bots[n]) for n in names]

    # -- challenges ------------------------------------------------------------------------

    def create_challenge(self, challenge_id: str, record: bytes, ttl: int, expires_ms: int) -> None:
        with self._lock:
            self._challenges[challenge_id] = (0, record, self._clock() + ttl)
            self._expiring[challenge_id] = expires_ms

    def challenge(self, challenge_id: str) -> tuple[int, bytes] | None:
        with self._lock:
            found = self._challenges.get(challenge_id)
            if found is None or found[2] <= self._clock():
                return None
            return found[0], found[1]

    def update_challenge(self, challenge_id: str, expected_version: int, record: bytes, ttl: int, open_: bool) -> bool:
        with self._lock:
            found = self._challenges.get(challenge_id)
            if found is None or found[0] != expected_version:
                return False
            self._challenges[challenge_id] = (expected_version + 1, record, self._clock() + ttl)
            if not open_:
                self._expiring.pop(challenge_id, None)
            return True

    def due_challenges(self, now_ms: int, limit: int) -> list[str]:
        with self._lock:
            due = sorted((ms, c) for c, ms in self._expiring.items() if ms <= now_ms)
            return [c for _, c in due[:limit]]

    # -- events ----------------------------------------------------------------------------

    def append_event(self, name_key: str, body: bytes, pend: str | None = None, unpend: str | None = None) -> int:
        with self._lock:
            log = self._logs.setdefault(name_key, _Log())
            log.last += 1
            event = StoredEvent(log.last, body)
            log.events.append(event)
            del log.events[:-EVENTS_KEPT]
            if unpend is not None:
                log.pending.pop(unpend, None)
            if pend is not None:
                log.pending[pend] = event
            event_id = log.last
        for listener in self._listeners:
            listener(bot_topic(name_key), event_id)
        return event_id

    def events_after(self, name_key: str, after: int, count: int) -> list[StoredEvent]:
        with self._lock:
            log = self._logs.get(name_key)
            return [e for e in log.events if e.id > after][:count] if log else []

    def pending(self, name_key: str) -> tuple[list[StoredEvent], int]:
        with self._lock:
            log = self._logs.get(name_key)
            if log is None:
                return [], 0
            return sorted(log.pending.values(), key=lambda e: e.id), log.last

    def link_match(self, match_id: str, names: list[str], ttl: int) -> None:
        with self._lock:
            self._matches[match_id] = list(names)

    def match_bots(self, match_id: str) -> list[str] | None:
        with self._lock:
            return self._matches.get(match_id)

    # -- presence --------------------------------------------------------------------------

    def touch_presence(self, name_key: str, stream_id: str, until_ms: int) -> None:
        with self._lock:
            self._presence.setdefault(name_key, {})[stream_id] = until_ms

    def drop_presence(self, name_key: str, stream_id: str) -> None:
        with self._lock:
            streams = self._presence.get(name_key, {})
            streams.pop(stream_id, None)
            if not streams:
                self._presence.pop(name_key, None)

    def streams(self, name_key: str, now_ms: int) -> int:
        with self._lock:
            return sum(1 for until in self._presence.get(name_key, {}).values() if until > now_ms)

    def online_bots(self, now_ms: int, count: int) -> list[str]:
        with self._lock:
            online = [n for n, s in self._presence.items() if any(u > now_ms for u in s.values())]
        return sorted(online)[:count]
