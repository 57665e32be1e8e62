"""A match as the referee keeps it: one JSON record per match in the store.

The record holds everything needed to continue the match on any node: the game and its
options, the engine state, the position of the random stream, the hashes of the seat tokens
and, per seat, the version since which it has owed its pending decision (for simultaneous
decisions; see :meth:`Match.accepts_token_version`). The version itself lives beside the
record in the store, where the compare-and-set guards it.

Each committed move is one :class:`Move` in the match's log. It names the seat, the version of
the state token the move was decided on and the action, which together identify the request:
a client that retries a move whose answer it never got is recognised from the log and gets
the same answer again (:func:`state_after` rebuilds the state of any version from the seed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson

from service.engine import Game, Outcome, Rng


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def seed_commitment(seed_hex: str) -> str:
    """``sha256(seed)``, published from creation on and checkable once the seed is revealed."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


@dataclass
class Match:
    """A decoded match record at one version."""

    match_id: str
    game_id: str
    players: int
    options: dict[str, Any]
    seed: str
    seed_supplied: bool
    seat_hashes: list[str]
    rng: int
    state: dict[str, Any]
    version: int = 0
    pending_since: dict[str, int] = field(default_factory=dict)
    created_at: str = field(default_factory=now_iso)
    updated_at: str = field(default_factory=now_iso)

    @classmethod
    def decode(cls, version: int, record: bytes) -> Match:
        data = orjson.loads(record)
        return cls(version=version, **data)

    def encode(self) -> bytes:
        return orjson.dumps(
            {
                "match_id": self.match_id,
                "game_id": self.game_id,
                "players": self.players,
                "options": self.options,
                "seed": self.seed,
                "seed_supplied": self.seed_supplied,
                "seat_hashes": self.seat_hashes,
                "rng": self.rng,
                "state": self.state,
                "pending_since": self.pending_since,
                "created_at": self.created_at,
                "updated_at": self.updated_at,
            }
        )

    def accepts_token_version(self, token_version: int, seat: int | None, to_act: list[int]) -> bool:
        """Whether a state token of ``token_version`` may act for ``seat`` now.

        The current version always may. An older one may only for a seat that has owed its
        pending decision, without acting, since that version: while several seats owe
        independent decisions (secret choices, answers to the same offer), one seat's move
        must not make the others' tokens stale.
        """
        if token_version == self.version:
            return True
        if seat is None or seat not in to_act or token_version > self.version:
            return False
        return self.pending_since.get(str(seat), self.version) <= token_version

    def advance(self, actor: int, before: list[int], after: list[int]) -> None:
        """Record a committed move by ``actor``: bump the version, carry over the pending
        decisions of seats that still owe the same one."""
        new_version = self.version + 1
        self.pending_since = {
            str(seat): (
                self.pending_since.get(str(seat), self.version)
                if seat in before and seat != actor
                else new_version
            )
            for seat in after
        }
        self.version = new_version
        self.updated_at = now_iso()


def canonical_action(action: dict[str, Any]) -> bytes:
    """The action's JSON with sorted keys: equal for equal actions, and unlike ``==`` it
    tells ``1`` from ``1.0`` and ``true``."""
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


@dataclass(frozen=True)
class Move:
    """One committed move, as the log keeps it: the move that produced ``version``."""

    version: int
    seat: int
    token_version: int | None
    action: dict[str, Any]
    events: list[dict[str, Any]]
    at: str

    def encode(self) -> bytes:
        return orjson.dumps(
            {
                "version": self.version,
                "seat": self.seat,
                "token": self.token_version,
                "action": self.action,
                "events": self.events,
                "at": self.at,
            }
        )

    @classmethod
    def decode(cls, raw: bytes) -> Move:
        data = orjson.loads(raw)
        return cls(
            version=data["version"],
            seat=data["seat"],
            token_version=data.get("token"),
            action=data["action"],
            events=data["events"],
            at=data["at"],
        )

    def is_request(self, seat: int | None, token_version: int, action: dict[str, Any]) -> bool:
        """Whether this move is what ``seat`` asked for with a state token of
        ``token_version`` and ``action``. A seat's token is accepted for at most one of its
        moves, so at most one entry of a log answers a given request."""
        return (
            self.seat == seat
            and self.token_version == token_version
            and canonical_action(self.action) == canonical_action(action)
        )


def state_after(game: Game, match: Match, moves: list[Move]) -> dict[str, Any]:
    """The state after ``moves`` (the log from its start), recomputed from the seed.

    Engines are deterministic and each move starts the random stream where the previous one
    stored it (:meth:`Rng.position`), exactly as the referee did when it applied them.
    """
    rng = Rng(match.seed)
    state = game.setup(match.players, match.options, rng)
    for move in moves:
        rng = Rng(match.seed, rng.position())
        state, _ = game.apply(state, move.seat, move.action, rng)
    return state


@dataclass(frozen=True)
class Snapshot:
    """What one request computes about a match once: whose move, and the result."""

    to_act: list[int]
    outcome: Outcome | None

    @classmethod
    def of(cls, game: Game, state: dict[str, Any]) -> Snapshot:
        return cls(game.to_act(state), game.outcome(state))

    @property
    def status(self) -> str:
        return "finished" if self.outcome is not None else "active"
