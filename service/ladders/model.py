"""What a ladder is, as its documents keep it: the ladder with its members and live matches
(``ladder/<id>``), and its standings (``standings/<id>``, :mod:`service.ladders.standings`).

The ladder document changes when an operator or a bot acts (create, pause, join, leave) and
when the pairing loop applies the matches that ended and books new ones; every change is a
compare-and-set of the whole document (:class:`service.store.ladders.LadderStore`), so a bot
is never booked by two writers at once. A match's end does not write the document itself: it
is queued (``ends/<id>``, :class:`Ended`) and the pairing loop applies every queued end in the
same compare-and-set that books the freed bots again, so matches ending together never
contend for the document.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson

ID = re.compile(r"^[a-z0-9][a-z0-9-]{1,39}$")
"""What a ladder may be called: 2–40 characters of lower-case letters, digits and ``-``."""

STATUSES = ("open", "paused", "closed")

HOUSE_PREFIX = "house:"
"""Member keys of house bots start with this (no bot name contains ``:``)."""


def house_key(bot: str) -> str:
    """The member key of the house bot ``bot`` (``random``, ``heuristic``, …)."""
    return HOUSE_PREFIX + bot


def ladder_key(ladder_id: str) -> str:
    return f"ladder/{ladder_id}"


def standings_key(ladder_id: str) -> str:
    return f"standings/{ladder_id}"


def match_key(match_id: str) -> str:
    """The document that says which ladder a match belongs to, and its members by seat."""
    return f"lmatch/{match_id}"


def ends_key(ladder_id: str) -> str:
    """The queue of the ladder's matches that ended and are not yet applied to it."""
    return f"ends/{ladder_id}"


@dataclass
class Member:
    """One bot of a ladder (a bot account, or a house bot played as house seats).

    ``free_since_ms`` is when the bot last had a free slot and nothing to play (joined, or its
    last match ended): the pairing window widens with the time since. ``seats`` counts the
    matches it played at each seat, for the rotation. ``suspended`` is the reason, if the bot
    is out of pairing until its owner rejoins it after ``suspended_ms`` + the cool-down."""

    name: str
    owner: str
    joined_ms: int
    free_since_ms: int
    house: str | None = None
    active: bool = True
    validated: bool = False
    suspended: str | None = None
    suspended_ms: int = 0
    playing: list[str] = field(default_factory=list)
    last_opponents: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)


@dataclass
class LiveMatch:
    """A ladder match being played: its members by seat and whether it validates a bot."""

    members: list[str]
    started_ms: int
    validation: str | None = None


@dataclass(frozen=True)
class Ended:
    """A ladder match's end as the node that ended it heard it, queued for the pairing pass
    (:func:`ends_key`): the outcome (``None``: it was aborted or never played) and each bot
    seat's fault."""

    match_id: str
    outcome: dict[str, Any] | None
    faults: dict[int, str]

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self), option=orjson.OPT_NON_STR_KEYS)

    @classmethod
    def decode(cls, body: bytes) -> Ended:
        data = orjson.loads(body)
        return cls(data["match_id"], data["outcome"], {int(seat): kind for seat, kind in data["faults"].items()})


@dataclass
class Ladder:
    """A ladder's settings, members and live matches."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    time_control: dict[str, Any]
    created: str
    max_concurrent: int = 1
    provisional_games: int = 10
    same_owner: bool = False
    fault_threshold: int = 3
    fault_window: int = 10
    cool_down_s: int = 600
    status: str = "open"
    members: dict[str, Member] = field(default_factory=dict)
    live: dict[str, LiveMatch] = field(default_factory=dict)

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decode(cls, body: bytes) -> Ladder:
        data = orjson.loads(body)
        data["members"] = {k: Member(**m) for k, m in data["members"].items()}
        data["live"] = {k: LiveMatch(**m) for k, m in data["live"].items()}
        return cls(**data)

    def settings(self) -> dict[str, Any]:
        """The ladder as ``GET /v1/ladders/{id}`` shows it."""
        return {
            "id": self.id,
            "game": self.game,
            "players": self.players,
            "options": self.options,
            "time_control": self.time_control,
            "max_concurrent": self.max_concurrent,
            "provisional_games": self.provisional_games,
            "same_owner": self.same_owner,
            "fault_threshold": self.fault_threshold,
            "fault_window": self.fault_window,
            "cool_down_s": self.cool_down_s,
            "status": self.status,
            "created": self.created,
            "members": sum(1 for m in self.members.values() if m.active),
            "live_matches": len(self.live),
        }
