"""Following a bot's events: its pending state, then every event of its log, in order, once.

A :class:`BotFollower` subscribes to the bot's topic on the process's feed
(:mod:`service.live.feeds`) before it reads the log, so no append falls between the read and
the subscription; each wake-up (and each heartbeat) reads the log after the last id sent.
Appends on any node wake it: on Redis each append publishes on the bot's channel, on the file
store the feed polls the other processes' last ids, in memory the store calls the feed.

Where a stream starts:

- **Afresh** (no ``Last-Event-ID``): the bot's pending events (the ``challenge`` event of each
  open challenge it is in, the ``match_started`` of each match in progress, with their own
  ids) and then the events after the log's last id, read in one step with them.
- **Resumed** after an id the log still holds: the events after it, whatever they are.
- **Resumed** after an id the log no longer holds (older than the newest
  :data:`service.store.accounts.EVENTS_KEPT`), or one it never gave: as afresh, since events
  were lost to it.

While the stream is open the bot is online: an entry in the store's presence, refreshed at
each heartbeat with an expiry a little past the next one (so a node that dies takes its
bots offline within :data:`PRESENCE_GRACE_MS` of a heartbeat) and dropped when the stream closes.

Nothing here knows about HTTP: :mod:`service.api.bot_streams` writes the events as SSE.
"""

from __future__ import annotations

import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator

from service.accounts import PRESENCE_GRACE_MS
from service.errors import from_store
from service.live.feeds import Feed, Subscription
from service.store import AccountStore, StoredEvent, bot_topic

PAGE = 100
"""Events read per round trip."""


class BotFollower:
    """One stream's (or one long poll's) view of a bot's log."""

    def __init__(self, store: AccountStore, subscription: Subscription, name_key: str, cursor: int) -> None:
        self._store = store
        self._subscription = subscription
        self.name_key = name_key
        self.cursor = cursor
        self._queued: list[StoredEvent] = []
        self._stopped = threading.Event()

    @classmethod
    def open(cls, store: AccountStore, feed: Feed, name_key: str, after: int | None) -> BotFollower:
        """Subscribe, then find where to start (see the module docstring)."""
        subscription = feed.subscribe(bot_topic(name_key))
        try:
            subscription.wait_ready()
            follower = cls(store, subscription, name_key, after or 0)
            if after is not None:
                first = from_store(store.events_after, name_key, after, 1)
                if first and first[0].id == after + 1:
                    return follower  # the log holds every event after it
            pending, last = from_store(store.pending, name_key)
            if after is not None and after == last:
                return follower  # resumed at the newest event
            follower._queued, follower.cursor = pending, last
            return follower
        except BaseException:
            subscription.close()
            raise

    def next_events(self) -> list[StoredEvent]:
        """What is ready now: the queued pending events, else the log after the cursor."""
        if self._queued:
            ready, self._queued = self._queued, []
            return ready
        ready = from_store(self._store.events_after, self.name_key, self.cursor, PAGE)
        if ready:
            self.cursor = ready[-1].id
        return ready

    def wait(self, timeout: float) -> bool:
        """Sleep until the bot's log may have grown, or ``timeout``; whether woken."""
        return self._subscription.wait(timeout)

    def events(self, heartbeat: float, on_beat: Callable[[], None]) -> Iterator[StoredEvent | None]:
        """Every event from the start, then each as it comes; ``None`` after ``heartbeat``
        seconds without one (calling ``on_beat`` then). Ends on :meth:`stop`.

        The first heartbeat comes after a random part of the interval (half to all of it): the
        streams of a burst of connections then beat spread out, not all in the same instant,
        each with its store reads and presence write."""
        last_beat = time.monotonic() - random.uniform(0, heartbeat / 2)
        while not self._stopped.is_set():
            ready = self.next_events()
            yield from ready
            if ready:
                continue
            self.wait(max(0.0, heartbeat - (time.monotonic() - last_beat)))
            if self._stopped.is_set():
                return
            if time.monotonic() - last_beat >= heartbeat:
                on_beat()
                last_beat = time.monotonic()
                yield None

    def stop(self) -> None:
        """Ask :meth:`events` to end (the client hung up, or the server stops)."""
        self._stopped.set()
        self._subscription.wake()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def close(self) -> None:
        self._subscription.close()


class Presence:
    """One open stream's entry in the store's presence (see the module docstring)."""

    def __init__(self, store: AccountStore, name_key: str, heartbeat: float, now_ms: Callable[[], int]) -> None:
        self._store = store
        self._name_key = name_key
        self._lease_ms = int(heartbeat * 1000) + PRESENCE_GRACE_MS
        self._now_ms = now_ms
        self.stream_id = secrets.token_hex(8)

    def touch(self) -> None:
        from_store(self._store.touch_presence, self._name_key, self.stream_id, self._now_ms() + self._lease_ms)

    def drop(self) -> None:
        from_store(self._store.drop_presence, self._name_key, self.stream_id)
