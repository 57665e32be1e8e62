"""The Redis store: the source of truth when ``REDIS_URL`` is set.

Keys of one match share the hash tag ``{<match_id>}``, so the Lua compare-and-set touches
them all on one node, Redis Cluster included::

    m:{id}            hash  v = version, d = record
    m:{id}:log        list  one entry per committed move
    m:{id}:idem:<k>   string  the answer kept for an idempotency key
    channel m:{id}:v  the new version is published on every commit

A move costs two round trips: one pipelined read (record and idempotency record together)
and one EVALSHA.
"""

from __future__ import annotations

from importlib.resources import files

import redis
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

from service.store.base import CommitResult, Loaded, StoreUnavailable

_UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 0, 'd', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""


def _match_key(match_id: str) -> str:
    return f"m:{{{match_id}}}"


def _log_key(match_id: str) -> str:
    return f"m:{{{match_id}}}:log"


def _idem_key(match_id: str, key: str) -> str:
    return f"m:{{{match_id}}}:idem:{key}"


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
        A retried compare-and-set is safe: a second run finds the version moved on."""
        client = redis.Redis.from_url(
            url,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            health_check_interval=30,
            retry=Retry(ExponentialWithJitterBackoff(base=0.008, cap=0.1), 1),
        )
        return cls(client)

    def create(self, match_id: str, record: bytes, ttl: int) -> bool:
        try:
            return bool(self._create(keys=[_match_key(match_id)], args=[record, ttl]))
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        try:
            if idempotency_key is None:
                version, record = self._redis.hmget(_match_key(match_id), ["v", "d"])
                replay = None
            else:
                pipe = self._redis.pipeline(transaction=False)
                pipe.hmget(_match_key(match_id), ["v", "d"])
                pipe.get(_idem_key(match_id, idempotency_key))
                (version, record), replay = pipe.execute()
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc
        if version is None or record is None:
            return None
        return Loaded(int(version), record, replay)

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency: tuple[str, bytes] | None = None,
    ) -> CommitResult:
        idem_key, answer = idempotency if idempotency else ("", b"")
        keys = [_match_key(match_id), _log_key(match_id), _idem_key(match_id, idem_key)]
        args = [expected_version, record, log_entry, ttl, answer, f"{_match_key(match_id)}:v"]
        try:
            committed, version = self._commit(keys=keys, args=args)
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc
        return CommitResult(bool(committed), int(version))

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        if stop <= start:
            return []
        try:
            return list(self._redis.lrange(_log_key(match_id), start, stop - 1))
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc

    def history_length(self, match_id: str) -> int:
        try:
            return int(self._redis.llen(_log_key(match_id)))
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc

    def ping(self) -> None:
        try:
            self._redis.ping()
        except _UNREACHABLE as exc:
            raise StoreUnavailable(str(exc)) from exc
