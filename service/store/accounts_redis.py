"""The accounts on Redis (one Redis or a Redis Cluster), beside the matches.

Every key of one bot shares the hash tag ``{~<name key>}``, so its appends (log, pending map,
the wake-up message) are one Lua script on one node, a cluster included::

    b:{~n}          hash    r = record, k = key hash, p = matches played, f:<kind> = faults
    b:{~n}:seq      string  the last event id
    b:{~n}:ev       stream  the events, id ``<event id>-1``, the newest EVENTS_KEPT
    b:{~n}:pend     hash    pending entry -> ``<event id>:<body>``
    b:{~n}:on       zset    open stream -> until when (epoch ms)
    channel b:{~n}:v        each append publishes its id (SPUBLISH on a cluster)

Indexes that span bots live in slots of their own and are hints, written after the bot's
own keys (the record decides, see :mod:`service.store.accounts`)::

    bk:{<key hash>}         string  the name key of the bot with this key
    bots                    zset    every name key (score 0, read in lexical order)
    bots:on                 zset    name key -> until when one of its streams is open
    ch:{<id>}               hash    v = version, r = record (expires)
    chx                     zset    open challenge id -> when it expires (epoch ms)
    bm:{<match id>}         string  the bots of a match made by a challenge, by seat (expires)

Any failure of Redis is :class:`StoreUnavailable`, as for the matches.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import orjson
from redis.exceptions import RedisError

from service.store import redis_client
from service.store.accounts import EVENTS_KEPT, BotRow, StoredEvent
from service.store.base import StoreUnavailable

T = TypeVar("T")

_CREATE_BOT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[1], 'k', ARGV[2], 'p', 0)
return 1
"""

_UPDATE_CHALLENGE = """
local v = redis.call('HGET', KEYS[1], 'v')
if not v or tonumber(v) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', tonumber(v) + 1, 'r', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
"""

_APPEND = """
local n = redis.call('INCR', KEYS[1])
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[4], n .. '-1', 'b', ARGV[1])
if ARGV[3] ~= '' then redis.call('HDEL', KEYS[3], ARGV[3]) end
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], n .. ':' .. ARGV[1]) end
if ARGV[5] == '1' then redis.call('SPUBLISH', KEYS[4], n) else redis.call('PUBLISH', KEYS[4], n) end
return n
"""

_PENDING = """
return {redis.call('HVALS', KEYS[1]), redis.call('GET', KEYS[2])}
"""


def _tag(name_key: str) -> str:
    return f"b:{{~{name_key}}}"


def events_channel(name_key: str) -> str:
    """The channel a bot's appends publish their ids on (:mod:`service.live.feeds`)."""
    return f"{_tag(name_key)}:v"


def _failsafe(call: Callable[[], T]) -> T:
    try:
        return call()
    except (RedisError, OSError) as exc:
        raise StoreUnavailable(f"{type(exc).__name__}: {exc}") from exc


class RedisAccounts:
    """Bots, challenges, event logs and presence in Redis; safe to share between threads."""

    def __init__(self, client: redis_client.Client) -> None:
        self._redis = client
        self._cluster = redis_client.is_cluster(client)
        self._create_bot = client.register_script(_CREATE_BOT)
        self._update_challenge = client.register_script(_UPDATE_CHALLENGE)
        self._append = client.register_script(_APPEND)
        self._pending = client.register_script(_PENDING)

    # -- bots ------------------------------------------------------------------------------

    def create_bot(self, name_key: str, record: bytes, key_hash: str) -> bool:
        def create() -> bool:
            if not int(self._create_bot(keys=[_tag(name_key)], args=[record, key_hash])):
                return False
            pipe = self._redis.pipeline(transaction=False)
            pipe.set(f"bk:{{{key_hash}}}", name_key)
            pipe.zadd("bots", {name_key: 0})
            pipe.execute()
            return True

        return _failsafe(create)

    def bot(self, name_key: str) -> BotRow | None:
        found: Any = _failsafe(lambda: self._redis.hgetall(_tag(name_key)))
        return _row(found) if found else None

    def bot_by_key(self, key_hash: str) -> str | None:
        found = _failsafe(lambda: self._redis.get(f"bk:{{{key_hash}}}"))
        return found.decode() if isinstance(found, bytes) else None

    def update_bot(self, name_key: str, record: bytes) -> None:
        _failsafe(lambda: self._redis.hset(_tag(name_key), "r", record))

    def set_key(self, name_key: str, old_hash: str, new_hash: str) -> None:
        def swap() -> None:
            if new_hash:
                self._redis.set(f"bk:{{{new_hash}}}", name_key)
            self._redis.hset(_tag(name_key), "k", new_hash)  # the record decides: the old key is dead now
            self._redis.delete(f"bk:{{{old_hash}}}")

        _failsafe(swap)

    def count_match(self, name_key: str, fault: str | None) -> None:
        def count() -> None:
            if not self._redis.exists(_tag(name_key)):
                return
            pipe = self._redis.pipeline(transaction=False)
            pipe.hincrby(_tag(name_key), "p", 1)
            if fault is not None:
                pipe.hincrby(_tag(name_key), f"f:{fault}", 1)
            pipe.execute()

        _failsafe(count)

    def list_bots(self, after: str | None, count: int) -> list[tuple[str, BotRow]]:
        def read() -> list[tuple[str, BotRow]]:
            start = f"({after}" if after is not None else "-"
            names = [n.decode() for n in self._redis.zrangebylex("bots", start, "+", start=0, num=count)]  # type: ignore[union-attr]  # a sync client's reply
            pipe = self._redis.pipeline(transaction=False)
            for name in names:
                pipe.hgetall(_tag(name))
            rows = pipe.execute()
            return [(name, _row(row)) for name, row in zip(names, rows, strict=True) if row]

        return _failsafe(read)

    # -- challenges ------------------------------------------------------------------------

    def create_challenge(self, challenge_id: str, record: bytes, ttl: int, expires_ms: int) -> None:
        def create() -> None:
            pipe = self._redis.pipeline(transaction=False)
            pipe.hset(f"ch:{{{challenge_id}}}", mapping={"v": 0, "r": record})
            pipe.expire(f"ch:{{{challenge_id}}}", ttl)
            pipe.execute()
            self._redis.zadd("chx", {challenge_id: expires_ms})

        _failsafe(create)

    def challenge(self, challenge_id: str) -> tuple[int, bytes] | None:
        found: Any = _failsafe(lambda: self._redis.hmget(f"ch:{{{challenge_id}}}", ["v", "r"]))
        version, record = found
        return (int(version), record) if version is not None and record is not None else None

    def update_challenge(self, challenge_id: str, expected_version: int, record: bytes, ttl: int, open_: bool) -> bool:
        def update() -> bool:
            done = int(self._update_challenge(keys=[f"ch:{{{challenge_id}}}"], args=[expected_version, record, ttl]))
            if done and not open_:
                self._redis.zrem("chx", challenge_id)
            return bool(done)

        return _failsafe(update)

    def due_challenges(self, now_ms: int, limit: int) -> list[str]:
        found = _failsafe(lambda: self._redis.zrangebyscore("chx", "-inf", now_ms, start=0, num=limit))
        return [c.decode() for c in found]  # type: ignore[union-attr]  # a sync client's reply

    # -- events ----------------------------------------------------------------------------

    def append_event(self, name_key: str, body: bytes, pend: str | None = None, unpend: str | None = None) -> int:
        tag = _tag(name_key)
        keys = [f"{tag}:seq", f"{tag}:ev", f"{tag}:pend", events_channel(name_key)]
        args: list[bytes | str | int] = [body, pend or "", unpend or "", EVENTS_KEPT, "1" if self._cluster else ""]
        return int(_failsafe(lambda: self._append(keys=keys, args=args)))

    def events_after(self, name_key: str, after: int, count: int) -> list[StoredEvent]:
        found: Any = _failsafe(lambda: self._redis.xrange(f"{_tag(name_key)}:ev", f"{after + 1}-0", "+", count=count))
        return [StoredEvent(int(entry_id.split(b"-")[0]), fields[b"b"]) for entry_id, fields in found]

    def pending(self, name_key: str) -> tuple[list[StoredEvent], int]:
        tag = _tag(name_key)
        values, last = _failsafe(lambda: self._pending(keys=[f"{tag}:pend", f"{tag}:seq"]))
        events = []
        for value in values:
            event_id, _, body = bytes(value).partition(b":")
            events.append(StoredEvent(int(event_id), body))
        return sorted(events, key=lambda e: e.id), int(last) if last is not None else 0

    def link_match(self, match_id: str, names: list[str], ttl: int) -> None:
        _failsafe(lambda: self._redis.set(f"bm:{{{match_id}}}", orjson.dumps(names), ex=ttl))

    def match_bots(self, match_id: str) -> list[str] | None:
        found = _failsafe(lambda: self._redis.get(f"bm:{{{match_id}}}"))
        return list(orjson.loads(found)) if isinstance(found, bytes) else None

    # -- presence --------------------------------------------------------------------------

    def touch_presence(self, name_key: str, stream_id: str, until_ms: int) -> None:
        def touch() -> None:
            self._redis.zadd(f"{_tag(name_key)}:on", {stream_id: until_ms})
            self._redis.zadd("bots:on", {name_key: until_ms}, gt=True)

        _failsafe(touch)

    def drop_presence(self, name_key: str, stream_id: str) -> None:
        def drop() -> None:
            key = f"{_tag(name_key)}:on"
            self._redis.zrem(key, stream_id)
            if not self._redis.zcard(key):
                self._redis.zrem("bots:on", name_key)

        _failsafe(drop)

    def streams(self, name_key: str, now_ms: int) -> int:
        return int(_failsafe(lambda: self._redis.zcount(f"{_tag(name_key)}:on", f"({now_ms}", "+inf")))

    def online_bots(self, now_ms: int, count: int) -> list[str]:
        found = _failsafe(lambda: self._redis.zrangebyscore("bots:on", f"({now_ms}", "+inf"))
        return sorted(n.decode() for n in found)[:count]  # type: ignore[union-attr]  # a sync client's reply


def _row(found: dict[bytes, bytes]) -> BotRow:
    faults = {k[2:].decode(): int(v) for k, v in found.items() if k.startswith(b"f:")}
    return BotRow(found[b"r"], found.get(b"k", b"").decode(), int(found.get(b"p", 0)), faults)
