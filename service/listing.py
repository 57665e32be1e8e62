"""The listing of matches (``GET /v1/matches``): the most recently updated first, filtered by
game and status, in pages that continue from an opaque cursor.

The store's index only finds candidates (on Redis it cannot share a slot with the matches, so
an entry may be a stale hint); each candidate's record decides what is listed. An entry that
no longer names the match's last update, or whose status has changed, is skipped. A page may
be short, even empty, while ``next_cursor`` is set: after a few store reads the answer says
where to continue rather than scanning on, so a filter that matches little costs bounded work.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from typing import Any

from service.answers import Answers
from service.errors import NotFound, from_store
from service.games import games, get_game
from service.match import Match, Snapshot, epoch_ms
from service.store import ListedMatch, ListFilter, ListPosition, MatchStore
from service.tokens import is_match_id, parse_number

STORE_READS = 4
"""Store reads one listing request makes at most before it answers with a cursor."""

log = logging.getLogger("referee")


def encode_cursor(position: ListPosition) -> str:
    return base64.urlsafe_b64encode(f"{position.updated_ms}.{position.match_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> ListPosition | None:
    """The position ``cursor`` names, or ``None`` if no listing wrote it."""
    if not cursor.isascii() or len(cursor) > 100:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    millis, _, match_id = text.partition(".")
    updated_ms = parse_number(millis)
    if updated_ms is None or not is_match_id(match_id):
        return None
    return ListPosition(updated_ms, match_id)


class Listing:
    """Pages of the matches updated within the last ``window_seconds`` (by ``now_ms``)."""

    def __init__(self, store: MatchStore, answers: Answers, window_seconds: int, now_ms: Callable[[], int]) -> None:
        self.store = store
        self.answers = answers
        self.window_seconds = window_seconds
        self.now_ms = now_ms

    def page(self, game: str | None, status: str | None, after: ListPosition | None, limit: int) -> dict[str, Any]:
        """Up to ``limit`` summaries after ``after``, of one game and/or status if asked,
        and the cursor to continue from (``None`` at the end)."""
        if game is not None and get_game(game) is None:
            raise NotFound("unknown_game", f"No game {game!r}; known: {', '.join(games())}.")
        which = ListFilter(game, status, self.now_ms() - self.window_seconds * 1000)
        matches: list[dict[str, Any]] = []
        position = after
        for _ in range(STORE_READS):
            entries, more = from_store(self.store.list_matches, which, position, limit + 1 - len(matches))
            for entry in entries:
                listed = self._listed(entry)
                if listed is None:
                    continue
                match, snapshot = listed
                if epoch_ms(match.updated_at) != entry.position.updated_ms:
                    continue
                if game not in (None, match.game_id) or status not in (None, snapshot.status):
                    continue
                if len(matches) == limit:
                    return {"matches": matches, "next_cursor": encode_cursor(position) if position else None}
                matches.append(self.answers.summary(match, snapshot))
                position = entry.position
            if more is None:
                return {"matches": matches, "next_cursor": None}
            position = more
        return {"matches": matches, "next_cursor": encode_cursor(position) if position else None}

    @staticmethod
    def _listed(entry: ListedMatch) -> tuple[Match, Snapshot] | None:
        """The match of a listing entry and where it stands; ``None`` (logged) for a record
        that cannot be read or a state its game cannot place (a record written by something
        else), so that one damaged match never fails every listing."""
        try:
            match = Match.decode(entry.version, entry.record, entry.base)
            game = get_game(match.game_id)
            if game is None:
                raise KeyError(f"no game {match.game_id!r}")
            return match, Snapshot.of_match(game, match)
        except (ValueError, TypeError, KeyError, IndexError) as exc:
            log.error("listing skips match %s: its record cannot be read (%r)", entry.position.match_id, exc)
            return None
