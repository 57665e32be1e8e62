"""Which challenges a bridge accepts: ``--accept RULES``.

RULES is ``all``, or ``;``-separated conditions ``field=value,value`` that must all hold:

- ``games=the-game,viaggio-al-centro-della-terra``: the challenge's game is one of these;
- ``opponents=alice,bob``: the challenger is one of these bots (names compare without case);
- ``players=2,3``: the match has one of these numbers of seats;
- ``clock=timed`` or ``clock=untimed``: the match has a time control, or none.

A field left out accepts anything. ``games=the-game;clock=timed`` accepts timed matches of
The Game from anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.arena.errors import ArenaError

_FIELDS = ("games", "opponents", "players", "clock")
_CLOCKS = ("timed", "untimed")


@dataclass(frozen=True)
class AcceptRules:
    """The conditions of ``--accept``; ``None`` in a field: anything."""

    games: frozenset[str] | None = None
    opponents: frozenset[str] | None = None
    players: frozenset[int] | None = None
    clock: str | None = None

    @classmethod
    def parse(cls, text: str) -> AcceptRules:
        """``RULES`` as the module describes it; :class:`ArenaError` saying what is wrong."""
        text = text.strip()
        if text == "all":
            return cls()
        found: dict[str, list[str]] = {}
        for part in text.split(";"):
            name, sign, values = part.partition("=")
            name = name.strip()
            if not sign or name not in _FIELDS:
                raise ArenaError(f"--accept: {part.strip()!r} is not one of {', '.join(f + '=…' for f in _FIELDS)}")
            if name in found:
                raise ArenaError(f"--accept: {name} is given twice")
            items = [value.strip() for value in values.split(",") if value.strip()]
            if not items:
                raise ArenaError(f"--accept: {name}= names nothing")
            found[name] = items
        players = found.get("players")
        if players is not None and not all(item.isdigit() for item in players):
            raise ArenaError(f"--accept: players= takes numbers of seats, not {','.join(players)}")
        clock = found.get("clock")
        if clock is not None and (len(clock) != 1 or clock[0] not in _CLOCKS):
            raise ArenaError("--accept: clock= is timed or untimed")
        return cls(
            games=frozenset(found["games"]) if "games" in found else None,
            opponents=frozenset(name.lower() for name in found["opponents"]) if "opponents" in found else None,
            players=frozenset(int(item) for item in players) if players is not None else None,
            clock=clock[0] if clock is not None else None,
        )

    def accepts(self, challenge: dict[str, Any]) -> bool:
        """Whether a challenge (as the referee describes it) meets every condition."""
        if self.games is not None and challenge.get("game") not in self.games:
            return False
        if self.opponents is not None and str(challenge.get("challenger", "")).lower() not in self.opponents:
            return False
        if self.players is not None and challenge.get("players") not in self.players:
            return False
        timed = challenge.get("time_control") is not None
        return self.clock is None or (self.clock == "timed") == timed
