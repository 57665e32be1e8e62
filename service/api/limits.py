"""Rate limits: one budget over all API routes, per seat token when the request carries a
token this service issued, else per client address, in fixed windows (``REFEREE_RATE_LIMIT``,
parsed by the ``limits`` library: "6000 per minute", "100 per second; 6000 per hour").

A seat token names its match and seat under a MAC (:class:`service.tokens.SeatTokens`), so
telling an issued token from a made-up one needs no store read: a made-up (or foreign, or
mangled) bearer token is counted against its address like a request without one, and never
gets a budget of its own.

Across nodes the limit is exact from above: the service never admits more than the limit in a
window, whatever the number of nodes and workers. Each process reserves slices of a key's
budget in Redis with one atomic script (a slice is a twentieth of what remains of the window,
at least one request) and admits from its slice without asking again, so a busy key costs one
round trip per slice, not per request: 6000 per minute costs a seat's first request one round
trip, then about one per 300 requests. The price is on the other side: a client that spreads
its requests over several processes may be refused before the limit, by at most what the
other processes reserved and did not use (each at most a twentieth of the window's budget).

On the embedded store counts are in memory and exact. If Redis cannot be reached, each process
grants itself what remains of the budget and counts locally (the match store itself answers
503 meanwhile).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import redis
from flask import Flask, request
from limits import RateLimitItem, parse_many
from werkzeug.exceptions import TooManyRequests

from service.accounts import KEY_PREFIX, hash_key
from service.store import redis_client
from service.tokens import SeatTokens, parse_bearer

log = logging.getLogger("referee")


class RateLimited(TooManyRequests):
    """429 with the seconds until the window resets and the limit that was hit, named with
    whose budget it counts (``6000 per 1 minute per bot key``)."""

    def __init__(self, limit: str, retry_after: int, whose: str = "") -> None:
        super().__init__(description=limit)
        self.retry_after = max(1, retry_after)
        self.limit = f"{limit} {whose}".strip()


_RESERVE = """
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local remaining = tonumber(ARGV[1]) - count
if remaining <= 0 then return 0 end
local grant = math.max(1, math.floor(remaining / tonumber(ARGV[2])))
redis.call('INCRBY', KEYS[1], grant)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return grant
"""
_SLICES = 20
"""A reservation takes this fraction (1/20) of what remains of a window's budget."""


def client_key(seat_tokens: SeatTokens, authorization: str, remote_addr: str | None) -> str:
    """Whose budget a request spends: an issued seat token's, a bot key's (by its hash), else
    its address's. A bot key cannot be told from a made-up one without a store read, so it
    gets a budget of its own here, and a request whose key turns out to be no bot's is
    charged to its address as well (:func:`service.api.bots.current_bot`): made-up keys gain
    nobody anything."""
    bearer = parse_bearer(authorization)
    claim = seat_tokens.claim(bearer) if bearer is not None else None
    if claim is not None:
        return f"seat:{claim.match_id}:{claim.seat}"
    if bearer is not None and bearer.startswith(KEY_PREFIX):
        return "bot:" + hash_key(bearer)[:32]
    return "addr:" + (remote_addr or "unknown")


_WHOSE = {"seat": "per seat token", "bot": "per bot key", "addr": "per address"}
"""How a 429 names the budget of each kind of key."""


@dataclass
class Window:
    """One key's budget in one window as this process sees it: what it reserved, what it
    admitted, and whether the shared budget is spent."""

    index: int
    granted: int = 0
    used: int = 0
    spent: bool = False


class SharedCounter:
    """Fixed-window budgets per key, reserved in slices from Redis (or local when ``client``
    is None)."""

    def __init__(self, client: redis_client.Client | None) -> None:
        self._client = client
        self._reserve_script = client.register_script(_RESERVE) if client is not None else None
        self._windows: dict[str, Window] = {}
        self._lock = threading.Lock()

    def hit(self, limit: RateLimitItem, key: str, now: float) -> int:
        """Count one request; 0 if it is admitted, else the seconds until the window resets."""
        length = limit.get_expiry()
        index = int(now // length)
        retry_after = int((index + 1) * length - now) + 1
        slot = f"rl:{limit.amount}/{length}:{key}"
        with self._lock:
            window = self._window(slot, index)
            if window.used < window.granted:
                window.used += 1
                return 0
            if window.spent:
                return retry_after
        grant = self._reserve(f"{slot}:{index}", limit.amount, length, window)
        with self._lock:
            window.granted += grant
            if window.used < window.granted:
                window.used += 1
                return 0
            window.spent = True
            return retry_after

    def _window(self, slot: str, index: int) -> Window:
        """This key's current window (called under the lock)."""
        window = self._windows.get(slot)
        if window is None or window.index != index:
            if len(self._windows) > 50_000:
                self._forget_old(index)
            window = self._windows[slot] = Window(index)
        return window

    def _reserve(self, redis_key: str, amount: int, length: int, window: Window) -> int:
        """A new slice of the shared budget (0 when it is spent)."""
        if self._reserve_script is None:
            return max(0, amount - window.granted)
        try:
            return int(self._reserve_script(keys=[redis_key], args=[amount, _SLICES, length + 1]))
        except (redis.RedisError, OSError):
            log.warning("rate-limit budgets could not reach Redis; counting locally")
            return max(0, amount - window.granted)

    def _forget_old(self, index: int) -> None:
        """Drop windows that have ended (called under the lock when the table grows)."""
        for slot in [s for s, w in self._windows.items() if w.index < index]:
            del self._windows[slot]


class RateLimiter:
    """The settings' limits, counted per :func:`client_key`, in windows of ``now`` (epoch
    seconds: the wall clock, which every node shares; tests set their own)."""

    def __init__(
        self,
        limits: list[RateLimitItem],
        counter: SharedCounter,
        seat_tokens: SeatTokens,
        now: Callable[[], float] = time.time,
    ) -> None:
        self._limits = limits
        self._counter = counter
        self._seat_tokens = seat_tokens
        self.now = now

    def check(self, authorization: str, remote_addr: str | None) -> RateLimited | None:
        """Count one request of this client; the refusal to answer with if it is over a limit."""
        return self.charge(self.key_of(authorization, remote_addr))

    def key_of(self, authorization: str, remote_addr: str | None) -> str:
        """Whose budget a request with these credentials spends (:func:`client_key`)."""
        return client_key(self._seat_tokens, authorization, remote_addr)

    def charge(self, key: str) -> RateLimited | None:
        """Count one request against ``key``'s budget; the refusal if it is spent."""
        now = self.now()
        for limit in self._limits:
            retry_after = self._counter.hit(limit, key, now)
            if retry_after:
                return RateLimited(str(limit), retry_after, _WHOSE[key.split(":", 1)[0]])
        return None


class NamedLimit:
    """A limit of its own on one operation (registering a bot: ``REFEREE_REGISTER_LIMIT``),
    counted per key as the general one is."""

    def __init__(self, name: str, limits: list[RateLimitItem], counter: SharedCounter) -> None:
        self.name = name
        self._limits = limits
        self._counter = counter

    def check(self, key: str, now: float | None = None) -> RateLimited | None:
        moment = time.time() if now is None else now
        for limit in self._limits:
            retry_after = self._counter.hit(limit, f"{self.name}:{key}", moment)
            if retry_after:
                return RateLimited(str(limit), retry_after, f"per address ({self.name})")
        return None


def build_named_limit(
    name: str, rate_limit: str, redis_url: str | None, redis_cluster: bool, timeout_seconds: float
) -> NamedLimit | None:
    """The limit ``name`` of ``rate_limit`` (blank: none), counted as :func:`build_limiter`'s."""
    if not rate_limit:
        return None
    client = redis_client.connect(redis_url, cluster=redis_cluster, timeout=timeout_seconds) if redis_url else None
    return NamedLimit(name, parse_many(rate_limit), SharedCounter(client))


VERDICT = "referee.rate_limit_verdict"
"""The WSGI environ key under which a layer in front of Flask that has already counted the
request (:mod:`service.api.action_lane`) leaves its verdict: ``None`` or the refusal."""


def build_limiter(
    rate_limit: str, secret: bytes, redis_url: str | None, redis_cluster: bool, timeout_seconds: float
) -> RateLimiter | None:
    """The limiter for ``rate_limit`` ("6000 per minute"; blank: none), counting in Redis
    when ``redis_url`` is set, else in this process."""
    if not rate_limit:
        return None
    client = redis_client.connect(redis_url, cluster=redis_cluster, timeout=timeout_seconds) if redis_url else None
    return RateLimiter(parse_many(rate_limit), SharedCounter(client), SeatTokens(secret))


def install(app: Flask, limiter: RateLimiter | None, exempt: set[str]) -> None:
    """Check ``limiter`` before every request outside the ``exempt`` blueprints (health
    checks and metrics must answer under load)."""
    if limiter is None:
        return

    @app.before_request
    def check_rate_limit() -> None:
        if request.blueprint in exempt or request.blueprint is None:
            return
        if VERDICT in request.environ:  # counted once already, in front of Flask
            refusal = request.environ[VERDICT]
        else:
            refusal = limiter.check(request.headers.get("Authorization", ""), request.remote_addr)
        if refusal is not None:
            raise refusal
