"""Bot accounts: a name, a key, a profile, auto-accept rules.

A bot registers once and gets its API key, shown only then: ``rbk_`` and 256 random bits.
The store keeps its SHA-256 only (:mod:`service.store.accounts`), so a copy of the store lets
nobody act as a bot. Every call a bot makes names its key as the bearer; :meth:`Accounts.
authenticate` finds the bot through the key index and then checks the bot's own record,
which holds the current key's hash: a rotated key, or the key of a retired bot, stops working
the moment the record changes, whatever the index still says.

Names are 3–32 characters of ``[A-Za-z0-9_-]``, unique without regard to case (``Alice`` and
``alice`` are one bot): the store is keyed by the name in lower case, the record keeps it as
registered. A retired bot keeps its name (nobody can register it again and pass for it), its
matches and replays; its profile is gone and its key works no more.

Nothing here knows about HTTP. Challenges and events are :mod:`service.challenges`.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import orjson

from service.clock import iso_ms, wall_ms
from service.errors import Conflict, NotAuthenticated, NotFound, from_store
from service.store import AccountStore, BotRow

NAME = re.compile(r"^[A-Za-z0-9_-]{3,32}$")
"""What a bot may be called."""

DESCRIPTION_MAX = 280
"""The longest description, in characters."""

KEY_PREFIX = "rbk_"
"""Every bot key starts with this: a key in a log or a paste is recognisable as one."""

PRESENCE_GRACE_MS = 10_000
"""How long past its heartbeat a stream counts as open, should its node vanish without
closing it."""


def new_key() -> str:
    """A fresh bot key: the prefix and 256 random bits."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """What the store keeps of a key."""
    return hashlib.sha256(key.encode()).hexdigest()


def name_key(name: str) -> str:
    """A bot's name as the store keys it: names are unique without regard to case."""
    return name.lower()


@dataclass
class Bot:
    """A bot's record."""

    name: str
    description: str
    owner: str
    created: str
    auto_accept: dict[str, Any] | None = None
    retired: bool = False

    @property
    def key(self) -> str:
        return name_key(self.name)

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decode(cls, record: bytes) -> Bot:
        return cls(**orjson.loads(record))


class Accounts:
    """Registering, authenticating and describing bots over an :class:`AccountStore`.
    ``now_ms`` is the wall clock (epoch ms): profiles show when a bot was created, and presence
    entries expire by it on every node."""

    def __init__(self, store: AccountStore, now_ms: Callable[[], int] = wall_ms) -> None:
        self.store = store
        self.now_ms = now_ms

    # -- the bot itself ----------------------------------------------------------------------

    def register(self, name: str, description: str, owner: str) -> tuple[Bot, str]:
        """A new bot and its key (the only time the key is seen).

        :raises Conflict: ``name_taken``, also when it differs only in case."""
        bot = Bot(name, description, owner, iso_ms(self.now_ms()))
        key = new_key()
        if not from_store(self.store.create_bot, bot.key, bot.encode(), hash_key(key)):
            raise Conflict("name_taken", f"A bot called {name!r} (in any case) exists already.")
        return bot, key

    def authenticate(self, key: str | None) -> Bot:
        """The bot whose current key ``key`` is.

        :raises NotAuthenticated: no key (``authentication_required``), or one that is no
            bot's current key (``unknown_bot_key``: unknown, rotated, or its bot retired)."""
        if key is None:
            raise NotAuthenticated(
                "authentication_required", "This needs a bot key: send 'Authorization: Bearer <bot key>'."
            )
        digest = hash_key(key)
        found = from_store(self.store.bot_by_key, digest) if key.startswith(KEY_PREFIX) else None
        row = from_store(self.store.bot, found) if found is not None else None
        if row is None or not row.key_hash or not secrets.compare_digest(row.key_hash, digest):
            raise NotAuthenticated(
                "unknown_bot_key", "This bearer is not the current key of any bot (unknown, rotated or retired)."
            )
        return Bot.decode(row.record)

    def rotate(self, bot: Bot, old_key: str) -> str:
        """A new key for ``bot``; ``old_key`` stops working at once."""
        key = new_key()
        from_store(self.store.set_key, bot.key, hash_key(old_key), hash_key(key))
        return key

    def retire(self, bot: Bot, key: str) -> None:
        """Retire ``bot``: its key stops working, its profile goes, its name stays taken."""
        bot.retired = True
        from_store(self.store.update_bot, bot.key, bot.encode())
        from_store(self.store.set_key, bot.key, hash_key(key), "")

    def update(self, bot: Bot, changes: dict[str, Any]) -> Bot:
        """Set the description and/or the auto-accept rules (``None`` drops them)."""
        if "description" in changes:
            bot.description = changes["description"]
        if "auto_accept" in changes:
            bot.auto_accept = changes["auto_accept"]
        from_store(self.store.update_bot, bot.key, bot.encode())
        return bot

    # -- reading -------------------------------------------------------------------------------

    def find(self, name: str) -> tuple[Bot, BotRow]:
        """The bot called ``name`` (in any case) with its counters.

        :raises NotFound: ``unknown_bot``: no such bot, or it retired."""
        row = from_store(self.store.bot, name_key(name)) if NAME.match(name) else None
        bot = Bot.decode(row.record) if row is not None else None
        if row is None or bot is None or bot.retired:
            raise NotFound("unknown_bot", f"No bot called {name!r}.")
        return bot, row

    def profile(self, name: str) -> dict[str, Any]:
        """The public profile of the bot called ``name``."""
        bot, row = self.find(name)
        return self._profile(bot, row, self.online(bot.key))

    def own_profile(self, bot: Bot) -> dict[str, Any]:
        """The profile the bot itself reads: the public one and its auto-accept rules."""
        return self.profile(bot.name) | {"auto_accept": bot.auto_accept}

    def online(self, key: str) -> bool:
        return from_store(self.store.streams, key, self.now_ms()) > 0

    def listing(self, after: str | None, count: int, online_only: bool) -> tuple[list[dict[str, Any]], str | None]:
        """Profiles by name from after the cursor ``after`` (a name key), ``count`` at most,
        and the cursor of the next page (``None``: none). ``online_only``: bots with a stream
        open now."""
        now = self.now_ms()
        if online_only:
            names = [n for n in from_store(self.store.online_bots, now, 100_000) if after is None or n > after]
            rows = [(n, row) for n in names[: count + 1] if (row := from_store(self.store.bot, n)) is not None]
            online = {n for n, _ in rows}
        else:
            rows = from_store(self.store.list_bots, after, count + 1)
            online = {n for n, _ in rows if from_store(self.store.streams, n, now) > 0}
        page, more = rows[:count], len(rows) > count
        profiles = [
            self._profile(bot, row, n in online) for n, row in page if not (bot := Bot.decode(row.record)).retired
        ]
        return profiles, (page[-1][0] if more and page else None)

    @staticmethod
    def _profile(bot: Bot, row: BotRow, online: bool) -> dict[str, Any]:
        return {
            "name": bot.name,
            "description": bot.description,
            "owner": bot.owner,
            "created": bot.created,
            "online": online,
            "matches_played": row.played,
            "faults": dict(row.faults),
            "ratings": [],
        }
