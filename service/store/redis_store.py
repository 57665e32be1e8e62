"""The Redis store: the source of truth when ``REDIS_URL`` is set.

Keys of one match share the hash tag ``{<match_id>}``, so the Lua compare-and-set touches
them all on one node, Redis Cluster included::

    m:{id}            hash  v = version, d = record, b = base record (once a commit wrote one),
                            i = the record's identity (:mod:`service.store.base`; none on a
                            record written before identities)
    m:{id}:log        list  one entry per committed move (entry i produced version i + 1)
    m:{id}:idem       hash  idempotency key -> the version its move produced
    channel m:{id}:v  the new version is published on every commit (SPUBLISH on a cluster,
                      where it stays in the match's shard; PUBLISH on a single Redis)
    due:{n}           sorted set, n = crc32(id) mod 16: match id -> when the referee must next
                      act on it by itself (epoch ms); the sweepers' due index

Every key of a match expires with it: each commit refreshes the time to live of all three.
A move costs two round trips: one pipelined read (record, log length and idempotency key) and
the EVALSHA, which on a single Redis also writes the listing and due indexes; one when the
referee's cache holds the match at the move's version (:mod:`service.cache.process`): the
EVALSHA alone, which answers the current record when it refuses, sent on the store's own
connections (:mod:`service.store.direct`). On a Redis Cluster
(:mod:`service.store.redis_client`) the read and the script go to the match's master, since they
name keys of one slot only, and the index's writes follow in a cluster pipeline to their own
shards' masters (one more round trip: redis-py's cluster pipeline carries no script).

The listing index cannot live under the match's hash tag (a listing reads many matches) and
must not be one key (on a cluster one node would take every commit). It is split by hour of
the last update and by a shard of the match id, each part its own hash tag::

    ix:{<hour>:<shard>}         sorted set  match id -> last update (epoch ms)
    ix:<game>:{<hour>:<shard>}  the same, for one game

A part expires ``listing_window`` after its hour ends. A listing walks the hours from the
newest down and merges their shards. Written beside the compare-and-set rather than in it, an
entry is a hint: a match updated in several hours sits in each hour's part, and a lost race
may add one; the referee keeps an entry only while it names the match's last update, and it
checks the status on the record itself (the index does not keep it).

With ``replica_acks`` (``REFEREE_REDIS_WAIT_REPLICAS``) a create or a commit is acknowledged
only once that many replicas hold it: ``WAIT`` follows the script in the same pipeline, on the
same connection to the match's master (``WAIT`` counts the writes of its own connection), so
it costs no extra round trip, only the replica's reply. A write that no replica confirms in
time answers 503: it may survive or not, and a retry of the same request finds out (the
referee answers a retried move from the log, or plays it again if it was lost). The log length
is read with the record so that a match whose log was evicted apart from its record is never
served (:class:`MatchDamaged`). The read is not a MULTI, which Redis refuses as a whole when
it is out of memory; a commit landing between its commands can only make the log longer than
the version read, never shorter, so a log shorter than the version means entries were lost.

The due index lives in sixteen sorted sets with their own hash tags, so on a cluster they
spread over the nodes instead of every timed move writing one hot key. On a single Redis a
create or commit sends its ``ZADD`` in the same pipeline as the script and the listing index's
writes (still one round trip, also when it waits for replicas); on a cluster the index is on
other nodes, so the ``ZADD`` follows with the listing index's writes in their own pipeline
(the round trip a cluster pays for the listing anyway). Being outside
the match's slot it cannot be part of the script, so it is written even when the
compare-and-set loses: with ``LT`` it only ever moves an entry earlier, so an entry is never
later than the match's real due time. A sweeper that finds a match not due yet moves the
entry to the real time with a compare-and-set on the score (:meth:`RedisStore.reschedule`).

Any error of Redis — unreachable, timed out, or an error reply such as OOM under
``noeviction`` or READONLY after a failover — is :class:`StoreUnavailable` (a 503).
Redis must not evict: :meth:`RedisStore.check_eviction_policy` refuses an evicting
``maxmemory-policy`` at start.
"""

from __future__ import annotations

import logging
import time
import zlib
from importlib.resources import files
from typing import Any, cast

from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import AskError, MovedError, NoScriptError, RedisError, TryAgainError
from redis.exceptions import ResponseError as RedisResponseError

from service.store import redis_client
from service.store.base import (
    CommitResult,
    Listed,
    ListedMatch,
    ListFilter,
    ListPosition,
    Loaded,
    MatchDamaged,
    StoreMisconfigured,
    StoreUnavailable,
    Timing,
    new_identity,
)
from service.store.direct import DirectConnections

log = logging.getLogger("referee.store")

_FAILURES = (RedisError, OSError)

#: How often, and after what pause, a write answered ``TRYAGAIN`` is sent again before the
#: store answers unavailable. Redis answers it to a command naming a missing key in a slot being
#: moved between masters, until the move ends; a commit always names one (its match's channel),
#: and redis-cli moves a slot of a few keys in milliseconds.
_TRY_AGAIN_RETRIES = 40
_TRY_AGAIN_PAUSE_S = 0.025

#: Creates the match unless its key exists; a second run of the same create (a retry, after
#: a dropped reply or a failover) finds its own record by its identity and answers created.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  if redis.call('HGET', KEYS[1], 'i') == ARGV[3] then return 1 end
  return 0
end
redis.call('HSET', KEYS[1], 'v', 0, 'd', ARGV[1], 'i', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""

#: ``commit.lua``'s expected identity that accepts any record at the expected version.
_ANY_RECORD = "*"

#: ``commit.lua``'s status for a move its Redis's clock says comes too early or too late.
_MISTIMED = 2


def _bound(ms: int | None) -> int | str:
    """A :class:`Timing` bound as ``commit.lua`` takes it (``''``: none)."""
    return "" if ms is None else ms


_RESCHEDULE = """
local seen = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not seen or tonumber(seen) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1]) end
return 1
"""

#: How many sorted sets the due index is spread over (several per cluster master).
DUE_SHARDS = 16

#: Redis list indexes are signed 64-bit; no log is longer than this.
_MAX_INDEX = 2**63 - 1

#: A key whose write tells readiness that Redis takes writes now (not OOM, not a replica).
READY_KEY = "referee:ready"

#: The only ``maxmemory-policy`` that never deletes a match behind the referee's back.
SAFE_POLICY = "noeviction"

#: Shards of each hour of the listing index: several per master of a Redis Cluster.
LISTING_SHARDS = 16

#: The time span of one part of the listing index.
LISTING_BUCKET_MS = 3_600_000

#: Hours of the listing index read per round trip while a listing walks back in time.
_HOURS_PER_READ = 4


def _match_key(match_id: str) -> str:
    return f"m:{{{match_id}}}"


def _log_key(match_id: str) -> str:
    return f"m:{{{match_id}}}:log"


def _idem_key(match_id: str) -> str:
    return f"m:{{{match_id}}}:idem"


def version_channel(match_id: str) -> str:
    """The channel each commit of the match publishes its new version on (one function, so
    the commit and :mod:`service.live.feeds` never disagree)."""
    return f"m:{{{match_id}}}:v"


def listing_key(hour: int, shard: int, game: str | None = None) -> str:
    """One part of the listing index: an hour (since the epoch) and a shard, of one game or
    of all."""
    return f"ix:{{{hour}:{shard}}}" if game is None else f"ix:{game}:{{{hour}:{shard}}}"


def listing_shard(match_id: str) -> int:
    return zlib.crc32(match_id.encode()) % LISTING_SHARDS


def due_key(shard: int) -> str:
    return f"due:{{{shard}}}"


def _due_key_of(match_id: str) -> str:
    return due_key(zlib.crc32(match_id.encode()) % DUE_SHARDS)


def _unavailable(exc: Exception) -> StoreUnavailable:
    """The 503 for any Redis failure, with its cause in the log (an error reply such as OOM
    is worth seeing, unlike a routine timeout)."""
    if isinstance(exc, RedisResponseError):
        log.warning("redis refused a command: %s", exc)
    return StoreUnavailable(f"{type(exc).__name__}: {exc}")


class RedisStore:
    """Matches in one Redis or a Redis Cluster; safe to share between threads, one per
    process."""

    def __init__(
        self,
        client: redis_client.Client,
        replica_acks: int = 0,
        ack_timeout_ms: int = 500,
        listing_window: int = 24 * 3600,
    ) -> None:
        self._redis = client
        self._listing_window_ms = listing_window * 1000
        self._cluster = redis_client.is_cluster(client)
        self._replica_acks = replica_acks
        self._ack_timeout_ms = ack_timeout_ms
        self._direct = None if self._cluster else DirectConnections(client)  # type: ignore[arg-type]  # not a cluster
        self._commit = client.register_script(files("service.store").joinpath("commit.lua").read_text())
        self._create = client.register_script(_CREATE)
        self._reschedule = client.register_script(_RESCHEDULE)

    @classmethod
    def from_url(
        cls,
        url: str,
        timeout: float = 2.0,
        *,
        cluster: bool = False,
        replica_acks: int = 0,
        listing_window: int = 24 * 3600,
    ) -> RedisStore:
        """A store over :func:`service.store.redis_client.connect`, waiting for replicas at most a
        quarter of ``timeout``. Its one quick retry makes a
        retried compare-and-set possible, which is safe: a second run finds the version moved
        on, and the referee then finds its own move in the log."""
        client = redis_client.connect(url, cluster=cluster, timeout=timeout)
        # A quarter of the socket timeout: Redis times a WAIT out on its 100 ms cron, late.
        return cls(client, replica_acks, ack_timeout_ms=max(1, int(timeout * 1000 / 4)), listing_window=listing_window)

    @property
    def client(self) -> redis_client.Client:
        """The Redis client (the stream feed opens its pub/sub connection from it)."""
        return self._redis

    def check_eviction_policy(self) -> None:
        """Refuse a Redis that may evict keys: it would delete matches, or parts of them.

        Raises :class:`StoreMisconfigured` for an evicting policy and for a Redis that
        hides ``CONFIG`` (a managed one: skip the check with ``REFEREE_REDIS_POLICY_CHECK=0``
        once its policy is known to be ``noeviction``). A Redis that cannot be reached is
        only logged: the service starts and answers 503 until it can.
        """
        try:
            policies = self._policies()
        except RedisResponseError as exc:
            raise StoreMisconfigured(
                f"cannot read Redis's maxmemory-policy ({exc}). The referee needs "
                f"maxmemory-policy {SAFE_POLICY}; if this Redis hides CONFIG and is set to "
                f"{SAFE_POLICY}, start with REFEREE_REDIS_POLICY_CHECK=0."
            ) from exc
        except _FAILURES as exc:
            log.warning("could not check Redis's maxmemory-policy at start: %s", exc)
            return
        wrong = {node: policy for node, policy in policies.items() if policy != SAFE_POLICY}
        if wrong:
            where, policy = next(iter(wrong.items()))
            raise StoreMisconfigured(
                f"Redis's maxmemory-policy is {policy!r}{where}: it deletes keys when memory runs "
                f"short, which silently loses matches or parts of them. Set "
                f"'maxmemory-policy {SAFE_POLICY}' (a full Redis then answers 503 and loses "
                f"nothing)."
            )

    def _policies(self) -> dict[str, str | None]:
        """``maxmemory-policy`` per master (keyed ``" on host:port"`` on a cluster, where
        every master must be safe; ``""`` on a single Redis; ``None`` where none is set)."""
        if not self._cluster:
            return {"": _text(self._redis.config_get("maxmemory-policy").get("maxmemory-policy"))}
        cluster = self._cluster_client
        # One reply per master, by node name (redis-py types it as one node's reply).
        replies = cast(dict[str, Any], cluster.config_get("maxmemory-policy", target_nodes=RedisCluster.PRIMARIES))
        if len(cluster.get_primaries()) == 1:  # one master answers with its reply alone
            replies = {cluster.get_primaries()[0].name: replies}
        return {f" on {node}": _text(reply.get("maxmemory-policy")) for node, reply in replies.items()}

    @property
    def _cluster_client(self) -> RedisCluster:
        """The client, as the cluster client it is where ``self._cluster`` holds."""
        assert isinstance(self._redis, RedisCluster), "a single Redis has no cluster client"
        return self._redis

    def create(
        self, match_id: str, record: bytes, ttl: int, listed: Listed | None = None, due_ms: int | None = None
    ) -> bytes | None:
        key, identity = _match_key(match_id), new_identity()
        try:
            created = self._write(self._create, [key], [record, ttl, identity], match_id, listed, due_ms)
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        return identity if created else None

    def load(self, match_id: str, idempotency_key: str | None = None) -> Loaded | None:
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.hmget(_match_key(match_id), ["v", "d", "b", "i"])
            pipe.llen(_log_key(match_id))
            if idempotency_key is not None:
                pipe.hget(_idem_key(match_id), idempotency_key)
            replies = pipe.execute()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        (version, record, base, identity), log_length = replies[0], replies[1]
        if version is None or record is None:
            return None
        if int(log_length) < int(version):
            raise MatchDamaged(f"match {match_id} is at version {int(version)} with {log_length} log entries")
        produced = replies[2] if idempotency_key is not None else None
        return Loaded(int(version), record, int(produced) if produced is not None else None, base, identity or b"")

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
        base: bytes | None = None,
        listed: Listed | None = None,
        due_ms: int | None = None,
        expected_identity: bytes | None = None,
        timing: Timing | None = None,
    ) -> CommitResult:
        keys = [_match_key(match_id), _log_key(match_id), _idem_key(match_id), version_channel(match_id)]
        identity = new_identity()
        args = [
            expected_version,
            _ANY_RECORD if expected_identity is None else expected_identity,
            record,
            identity,
            log_entry,
            ttl,
            idempotency_key or "",
            "1" if self._cluster else "",
            base or "",
            _bound(timing.not_before_ms if timing else None),
            _bound(timing.before_ms if timing else None),
        ]
        if not self._cluster:  # the hints go in the script: one command, written only on success
            self._script_hints(keys, args, match_id, listed, due_ms)
            listed, due_ms = None, None
        try:
            reply = self._write(self._commit, keys, args, match_id, listed, due_ms)
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        status, version = int(reply[0]), int(reply[1])
        if status < 0:
            raise MatchDamaged(f"match {match_id} is at version {version} with a log of another length")
        if status == _MISTIMED:
            return CommitResult(False, version, mistimed=True, store_ms=int(reply[2]))
        if status == 0 and version >= 0:
            produced = reply[3]
            current = Loaded(version, reply[2], int(produced) if produced is not None else None, reply[4], reply[5])
            return CommitResult(False, version, current)
        store_ms = int(reply[2]) if status and len(reply) > 2 else None
        return CommitResult(bool(status), version, identity=identity if status else b"", store_ms=store_ms)

    def time_ms(self) -> int:
        """This Redis's clock (its ``TIME``), in epoch milliseconds: the clock every node
        judges deadlines by (:class:`service.clock.StoreClock`). On a cluster, the clock of
        the node the client asks; each match's commits are judged by its own shard's.

        :raises StoreUnavailable: Redis cannot be reached."""
        try:
            seconds, microseconds = self._redis.time()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        return int(seconds) * 1000 + int(microseconds) // 1000

    def _write(
        self,
        script: Script,
        keys: list[str],
        args: list,
        match_id: str,
        listed: Listed | None,
        due_ms: int | None = None,
    ) -> Any:
        """Run a writing script on the keys' master and answer its reply, in one round trip with the listing
        index's writes for ``listed`` and, with ``replica_acks``, a ``WAIT`` until that many
        replicas hold the write (``WAIT`` counts the writes of its own connection). On a
        cluster the script (and ``WAIT``) go in a pipeline to the match's master, since redis-py's
        cluster pipeline refuses scripts, and the index follows in a cluster pipeline of its
        own: one more round trip there. A failed index write is logged: the index is a hint.
        The due index's ``ZADD LT`` for ``due_ms`` goes the same way as the listing's writes (a
        hint too: a refused write's entry is only early, and the sweeper moves it).
        A failure or a ``MOVED`` reply after which the cluster's slot map names another master
        for the keys (a failover, or a master that came back as a replica) sends the write
        there, once. While the keys' slot is being moved to another master (a resharding), an
        ``ASK`` reply sends it to that master, once, and ``TRYAGAIN`` (a missing key in the
        moving slot) sends it again every :data:`_TRY_AGAIN_PAUSE_S` until the move ends, for up
        to a second.

        :raises StoreUnavailable: fewer replicas confirmed the write in time.
        """
        waits = bool(self._replica_acks)
        index_apart = self._cluster
        if not waits and not index_apart and listed is None and due_ms is None:
            # The script alone, on a single Redis: one EVALSHA on a connection of the
            # store's own, past the client's per-command machinery (service/store/direct.py).
            assert self._direct is not None
            return self._direct.evalsha(script, keys, args)
        client = self._master(keys[0]) if waits or self._cluster else self._redis
        reloaded = rerouted = asking = False
        retries_left = _TRY_AGAIN_RETRIES
        while True:
            pipe = client.pipeline(transaction=False)
            if asking:
                pipe.execute_command("ASKING")
            pipe.evalsha(script.sha, len(keys), *keys, *args)
            if waits:
                pipe.wait(self._replica_acks, self._ack_timeout_ms)
            if not index_apart:
                self._hints(pipe, match_id, listed, due_ms)
            try:
                replies = pipe.execute(raise_on_error=False)
                reply, *rest = replies[1:] if asking else replies  # ASKING's own OK first
            except _FAILURES:
                moved_to = self._new_master(keys[0], client)
                if rerouted or moved_to is None:
                    raise
                # A failover: the slot map now names another master. The write goes there
                # once, like the client's own retry (a second run of a compare-and-set is
                # safe: it finds the version moved on, and the referee its move in the log).
                # The new master may lack the script even if the old one had it reloaded.
                client, rerouted, reloaded = moved_to, True, False
                continue
            if isinstance(reply, MovedError) and not rerouted:
                # The node is alive but no longer serves the keys: a master that came back as
                # its successor's replica, or a slot moved to another master. Nothing ran.
                moved_to = self._new_master(keys[0], client)
                if moved_to is not None:
                    client, rerouted, reloaded = moved_to, True, False
                    continue
            if isinstance(reply, AskError) and not asking:
                # The slot is being moved to another master (a resharding) and the keys have
                # gone there already: ASKING lets this one write run on that node; the slot
                # map is unchanged until the move ends (then MOVED, above).
                client, asking, reloaded = self._node(reply.host, reply.port), True, False
                continue
            if isinstance(reply, TryAgainError) and retries_left:
                # A key of the write is missing in the moving slot (a commit's channel always
                # is): nothing ran, and Redis refuses it until the slot's move ends.
                retries_left -= 1
                time.sleep(_TRY_AGAIN_PAUSE_S)
                continue
            if isinstance(reply, NoScriptError) and not reloaded:
                # A restarted Redis, or a promoted replica (scripts are not replicated).
                client.script_load(script.script)
                reloaded = True
                continue
            if isinstance(reply, Exception):
                raise reply
            if waits:
                acks, *rest = rest
                if isinstance(acks, Exception):
                    raise acks
                if int(acks) < self._replica_acks:
                    raise StoreUnavailable(
                        f"{acks} of {self._replica_acks} replicas confirmed the write within "
                        f"{self._ack_timeout_ms} ms; it may be lost in a failover"
                    )
            if index_apart and (listed is not None or due_ms is not None):
                rest = self._index_apart(match_id, listed, due_ms)
            failed = [r for r in rest if isinstance(r, Exception)]
            if failed:
                log.warning("listing index not updated for match %s: %s", match_id, failed[0])
            return reply

    def _listing_keys(self, match_id: str, listed: Listed) -> tuple[list[str], int]:
        """The listing index's two keys for ``listed`` (all games, its game) and when they
        expire: the window after the end of their hour."""
        hour = listed.updated_ms // LISTING_BUCKET_MS
        shard = listing_shard(match_id)
        keys = [listing_key(hour, shard), listing_key(hour, shard, listed.game)]
        return keys, (hour + 1) * LISTING_BUCKET_MS + self._listing_window_ms

    def _index(self, pipe: Any, match_id: str, listed: Listed) -> None:
        keys, expires_ms = self._listing_keys(match_id, listed)
        for key in keys:
            pipe.zadd(key, {match_id: listed.updated_ms})
            pipe.pexpireat(key, expires_ms)

    def _script_hints(
        self, keys: list[str], args: list, match_id: str, listed: Listed | None, due_ms: int | None
    ) -> None:
        """The listing and due hints as the commit script's extra keys and arguments."""
        args.append(match_id)
        if listed is None:
            args += ["", ""]
        else:
            listing_keys, expires_ms = self._listing_keys(match_id, listed)
            keys += listing_keys
            args += [listed.updated_ms, expires_ms]
        if due_ms is None:
            args.append("")
        else:
            keys.append(_due_key_of(match_id))
            args.append(due_ms)

    def _hints(self, pipe: Any, match_id: str, listed: Listed | None, due_ms: int | None) -> None:
        """The listing index's and the due index's writes for one create or commit."""
        if listed is not None:
            self._index(pipe, match_id, listed)
        if due_ms is not None:
            pipe.zadd(_due_key_of(match_id), {match_id: due_ms}, lt=True)

    def _index_apart(self, match_id: str, listed: Listed | None, due_ms: int | None = None) -> list:
        """The indexes' writes in a pipeline of their own; their replies (errors as values)."""
        pipe = self._redis.pipeline(transaction=False)
        self._hints(pipe, match_id, listed, due_ms)
        try:
            return pipe.execute(raise_on_error=False)
        except _FAILURES as exc:
            return [exc]

    def _master(self, key: str) -> redis_client.Client:
        """A client of the node that serves ``key`` (the store's own on a single Redis)."""
        if not self._cluster:
            return self._redis
        cluster = self._cluster_client
        return cluster.get_redis_connection(cluster.get_node_from_key(key))

    def _node(self, host: str, port: int) -> redis_client.Client:
        """A client of the cluster node at ``host:port`` (one the slot map may not list yet)."""
        cluster = self._cluster_client
        node = cluster.get_node(host=host, port=port)
        if node is None:
            self._forget_slot_map()
            node = cluster.get_node(host=host, port=port)
        if node is None:
            raise StoreUnavailable(f"the cluster redirected a write to {host}:{port}, a node it does not list")
        return cluster.get_redis_connection(node)

    def _new_master(self, key: str, client: redis_client.Client) -> redis_client.Client | None:
        """After a write to ``client`` failed or was redirected: the master that the refreshed
        slot map names for ``key``, if it is another node (redis-py keeps the client of a node
        the map still names, so the same node is the same client), else None."""
        self._forget_slot_map()
        serving = self._master(key)
        return None if serving is client else serving

    def _forget_slot_map(self) -> None:
        """After a failure on a cluster master, read the slot map again, so the next request
        goes to the replica promoted in its place. Best effort: if no node answers, the
        cluster client tries again on the next request."""
        if self._cluster:
            try:
                self._cluster_client.nodes_manager.initialize()
            except _FAILURES as exc:
                log.info("could not refresh the cluster's slot map: %s", exc)

    def due(self, now_ms: int, limit: int) -> list[tuple[str, int]]:
        try:
            pipe = self._redis.pipeline(transaction=False)
            for shard in range(DUE_SHARDS):
                pipe.zrangebyscore(due_key(shard), "-inf", now_ms, start=0, num=limit, withscores=True)
            replies = pipe.execute()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        items = [(member.decode(), int(score)) for reply in replies for member, score in reply]
        return sorted(items, key=lambda item: item[1])

    def reschedule(self, match_id: str, seen_ms: int, due_ms: int | None) -> None:
        try:
            self._reschedule(keys=[_due_key_of(match_id)], args=[match_id, seen_ms, "" if due_ms is None else due_ms])
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def history(self, match_id: str, start: int, stop: int) -> list[bytes]:
        stop = min(stop, _MAX_INDEX)
        if stop <= start:
            return []
        try:
            return cast(list[bytes], self._redis.lrange(_log_key(match_id), start, stop - 1))  # bytes: no decoding
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def history_length(self, match_id: str) -> int:
        try:
            return int(self._redis.llen(_log_key(match_id)))
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def list_matches(
        self, which: ListFilter, after: ListPosition | None, count: int
    ) -> tuple[list[ListedMatch], ListPosition | None]:
        """Walk the hours of the index from ``after`` (or now) back to ``which.since_ms``,
        a few hours per round trip, until ``count + 1`` entries are found; then read their
        records in one more. ``which.status`` is left to the caller (see the module
        docstring)."""
        newest = (after.updated_ms if after is not None else int(time.time() * 1000)) // LISTING_BUCKET_MS
        oldest = which.since_ms // LISTING_BUCKET_MS
        found: list[ListPosition] = []
        hour = newest
        try:
            while hour >= oldest and len(found) <= count:
                hours = range(hour, max(oldest, hour - _HOURS_PER_READ + 1) - 1, -1)
                found += self._read_hours(hours, which, after, count + 1)
                hour = hours[-1] - 1
            found = sorted(found, reverse=True)[: count + 1]
            pipe = self._redis.pipeline(transaction=False)
            for position in found[:count]:
                pipe.hmget(_match_key(position.match_id), ["v", "d", "b"])
            records = pipe.execute()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc
        page = [
            ListedMatch(position, int(version), record, base)
            for position, (version, record, base) in zip(found[:count], records, strict=True)
            if version is not None and record is not None
        ]
        return page, found[count - 1] if len(found) > count else None

    def _read_hours(
        self, hours: range, which: ListFilter, after: ListPosition | None, count: int
    ) -> list[ListPosition]:
        """The newest ``count`` entries of each shard of ``hours`` after ``after``."""
        pipe = self._redis.pipeline(transaction=False)
        newest = f"({after.updated_ms}" if after is not None else "+inf"
        for hour in hours:
            for shard in range(LISTING_SHARDS):
                key = listing_key(hour, shard, which.game)
                if after is not None:  # entries updated in the same millisecond as ``after``
                    pipe.zrangebyscore(key, after.updated_ms, after.updated_ms, withscores=True)
                pipe.zrevrangebyscore(key, newest, which.since_ms, start=0, num=count, withscores=True)
        positions = (ListPosition(int(score), member.decode()) for reply in pipe.execute() for member, score in reply)
        return [p for p in positions if after is None or p < after]

    def ping(self) -> None:
        """A small write, so that readiness fails while Redis refuses writes (OOM under
        ``noeviction``, a read-only replica after a failover), not only while it is down.
        On a cluster one write per master: a match may live on any of them."""
        try:
            if not self._cluster:
                self._redis.set(READY_KEY, b"1", px=10_000)
                return
            pipe = self._redis.pipeline(transaction=False)
            for key in self._key_per_master(READY_KEY):
                pipe.set(key, b"1", px=10_000)
            pipe.execute()
        except _FAILURES as exc:
            raise _unavailable(exc) from exc

    def _key_per_master(self, prefix: str) -> list[str]:
        """``prefix:{n}`` keys, one served by each master of the cluster (as the client
        knows it)."""
        cluster = self._cluster_client
        masters = {node.name for node in cluster.get_primaries()}
        keys: dict[str, str] = {}
        for n in range(64 * len(masters)):
            key = f"{prefix}:{{{n}}}"
            keys.setdefault(cluster.get_node_from_key(key).name, key)
            if len(keys) == len(masters):
                break
        return list(keys.values())


def _text(value: str | bytes | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
