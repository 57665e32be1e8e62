"""The accounts store: bot accounts, their key hashes, challenges, each bot's event log and
who is online, beside the matches and in the same backend (memory, the SQLite file, Redis or
a Redis Cluster). Nothing here knows what a challenge or an event means: records and events
are opaque bytes, which :mod:`service.accounts` and :mod:`service.challenges` encode.

What each part guarantees:

- **Bots** are keyed by their name in lower case (names are unique without regard to case).
  A bot's record (:class:`BotRow`) holds the SHA-256 of its current key; an index from key
  hash to name finds the bot of a request. The record decides: a key whose hash the index still
  names but the record does not (rotated, retired) is refused, so the index may lag (on a
  cluster it lives in another slot) without ever letting an old key in. Matches played and
  faults are counters of their own, incremented atomically, so they never race a profile edit.
- **Challenges** are records with a version: :meth:`AccountStore.update_challenge` is a
  compare-and-set, so two answers to one challenge (an accept and a cancel) never both win.
  An expiry index says when each open challenge expires; the challenge sweeper reads it.
- **Events**: each bot has a log of events with ids 1, 2, 3… (increasing, never reused, kept
  up to :data:`EVENTS_KEPT` back) and a *pending* map (what a bot that connects now must be
  told: its open challenges, its matches in progress), changed in the same atomic step as the
  append. Every append wakes the bot's streams on every node through the same feed as the
  matches' versions (:mod:`service.live.feeds`), on the topic :func:`bot_topic`.
- **Presence**: each open event stream keeps an entry with an expiry that it refreshes on
  every heartbeat; a bot is online while one of its entries has not expired.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

EVENTS_KEPT = 1000
"""Events kept per bot: a stream resumed further back than this gets the pending state again."""

TOPIC_PREFIX = "~"
"""Bot topics of the feed start with this (no match id or bot name does)."""


def bot_topic(name_key: str) -> str:
    """The feed topic a bot's appends are announced on."""
    return TOPIC_PREFIX + name_key


def is_bot_topic(topic: str) -> bool:
    return topic.startswith(TOPIC_PREFIX)


@dataclass(frozen=True)
class BotRow:
    """A bot as stored: its record, the hash of its current key (``""`` once retired), its
    matches played and its faults by kind."""

    record: bytes
    key_hash: str
    played: int = 0
    faults: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StoredEvent:
    """One event of a bot's log: its id and its body."""

    id: int
    body: bytes


class AccountStore(Protocol):
    """What :mod:`service.accounts` and :mod:`service.challenges` need from a store."""

    # -- bots ------------------------------------------------------------------------------

    def create_bot(self, name_key: str, record: bytes, key_hash: str) -> bool:
        """Store a new bot; ``False`` if the name is taken (also by a retired bot)."""

    def bot(self, name_key: str) -> BotRow | None:
        """The bot, or ``None``."""

    def bot_by_key(self, key_hash: str) -> str | None:
        """The name key the index gives for a key hash (the caller checks the bot's row)."""

    def update_bot(self, name_key: str, record: bytes) -> None:
        """Replace the bot's record (not its key or counters)."""

    def set_key(self, name_key: str, old_hash: str, new_hash: str) -> None:
        """Make ``new_hash`` the bot's key (``""``: none, the bot is retired); ``old_hash``
        stops working at once."""

    def count_match(self, name_key: str, fault: str | None) -> None:
        """One more match played, and one more fault of kind ``fault`` if given."""

    def list_bots(self, after: str | None, count: int) -> list[tuple[str, BotRow]]:
        """Up to ``count`` bots by name key, after ``after``."""

    # -- challenges ------------------------------------------------------------------------

    def create_challenge(self, challenge_id: str, record: bytes, ttl: int, expires_ms: int) -> None:
        """Store a new challenge at version 0, expiring from the index at ``expires_ms``."""

    def challenge(self, challenge_id: str) -> tuple[int, bytes] | None:
        """The challenge's version and record, or ``None``."""

    def update_challenge(self, challenge_id: str, expected_version: int, record: bytes, ttl: int, open_: bool) -> bool:
        """Write ``record`` as the next version if the challenge is still at
        ``expected_version``; drop it from the expiry index unless it stays ``open_``."""

    def due_challenges(self, now_ms: int, limit: int) -> list[str]:
        """Open challenges whose expiry has passed."""

    # -- events ----------------------------------------------------------------------------

    def append_event(self, name_key: str, body: bytes, pend: str | None = None, unpend: str | None = None) -> int:
        """Append ``body`` to the bot's log and answer its id; in the same step, keep it as
        the pending entry ``pend`` and/or forget the pending entry ``unpend``."""

    def events_after(self, name_key: str, after: int, count: int) -> list[StoredEvent]:
        """Up to ``count`` events with ids above ``after``, oldest first."""

    def pending(self, name_key: str) -> tuple[list[StoredEvent], int]:
        """The bot's pending events (by id) and its last event id, read together."""

    def link_match(self, match_id: str, names: list[str], ttl: int) -> None:
        """Remember which bot plays each seat of ``match_id``."""

    def match_bots(self, match_id: str) -> list[str] | None:
        """The bots of ``match_id`` by seat, if a challenge made it."""

    # -- presence --------------------------------------------------------------------------

    def touch_presence(self, name_key: str, stream_id: str, until_ms: int) -> None:
        """The stream ``stream_id`` of the bot is open until ``until_ms`` at least."""

    def drop_presence(self, name_key: str, stream_id: str) -> None:
        """The stream closed."""

    def streams(self, name_key: str, now_ms: int) -> int:
        """How many streams of the bot are open (on any node)."""

    def online_bots(self, now_ms: int, count: int) -> list[str]:
        """Up to ``count`` name keys of bots with a stream open."""
