"""What the referee answers: a match, a move, a log entry, a listing entry, each as one
caller may see it.

Every body is built here from a match and a game, never from the request, so an answer given
again (a retried move, a stream that resumes) is the same answer. What a caller may see is the
game's business (:meth:`Game.view`, :meth:`Game.visible_events`, :meth:`Game.redact_action`);
this module only decides which view to ask for: the caller's seat, or the spectator's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.clock import Clock
from service.engine import Game
from service.match import Match, Move, Snapshot, seed_commitment
from service.tokens import StateTokens


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat (authenticated by its token) or a spectator (``seat is None``)."""

    seat: int | None


def legal_for(game: Game, state: dict[str, Any], snapshot: Snapshot, seat: int | None) -> list[dict[str, Any]]:
    """``seat``'s legal actions; none once the match is over, whatever the engine says."""
    return [] if snapshot.over or seat is None else game.legal_actions(state, seat)


def history_entry(move: Move, game: Game, caller: Caller, revealed: bool) -> dict[str, Any]:
    """One log entry as ``caller`` may see it (everything once ``revealed``: a finished
    match hides nothing, as at a table when the cards are turned over)."""
    action = move.action
    if action is not None and not revealed:
        action = game.redact_action(action, move.seat, caller.seat)
    entry = {
        "version": move.version,
        "seat": move.seat,
        "kind": move.kind,
        "action": action,
        "events": move.events if revealed else game.visible_events(move.events, caller.seat),
        "at": move.at,
    }
    if move.clock_ms is not None:
        entry["clock_ms"] = move.clock_ms
    return entry


class Answers:
    """The bodies of the referee's answers, with this server's state tokens and clock."""

    def __init__(self, tokens: StateTokens, now_ms: Callable[[], int]) -> None:
        self.tokens = tokens
        self.now_ms = now_ms

    @staticmethod
    def public_fields(match: Match, snapshot: Snapshot) -> dict[str, Any]:
        """The part of every match body that does not depend on who asks."""
        return {
            "match_id": match.match_id,
            "game": match.game_id,
            "players": match.players,
            "status": snapshot.status,
            "version": match.version,
            "to_act": snapshot.to_act,
            "created_at": match.created_at,
            "updated_at": match.updated_at,
        }

    def timing(self, match: Match) -> dict[str, Any]:
        """The ``clock`` (as of now) and ``house`` members every match body carries."""
        clock = None if match.clock is None else Clock.from_record(match.clock).describe(self.now_ms())
        return {"clock": clock, "house": match.house}

    def summary(self, match: Match, snapshot: Snapshot) -> dict[str, Any]:
        """A listing entry: what anyone may know of a match without its view."""
        winners = snapshot.outcome["winners"] if snapshot.outcome is not None else None
        return {**self.public_fields(match, snapshot), "winners": winners, **self.timing(match)}

    def match(self, match: Match, game: Game, snapshot: Snapshot, caller: Caller) -> dict[str, Any]:
        """The match resource as ``caller`` may see it; the seed once the match is over."""
        body: dict[str, Any] = {
            **self.public_fields(match, snapshot),
            "options": match.options,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "seat": caller.seat,
            "view": game.view(match.state, caller.seat),
            "outcome": snapshot.outcome,
            "seed_sha256": seed_commitment(match.seed),
            "seed_supplied": match.seed_supplied,
            **self.timing(match),
        }
        if snapshot.over:
            body["seed"] = match.seed
        return body

    def action(self, match: Match, game: Game, move: Move, state: dict[str, Any], snapshot: Snapshot) -> dict[str, Any]:
        """The answer to ``move`` as its seat sees it, from the ``state`` it produced."""
        return {
            "match_id": match.match_id,
            "game": match.game_id,
            "state_token": self.tokens.mint(match.match_id, move.version),
            "version": move.version,
            "seat": move.seat,
            "kind": move.kind,
            "events": game.visible_events(move.events, move.seat),
            "view": game.view(state, move.seat),
            "legal_actions": legal_for(game, state, snapshot, move.seat),
            "to_act": snapshot.to_act,
            "status": snapshot.status,
            "outcome": snapshot.outcome,
            **self.timing(match),
        }

    def legal_actions(self, match: Match, game: Game, snapshot: Snapshot, caller: Caller) -> dict[str, Any]:
        """The caller's legal actions now, with the state token they belong to."""
        return {
            "match_id": match.match_id,
            "game": match.game_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "to_act": snapshot.to_act,
            "actions": legal_for(game, match.state, snapshot, caller.seat),
        }
