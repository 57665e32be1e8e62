"""The Redis store: the source of truth when ``REDIS_URL`` is set.

Keys of one match share the hash tag ``{<match_id>}``, so the Lua compare-and-set touches
them all on one node, Redis Cluster included::

    m:{id}            hash  v = version, d = record
    m:{id}:log        list  one entry per committed move (entry i produced version i + 1)
    m:{id}:idem       hash  idempotency key -> the version its move produced
    channel m:{id}:v  the new version is published on every commit

Every key of a match expires with it: each commit refreshes the time to live of all three.
A move costs two round trips: one pipelined read (record, log length and idempotency key) and
one EVALSHA. The log length is read with the record so that a match whose log was evicted
apart from its record is never served (:class:`MatchDamaged`). The read is not a MULTI,
which Redis refuses as a whole when it is out of memory; a commit landing between its
commands can only make the log longer than the version read, never shorter, so a log
shorter than the version means entries were lost.

Any error of Redis — unreachable, timed out, or an error reply such as OOM under
``noeviction`` or READONLY after a failover — is :class:`StoreUnavailable` (a 503).
Redis must not evict: :meth:`RedisStore.check_eviction_policy` refuses an evicting
``maxmemory-policy`` at start.
"""

from __future__ import annotations

import logging
from importlib.resources import files

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import RedisError
from redis.exceptions import ResponseError as RedisResponseError
from redis.retry import Retry

from service.store.base import CommitResult, Loaded, MatchDamaged, StoreMisconfigured, StoreUnavailable

log = logging.getLogger("referee.store")

_FAILURES = (RedisError, OSError)

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 0, 'd', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""

#: Redis list indexes are signed 64-bit; no log is longer than this.
_MAX_INDEX = 2**63 - 1

#: A key whose write tells readiness that Redis takes writes now (not OOM, not a replica).
READY_KEY = "referee:ready"

#: The only ``maxmemory-policy`` that never deletes a match behind the referee's back.
SAFE_POLICY = "noeviction"


def _match_key(match_id: str) -> str:
    return f"m:{{{match_id}}}"


def _log_key(match_id: str) -> str:
    return f"m:{{{match_id}}}:log"


def _idem_key(match_id: str) -> str:
    return f"m:{{{match_id}}}:idem"


def _unavailable(exc: Exception) -> StoreUnavailable:
    """The 503 for any Redis failure, with its cause in the log (an error reply such as OOM
    is worth seeing, unlike a routine timeout)."""
    if isinstance(exc, RedisResponseError):
        log.warning("redis refused a command: %s", exc)
    return StoreUnavailable(f"{type(exc).__name__}: {exc}")


class RedisStore:
    """Matches in Redis; safe to share between threads, one per process."""

    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._commit = client.register_script(files("service.store").joinpath("commit.lua").read_text())
        self._create = client.register_script(_CREATE)

    @classmethod
    def from_url(cls, url: str, timeout: float = 2.0) -> RedisStore:
        """A client with short timeouts and one quick retry: a dropped connection (Redis
        restarted) is retried once, a Redis that is down answers 503 within two timeouts.
        A retried compare-and-set is safe: a second run finds the version moved on, and the
        referee then finds its own move in the log."""
        client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
            retry=Retry(ExponentialWithJitterBackoff(base=0.008, cap=0.1), 1),
        )
        return cls(client)

    def check_eviction_policy(self) -> None:
        """Refuse a Redis that may evict keys: it would delete matches, or parts of them.

        Raises :class:`StoreMisconfigured` for an evicting policy and for a Redis that
        hides ``CONFIG`` (a managed one: skip the check with ``REFEREE_REDIS_POLICY_CHECK=0``
        once its policy is known to be ``noeviction``). A Redis that cannot be reached is
        only logged: the service starts and answers 503 until it can.
        """
        try:
            policy = self._redis.config_get("maxmemory-policy").get("maxmemory-policy")
        except RedisResponseError as exc:
            raise StoreMisconfigured(
                f"cannot read Redis's maxmemory-policy ({exc}). The referee needs "
                f"maxmemory-policy {SAFE_POLICY}; if this Redis hides CONFIG and is set to "
                f"{SAFE_POLICY}, start with REFEREE_REDIS_POLICY_CHECK=0."
            ) from exc
        except _FAILURES as exc:
            log.warning("could not check Redis's maxmemory-policy at start: %s", exc)
            return
        if isinstance(policy, bytes):
            policy = policy.decode()
        if policy != SAFE_POLICY:
            raise StoreMisconfigured(
                f"Redis's maxmemory-policy is {policy!r}: it deletes keys when memory runs "
                f"short, which silently loses matches or parts of them. Set "
                f"'maxmemory-policy {SAFE_POLICY}' (a full Redis then answers 503 and loses "
                f"nothing)."
            )

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        try:
            return bool(self._create(keys=[_match_key(match_id)], args=[record, ttl]))
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.hmget(_match_key(match_id), ["v", "d"])
            pipe.llen(_log_key(match_id))
            if idempotency_key is not None:
                pipe.hget(_idem_key(match_id), idempotency_key)
            replies = pipe.execute()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        (version, record), log_length = replies[0], replies[1]
        if version is None or record is None:
            return None
        if int(log_length) < int(version):
            raise MatchDamaged(f"match {match_id} is at version {int(version)} with {log_length} log entries")
        produced = replies[2] if idempotency_key is not None else None
        return Loaded(int(version), record, int(produced) if produced is not None else None)

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
    ) -> CommitResult:
        keys = [_match_key(match_id), _log_key(match_id), _idem_key(match_id)]
        args = [expected_version, record, log_entry, ttl, idempotency_key or "", f"{_match_key(match_id)}:v"]
        try:
            status, version = self._commit(keys=keys, args=args)
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        if int(status) < 0:
            raise MatchDamaged(f"match {match_id} is at version {int(version)} with a log of another length")
        return CommitResult(bool(status), int(version))

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        stop = min(stop, _MAX_INDEX)
        if stop <= start:
            return []
        try:
            return list(self._redis.lrange(_log_key(match_id), start, stop - 1))
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def history_length(self, match_id: str) -> int:
        try:
            return int(self._redis.llen(_log_key(match_id)))
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def ping(self) -> None:
        """A small write, so that readiness fails while Redis refuses writes (OOM under
        ``noeviction``, a read-only replica after a failover), not only while it is down."""
        try:
            self._redis.set(READY_KEY, b"1", px=10_000)
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
