"""The ladders on Redis (one Redis or a Redis Cluster), beside the accounts::

    ld:{<key>}        hash    v = version, b = body
    ldk               zset    every document key (score 0, read in lexical order)
    lease:{<name>}    hash    h = the holder, u = until (ms), expiring when the lease lapses
    ldq:{<queue>}     stream  the queue's items (field b), removed by id

Each document is one key, so its compare-and-set is one Lua script on one node, a cluster
included; the key index is written after the document and only lists (a hint, as the
accounts' indexes are). A lease is judged by the time the caller passes (the store's clock):
the key's expiry only clears lapsed leases away.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from redis.exceptions import RedisError

from service.store import redis_client
from service.store.base import StoreUnavailable

T = TypeVar("T")

_PUT = """
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', v + 1, 'b', ARGV[2])
return 1
"""

_HOLD = """
local held = redis.call('HMGET', KEYS[1], 'h', 'u')
if held[1] and held[1] ~= ARGV[1] and tonumber(held[2]) > tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'h', ARGV[1], 'u', ARGV[3])
redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(ARGV[3]) - tonumber(ARGV[2])) + 60000)
return 1
"""


def _failsafe(call: Callable[[], T]) -> T:
    try:
        return call()
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc


class RedisLadders:
    """Versioned documents and leases in Redis; safe to share between threads."""

    def __init__(self, client: redis_client.Client) -> None:
        self._redis = client
        self._put = client.register_script(_PUT)
        self._hold = client.register_script(_HOLD)

    def get(self, key: str) -> tuple[int, bytes] | None:
        found: Any = _failsafe(lambda: self._redis.hmget(f"ld:{{{key}}}", ["v", "b"]))
        version, body = found
        return (int(version), bytes(body)) if version is not None and body is not None else None

    def put(self, key: str, expected_version: int, body: bytes) -> bool:
        def put() -> bool:
            if not int(self._put(keys=[f"ld:{{{key}}}"], args=[expected_version, body])):
                return False
            if expected_version == 0:
                self._redis.zadd("ldk", {key: 0})
            return True

        return _failsafe(put)

    def keys(self, prefix: str) -> list[str]:
        found: Any = _failsafe(lambda: self._redis.zrangebylex("ldk", f"[{prefix}", f"[{prefix}\xff"))
        return sorted(k.decode() for k in found)

    def hold_lease(self, name: str, holder: str, now_ms: int, until_ms: int) -> bool:
        return bool(int(_failsafe(lambda: self._hold(keys=[f"lease:{{{name}}}"], args=[holder, now_ms, until_ms]))))

    def lease_holder(self, name: str, now_ms: int) -> str | None:
        found: Any = _failsafe(lambda: self._redis.hmget(f"lease:{{{name}}}", ["h", "u"]))
        holder, until = found
        return holder.decode() if holder is not None and until is not None and int(until) > now_ms else None

    def push(self, queue: str, item: bytes) -> None:
        _failsafe(lambda: self._redis.xadd(f"ldq:{{{queue}}}", {"b": item}))

    def queued(self, queue: str, count: int) -> list[tuple[str, bytes]]:
        found: Any = _failsafe(lambda: self._redis.xrange(f"ldq:{{{queue}}}", count=count))
        return [(entry_id.decode(), bytes(fields[b"b"])) for entry_id, fields in found]

    def unqueue(self, queue: str, ids: list[str]) -> None:
        if ids:
            _failsafe(lambda: self._redis.xdel(f"ldq:{{{queue}}}", *ids))
