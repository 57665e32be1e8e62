"""What the pages say before their scripts run, or when a browser runs none: a match's public
summary and the rows of the listing, in the very words the scripts then draw
(``static/watch.js``, ``static/landing.js``), so the first paint does not change under the
reader.

Everything here comes from what a spectator may read (``GET /v1/matches`` and
``GET /v1/matches/{id}`` without a token): no view, no hand, no token is rendered into a page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.games import games


def seat_name(seat: int) -> str:
    return f"Seat {seat}"


def game_title(game_id: str) -> str:
    """The catalogue's title of a game (its id if this server does not know it)."""
    game = games().get(game_id)
    return game.title if game is not None else game_id


def _seats(seats: list[int], joined_by: str = ", ") -> str:
    return joined_by.join(seat_name(seat) for seat in seats)


@dataclass(frozen=True)
class SeatRow:
    """One row of the watch page's seats table."""

    seat: int
    name: str
    house: str
    to_act: bool
    score: str


@dataclass(frozen=True)
class MatchSummary:
    """The watch page's side panel for a spectator: heading, whose turn, seats, outcome."""

    heading: str
    turn: str
    to_act: list[int]
    seats: list[SeatRow]
    ended: bool
    outcome: list[str]
    seed: str | None
    seed_sha256: str

    @classmethod
    def of(cls, match: dict[str, Any]) -> MatchSummary:
        """From a match body as a spectator reads it."""
        status, to_act, outcome = match["status"], match["to_act"], match.get("outcome")
        house = {entry["seat"]: entry["bot"] for entry in match.get("house") or []}
        seats = [
            SeatRow(
                seat,
                seat_name(seat),
                f"house bot: {house[seat]}" if seat in house else "",
                status == "active" and seat in to_act,
                f"{outcome['scores'][seat]} · rank {outcome['ranks'][seat]}" if outcome else "",
            )
            for seat in range(match["players"])
        ]
        return cls(
            heading=f"{game_title(match['game'])} · match {match['match_id']} · version {match['version']}",
            turn=_turn(status, to_act),
            to_act=to_act,
            seats=seats,
            ended=status != "active",
            outcome=_outcome(outcome),
            seed=match.get("seed"),
            seed_sha256=match.get("seed_sha256") or "",
        )


def _turn(status: str, to_act: list[int]) -> str:
    if status == "finished":
        return "The match is over."
    if status == "aborted":
        return "The match was aborted before any move."
    if not to_act:
        return "Nobody is to act."
    return f"To act: {_seats(to_act)}."


def _outcome(outcome: dict[str, Any] | None) -> list[str]:
    if outcome is None:
        return ["No outcome: the match ended before any move."]
    winners = _seats(outcome["winners"], " and ") or "nobody"
    lines = [f"Winners: {winners}."]
    reason = (outcome.get("detail") or {}).get("end_reason")
    if reason:
        lines.append(f"How it ended: {str(reason).replace('_', ' ')}.")
    return lines


@dataclass(frozen=True)
class ListingRow:
    """One row of the landing page's table of matches."""

    match_id: str
    status: str
    game: str
    players: str
    state: str
    moves: int
    updated_at: str
    updated: str

    @classmethod
    def of(cls, summary: dict[str, Any]) -> ListingRow:
        """From a listing entry (``GET /v1/matches``)."""
        house = summary.get("house") or []
        return cls(
            match_id=summary["match_id"],
            status=summary["status"],
            game=game_title(summary["game"]),
            players=f"{summary['players']}" + (f" ({len(house)} house)" if house else ""),
            state=_listed_state(summary["status"], summary["to_act"], summary.get("winners")),
            moves=summary["version"],
            updated_at=summary["updated_at"],
            updated=_when(summary["updated_at"]),
        )


def _listed_state(status: str, to_act: list[int], winners: list[int] | None) -> str:
    if status == "finished" and winners is not None:
        return f"finished (won by {_seats(winners)})" if winners else "finished (no winner)"
    if status == "active" and to_act:
        return f"active ({_seats(to_act)} to act)"
    return status


def _when(iso: str) -> str:
    """``2026-11-26 03:19 UTC``: the script writes it in the reader's own time zone."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%Y-%m-%d %H:%M UTC")
    except ValueError:
        return iso
