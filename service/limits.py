"""Rate limits: one budget over all API routes, per seat token when the request carries
one, else per client address, in fixed windows (``REFEREE_RATE_LIMIT``, parsed by the
``limits`` library: "6000 per minute", "100 per second; 6000 per hour").

Every node counts its own requests and adds them to the shared count in Redis at most every
``REFEREE_RATE_LIMIT_SYNC`` seconds per key (one pipelined INCRBY + EXPIRE), learning the
total of all nodes in the same round trip. A request is refused when the last known total
plus this node's unsent count has reached the limit (or, when it syncs, when the new total
is over it). So a busy seat pays one extra Redis
round trip per sync interval instead of one per request — a move otherwise costs two — and
the budget is exceeded by at most what the other nodes admitted since their last sync.
``REFEREE_RATE_LIMIT_SYNC=0`` syncs on every request (exact). On the embedded store the
counts are in memory and exact. If Redis cannot be reached the counts stay local and
requests go through: the match store itself answers 503.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from dataclasses import dataclass

import redis
from flask import Flask, request
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests

from service.config import Settings

log = logging.getLogger("referee")


class RateLimited(TooManyRequests):
    """429 with the seconds until the window resets."""

    def __init__(self, limit: str, retry_after: int) -> None:
        super().__init__(description=limit)
        self.retry_after = max(1, retry_after)


def client_key() -> str:
    header = request.headers.get("Authorization", "")
    if header[:7].lower() == "bearer ":
        return "seat:" + hashlib.sha256(header[7:].strip().encode()).hexdigest()[:24]
    return "addr:" + (request.remote_addr or "unknown")


@dataclass
class Window:
    """One key's count in one window: the shared total last seen, and what this node
    admitted since."""

    index: int
    known: int = 0
    unsent: int = 0
    synced_at: float = float("-inf")


class SharedCounter:
    """Fixed-window counts per key, shared through Redis (or local when ``client`` is None)."""

    def __init__(self, client: redis.Redis | None, sync_seconds: float) -> None:
        self._client = client
        self._sync_seconds = sync_seconds
        self._windows: dict[str, Window] = {}
        self._lock = threading.Lock()

    def hit(self, limit: RateLimitItem, key: str, now: float) -> int:
        """Count one request; 0 if it is admitted, else the seconds until the window resets."""
        length = limit.get_expiry()
        index = int(now // length)
        retry_after = int((index + 1) * length - now) + 1
        slot = f"rl:{limit.amount}/{length}:{key}"
        with self._lock:
            window = self._windows.get(slot)
            if window is None or window.index != index:
                if len(self._windows) > 50_000:
                    self._forget_old(index)
                window = self._windows[slot] = Window(index)
            if window.known + window.unsent >= limit.amount:
                return retry_after
            window.unsent += 1
            due = self._client is not None and now - window.synced_at >= self._sync_seconds
            if due:
                unsent, window.unsent, window.synced_at = window.unsent, 0, now
        if due:
            self._sync(f"{slot}:{index}", window, unsent, length)
            with self._lock:
                if window.known + window.unsent > limit.amount:
                    return retry_after
        return 0

    def _sync(self, redis_key: str, window: Window, unsent: int, length: int) -> None:
        assert self._client is not None
        try:
            pipe = self._client.pipeline(transaction=False)
            pipe.incrby(redis_key, unsent)
            pipe.expire(redis_key, length + 1)
            total, _ = pipe.execute()
        except (redis.RedisError, OSError):
            log.warning("rate-limit counts could not reach Redis; counting locally")
            with self._lock:
                window.unsent += unsent
            return
        with self._lock:
            window.known = max(window.known, int(total))

    def _forget_old(self, index: int) -> None:
        """Drop windows that have ended (called under the lock when the table grows)."""
        for slot in [s for s, w in self._windows.items() if w.index < index]:
            del self._windows[slot]


def install(app: Flask, settings: Settings, exempt: set[str]) -> None:
    """Check the settings' limits before every request outside the ``exempt`` blueprints
    (health checks and metrics must answer under load)."""
    if not settings.rate_limit:
        return
    limits = parse_many(settings.rate_limit)
    client = None
    if settings.redis_url:
        timeout = settings.store_timeout_seconds
        client = redis.Redis.from_url(settings.redis_url, socket_timeout=timeout, socket_connect_timeout=timeout)
    counter = SharedCounter(client, settings.rate_limit_sync_seconds)

    @app.before_request
    def check_rate_limit() -> None:
        if request.blueprint in exempt or request.blueprint is None:
            return
        key = client_key()
        now = time.time()
        for limit in limits:
            retry_after = counter.hit(limit, key, now)
            if retry_after:
                raise RateLimited(str(limit), retry_after)
