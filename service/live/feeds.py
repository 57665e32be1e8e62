"""Per-match notifications: a follower of a match learns, without polling the store, that
the match has reached a new version.

A :class:`Feed` fans the versions of one source out to local :class:`Subscription` objects,
one per open stream. Each process has one feed, and one feed holds at most one connection to
its source, however many streams it serves:

- :class:`RedisFeed`: ONE pub/sub connection per process, subscribed to the channel of every
  match that has a follower here (``m:{<id>}:v``, which each commit publishes on; see
  :func:`service.store.redis_store.version_channel`). One listener thread owns the connection
  (redis-py's PubSub is not thread-safe); streams ask it to subscribe and wait until Redis has
  confirmed, so a stream that subscribes, then reads the match, cannot miss a commit in
  between. The channel set changes as streams come and go, which is also what a Redis Cluster
  needs: its commits ``SPUBLISH`` in the match's shard, and sharded channels have no
  patterns (:class:`ShardedRedisFeed` subscribes per channel with ``SSUBSCRIBE``).
- :class:`LocalFeed`: the in-memory store calls :meth:`Feed.publish` after each commit.

The same feed carries the appends to each bot's event log (:mod:`service.store.accounts`):
a *topic* is a match id or a bot's topic (``~<name key>``, :func:`service.store.bot_topic`),
whose "version" is the bot's last event id; on Redis its channel is
:func:`service.store.accounts_redis.events_channel`, in the bot's own hash tag.
- :class:`FileFeed`: the same for commits of this process, plus a cheap poll for commits of
  the other ``referee serve --workers N`` processes sharing the SQLite file: every
  :data:`FILE_POLL_SECONDS` it reads SQLite's ``data_version`` (which changes when another
  connection commits), and only then the versions of the matches followed here.

A subscription keeps only the latest version it heard of and a wake-up flag: a follower that
falls behind reads the versions it missed from the match's log, so nothing is queued per
connection and a slow follower never holds memory. A notification is a hint to read the
store; a follower also reads the store at every heartbeat, so one lost message (a pub/sub
connection that dropped) delays an event by at most a heartbeat, never loses it.

Threads here are greenlets under gunicorn's gevent workers (``threading`` is patched).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from redis.exceptions import RedisError

from service.store import (
    AccountStore,
    FileAccounts,
    FileStore,
    MatchStore,
    MemoryAccounts,
    MemoryStore,
    RedisStore,
    is_bot_topic,
    redis_client,
)
from service.store.accounts_redis import events_channel
from service.store.redis_store import version_channel

log = logging.getLogger("referee.streams")

#: How often a file-store feed looks for commits of other processes (seconds).
FILE_POLL_SECONDS = 0.05

#: How long the Redis listener waits for a message before it applies subscription changes.
_LISTEN_SLICE_SECONDS = 0.02

#: How long a new stream waits for Redis to confirm its subscription before it reads anyway
#: (its heartbeat reads then cover a notification it might miss).
READY_TIMEOUT_SECONDS = 2.0

#: How long the listener lets a commit's own request finish before it wakes that match's
#: streams: the message often arrives before the committing request has read its reply, and
#: a fan-out to hundreds of streams in that worker would delay the move's answer.
FANOUT_DELAY_SECONDS = 0.002


class Subscription:
    """One follower's interest in one match: the latest version heard of and a wake-up.

    Use as a context manager (or call :meth:`close`) so the feed forgets it.
    """

    def __init__(self, feed: Feed, match_id: str, ready: threading.Event) -> None:
        self.match_id = match_id
        self.latest = -1
        self._feed = feed
        self._ready = ready
        self._woken = threading.Event()

    def notify(self, version: int) -> None:
        self.latest = max(self.latest, version)
        self._woken.set()

    def wake(self) -> None:
        """Wake the follower waiting here with no news (it is asked to stop)."""
        self._woken.set()

    def wait_ready(self, timeout: float = READY_TIMEOUT_SECONDS) -> bool:
        """Whether the source confirmed the subscription (within ``timeout``): from then on
        no commit goes unnoticed."""
        return self._ready.wait(timeout)

    def wait(self, timeout: float) -> bool:
        """Sleep until a notification or ``timeout``; whether one came."""
        woken = self._woken.wait(timeout)
        self._woken.clear()
        return woken

    def close(self) -> None:
        self._feed.leave(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Feed:
    """Local fan-out: subscriptions per match, and :meth:`publish` waking them.

    Subclasses learn when a match gains its first follower here and loses its last
    (:meth:`_watch`, :meth:`_unwatch`) to follow it at their source.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._followers: dict[str, set[Subscription]] = {}
        self._ready: dict[str, threading.Event] = {}

    def subscribe(self, match_id: str) -> Subscription:
        with self._lock:
            first = match_id not in self._followers
            if first:
                self._ready[match_id] = threading.Event()
            subscription = Subscription(self, match_id, self._ready[match_id])
            self._followers.setdefault(match_id, set()).add(subscription)
        if first:
            self._watch(match_id)
        return subscription

    def leave(self, subscription: Subscription) -> None:
        with self._lock:
            followers = self._followers.get(subscription.match_id)
            if followers is None or subscription not in followers:
                return
            followers.discard(subscription)
            last = not followers
            if last:
                del self._followers[subscription.match_id]
                del self._ready[subscription.match_id]
        if last:
            self._unwatch(subscription.match_id)

    def publish(self, match_id: str, version: int) -> None:
        """Wake every local follower of ``match_id``: it has reached ``version``."""
        with self._lock:
            followers = list(self._followers.get(match_id, ()))
        for subscription in followers:
            subscription.notify(version)

    def followed(self) -> list[str]:
        """The matches followed in this process now."""
        with self._lock:
            return list(self._followers)

    def followers(self) -> int:
        """How many subscriptions are open in this process."""
        with self._lock:
            return sum(len(s) for s in self._followers.values())

    def _mark_ready(self, match_id: str) -> None:
        with self._lock:
            ready = self._ready.get(match_id)
        if ready is not None:
            ready.set()

    def _watch(self, match_id: str) -> None:
        self._mark_ready(match_id)

    def _unwatch(self, match_id: str) -> None:
        """Nothing to undo for a local source."""

    def close(self) -> None:
        """Stop any background work (tests; a server just exits)."""


class LocalFeed(Feed):
    """Commits of this process only: the in-memory store tells the feed of each one."""

    def __init__(self, store: MemoryStore) -> None:
        super().__init__()
        store.on_commit(self.publish)


def channel_of(topic: str) -> str:
    """The Redis channel of a topic: a match's versions or a bot's events."""
    return events_channel(topic[1:]) if is_bot_topic(topic) else version_channel(topic)


class FileFeed(Feed):
    """Commits of this process as they happen, and those of the other processes sharing the
    SQLite file within :data:`FILE_POLL_SECONDS` (bots' appends too, with ``accounts``)."""

    def __init__(
        self, store: FileStore, interval: float = FILE_POLL_SECONDS, accounts: FileAccounts | None = None
    ) -> None:
        super().__init__()
        self._store = store
        self._accounts = accounts
        self._interval = interval
        self._known: dict[str, int] = {}
        self._poller: threading.Thread | None = None
        self._poller_pid = 0
        self._stop = threading.Event()
        store.on_commit(self.publish)

    def _watch(self, match_id: str) -> None:
        super()._watch(match_id)
        if self._poller is None or self._poller_pid != os.getpid():
            # Started on first use, in the serving process (never in gunicorn's master).
            self._poller_pid = os.getpid()
            self._poller = threading.Thread(target=self._poll, name="referee-file-feed", daemon=True)
            self._poller.start()

    def publish(self, match_id: str, version: int) -> None:
        self._known[match_id] = max(self._known.get(match_id, -1), version)
        super().publish(match_id, version)

    def _poll(self) -> None:
        seen = None
        while not self._stop.wait(self._interval):
            followed = self.followed()
            if not followed:
                continue
            try:
                changed = self._store.data_version()
                if changed == seen:
                    continue
                seen = changed
                versions = self._store.versions([m for m in followed if not is_bot_topic(m)])
                if self._accounts is not None:
                    versions.update(self._accounts.last_ids(followed))
            except Exception:
                log.exception("file feed: could not read versions")
                continue
            for match_id, version in versions.items():
                if version > self._known.get(match_id, -1):
                    self.publish(match_id, version)
        log.debug("file feed stopped")

    def _unwatch(self, match_id: str) -> None:
        self._known.pop(match_id, None)

    def close(self) -> None:
        self._stop.set()


class RedisFeed(Feed):
    """Commits of every node, through one pub/sub connection per process."""

    def __init__(self, client: redis_client.Client) -> None:
        super().__init__()
        self._client = client
        self._changes: list[tuple[bool, str]] = []
        self._changes_lock = threading.Lock()
        self._listener: threading.Thread | None = None
        self._listener_pid = 0
        self._stop = threading.Event()

    # -- what a cluster variant overrides ----------------------------------------------------

    def subscribe_channels(self, pubsub: Any, channels: list[str]) -> None:
        pubsub.subscribe(*channels)

    def unsubscribe_channels(self, pubsub: Any, channels: list[str]) -> None:
        pubsub.unsubscribe(*channels)

    def next_message(self, pubsub: Any, timeout: float) -> dict[str, Any] | None:
        return pubsub.get_message(timeout=timeout)

    # -- following matches -----------------------------------------------------------------

    def _watch(self, match_id: str) -> None:
        self._change(True, match_id)

    def _unwatch(self, match_id: str) -> None:
        self._change(False, match_id)

    def _change(self, subscribe: bool, match_id: str) -> None:
        with self._changes_lock:
            self._changes.append((subscribe, match_id))
        if self._listener is None or self._listener_pid != os.getpid():
            self._listener_pid = os.getpid()
            self._listener = threading.Thread(target=self._listen, name="referee-redis-feed", daemon=True)
            self._listener.start()

    def _take_changes(self) -> tuple[list[str], list[str]]:
        """The channels to subscribe to and to leave, as the followers stand now."""
        with self._changes_lock:
            changes, self._changes = self._changes, []
        followed = set(self.followed())
        touched = {match_id for _, match_id in changes}
        join = [channel_of(m) for m in touched if m in followed]
        leave = [channel_of(m) for m in touched if m not in followed]
        return join, leave

    def _listen(self) -> None:
        """The one owner of this process's pub/sub connection."""
        pubsub = self._client.pubsub(ignore_subscribe_messages=False)
        delay = 0.05
        while not self._stop.is_set():
            try:
                join, leave = self._take_changes()
                if join:
                    self.subscribe_channels(pubsub, join)
                if leave:
                    self.unsubscribe_channels(pubsub, leave)
                if not self.followed():
                    time.sleep(_LISTEN_SLICE_SECONDS)
                    continue
                message = self.next_message(pubsub, _LISTEN_SLICE_SECONDS)
                if message is not None:
                    time.sleep(FANOUT_DELAY_SECONDS)
                while message is not None:
                    self._handle(message)
                    message = self.next_message(pubsub, 0)
                delay = 0.05
            except Exception as exc:
                unexpected = not isinstance(exc, (RedisError, OSError))
                log.warning("redis feed: %s; resubscribing in %.2fs", exc, delay, exc_info=unexpected)
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
                self._resubscribe(pubsub)
        pubsub.close()

    def _resubscribe(self, pubsub: Any) -> None:
        """After a lost connection: subscribe again to every followed match and wake every
        follower, which rereads its match (messages may have been lost meanwhile)."""
        try:
            pubsub.reset()
        except (RedisError, OSError):
            pass
        followed = self.followed()
        with self._changes_lock:
            self._changes = [(True, m) for m in followed] + self._changes
        for match_id in followed:
            self.publish(match_id, -1)

    def _handle(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else channel
        match_id = channel[channel.index("{") + 1 : channel.rindex("}")]
        kind = message["type"]
        if kind in ("subscribe", "ssubscribe"):
            self._mark_ready(match_id)
        elif kind in ("message", "smessage"):
            self.publish(match_id, int(message["data"]))

    def close(self) -> None:
        self._stop.set()


class ShardedRedisFeed(RedisFeed):
    """The same on a Redis Cluster, whose commits publish in the match's shard (``SPUBLISH``):
    redis-py's cluster pub/sub keeps one connection per node that serves a followed match."""

    def subscribe_channels(self, pubsub: Any, channels: list[str]) -> None:
        pubsub.ssubscribe(*channels)

    def unsubscribe_channels(self, pubsub: Any, channels: list[str]) -> None:
        pubsub.sunsubscribe(*channels)

    def next_message(self, pubsub: Any, timeout: float) -> dict[str, Any] | None:
        return pubsub.get_sharded_message(timeout=timeout)


def open_feed(store: MatchStore, accounts: AccountStore | None = None) -> Feed:
    """The feed that hears of ``store``'s commits (and of the appends to ``accounts``)."""
    if isinstance(store, RedisStore):
        return ShardedRedisFeed(store.client) if redis_client.is_cluster(store.client) else RedisFeed(store.client)
    if isinstance(store, FileStore):
        file_accounts = accounts if isinstance(accounts, FileAccounts) else None
        feed: Feed = FileFeed(store, accounts=file_accounts)
        if file_accounts is not None:
            file_accounts.on_append(feed.publish)
        return feed
    if isinstance(store, MemoryStore):
        feed = LocalFeed(store)
        if isinstance(accounts, MemoryAccounts):
            accounts.on_append(feed.publish)
        return feed
    raise TypeError(f"no feed for {type(store).__name__}")


__all__ = [
    "FILE_POLL_SECONDS",
    "Feed",
    "FileFeed",
    "LocalFeed",
    "RedisFeed",
    "ShardedRedisFeed",
    "Subscription",
    "open_feed",
]
