"""A match as the referee keeps it: one JSON record per match in the store.

The record holds everything needed to continue the match on any node: the game and its
options, the engine state, the position of the random stream, the hashes of the seat tokens
and, per seat, the version since which it has owed its pending decision (for simultaneous
decisions; see :meth:`Match.accepts_token_version`). The version itself lives beside the
record in the store, where the compare-and-set guards it.

Both are stored compact (:mod:`service.codec`): JSON deflated with a preset dictionary.

Each committed move is one :class:`Move` in the match's log. It names the seat, the version of
the state token the move was decided on and the action, which together identify the request:
a client that retries a move whose answer it never got is recognised from the log and gets
the same answer again (:func:`state_after` rebuilds the state of any version from the seed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

import orjson

from service import codec
from service.engine import Game, Outcome, Rng
from service.games import get_game


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def epoch_ms(iso: str) -> int:
    """A time written by :func:`now_iso` in epoch milliseconds (the listing's order)."""
    return round(datetime.fromisoformat(iso).timestamp() * 1000)


def seed_commitment(seed_hex: str) -> str:
    """``sha256(seed)``, published from creation on and checkable once the seed is revealed."""
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


REBASE_ABOVE = 256
"""The largest delta a move writes; a record that differs more from the base becomes the new
base. Lower rebases more often (each rebase writes the whole record, 350–950 bytes); higher
lets deltas grow. At 256, moves write 100–260 bytes on average (bench/README.md)."""


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
    clock: dict[str, Any] | None = None
    house: list[dict[str, Any]] = field(default_factory=list)
    ended: dict[str, Any] | None = None

    #: The JSON of the match's base record, which :meth:`encode_delta` writes the record
    #: against (``None`` until one is loaded or written); not stored in the record itself.
    base_json: bytes | None = field(default=None, init=False, repr=False, compare=False)
    #: The base record as stored (compact), beside :attr:`base_json`.
    base_record: bytes | None = field(default=None, init=False, repr=False, compare=False)
    #: The identity of the stored record this match was read from or last committed as
    #: (:attr:`service.store.Loaded.identity`): its next commit succeeds only if the store
    #: still holds that very record. Not stored in the record itself.
    identity: bytes = field(default=b"", init=False, repr=False, compare=False)

    @classmethod
    def decode(cls, version: int, record: bytes, base: bytes | None = None, identity: bytes = b"") -> Match:
        """The match from its stored record, for a record stored as a delta its base, and
        the record's identity.

        The engine state comes out in the form its game reads now, whichever version of the
        engine stored it (:meth:`Game.upgrade_state`).
        """
        base_json = codec.inflate_base(base) if base is not None else None
        match = cls(version=version, **codec.decode(record, base_json))
        game = get_game(match.game_id)
        if game is not None:  # a game no longer served: the referee refuses the match by its id
            match.state = game.upgrade_state(match.state)
        match.base_json = base_json
        match.base_record = base
        match.identity = identity
        return match

    def encode(self) -> bytes:
        """The record on its own, as a new match is stored."""
        return codec.compress("record", self._json())

    def encode_delta(self) -> tuple[bytes, bytes | None]:
        """The record as a move commits it, and the new base record if it needs one.

        Most moves change a little of the record: it is written as a delta against the
        base (:func:`service.codec.delta`), a few hundred bytes at most. When the delta would
        be larger than :data:`REBASE_ABOVE` (or there is no base yet), this record becomes
        the new base, written whole once, and the record one byte saying so.
        """
        text = self._json()
        if self.base_json is not None:
            record = codec.delta(text, self.base_json)
            if len(record) <= REBASE_ABOVE:
                return record, None
        self.base_json = text
        self.base_record = codec.compress("record", text)
        return codec.delta(text, text), self.base_record

    def _json(self) -> bytes:
        """Every field given at construction but the version, which the store keeps beside
        the record (where its compare-and-set reads it)."""
        return orjson.dumps({name: getattr(self, name) for name in _RECORD_FIELDS})

    def house_bot(self, seat: int) -> str | None:
        """The built-in bot that plays ``seat`` for the house, or ``None`` for a client's seat."""
        return next((h["bot"] for h in self.house if h["seat"] == seat), None)

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

    def advance(self, actor: int, before: list[int], after: list[int], at: str | None = None) -> None:
        """Record a committed move by ``actor``: bump the version, carry over the pending
        decisions of seats that still owe the same one. ``at`` is when it happened (now,
        unless the referee applies a timeout that happened earlier)."""
        new_version = self.version + 1
        self.pending_since = {
            str(seat): (
                self.pending_since.get(str(seat), self.version) if seat in before and seat != actor else new_version
            )
            for seat in after
        }
        self.version = new_version
        self.updated_at = at or now_iso()


def canonical_action(action: dict[str, Any]) -> bytes:
    """The action's JSON with sorted keys: equal for equal actions, and unlike ``==`` it
    tells ``1`` from ``1.0`` and ``true``."""
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


_RECORD_FIELDS = tuple(f.name for f in fields(Match) if f.init and f.name != "version")
"""What :meth:`Match._json` writes: every field given at construction but the version."""


KINDS = ("move", "house", "auto", "timeout", "resign", "abort")
"""Who made a log entry: ``move`` a seat itself, ``house`` a house seat's bot, ``auto`` the
referee for a seat whose time ran out (a random legal action from the match's Rng), and the
entries that end a match without an action: ``timeout`` (a forfeit on time), ``resign``,
``abort``."""

ENDING_KINDS = {"timeout": "timeout", "resign": "resigned", "abort": "aborted"}
"""Entry kinds that end the match, with the ``end_reason`` they give."""

ENDING_EVENTS = {"timeout": "timed_out", "resign": "resigned", "abort": "aborted"}
"""The one event each ending entry logs: ``{"type": <this>, "seat": <its seat>}``."""


@dataclass(frozen=True)
class Move:
    """One log entry, the one that produced ``version``: mostly a move; see :data:`KINDS`.

    ``action`` is ``None`` for the kinds that end a match without one; ``clock_ms`` is what
    each seat had left right after the entry, for timed matches.
    """

    version: int
    seat: int
    token_version: int | None
    action: dict[str, Any] | None
    events: list[dict[str, Any]]
    at: str
    kind: str = "move"
    clock_ms: list[int] | None = None

    def encode(self) -> bytes:
        entry: dict[str, Any] = {
            "version": self.version,
            "seat": self.seat,
            "token": self.token_version,
            "kind": self.kind,
            "action": self.action,
            "events": self.events,
            "at": self.at,
        }
        if self.clock_ms is not None:
            entry["clock_ms"] = self.clock_ms
        return codec.encode("entry", entry)

    @classmethod
    def decode(cls, raw: bytes) -> Move:
        data = codec.decode(raw)
        return cls(
            version=data["version"],
            seat=data["seat"],
            token_version=data.get("token"),
            action=data["action"],
            events=data["events"],
            at=data["at"],
            kind=data.get("kind", "move"),
            clock_ms=data.get("clock_ms"),
        )

    def is_request(self, seat: int | None, token_version: int, action: dict[str, Any]) -> bool:
        """Whether this move is what ``seat`` asked for with a state token of
        ``token_version`` and ``action``. A seat's token is accepted for at most one of its
        moves, so at most one entry of a log answers a given request."""
        return (
            self.seat == seat
            and self.kind == "move"
            and self.token_version == token_version
            and self.action is not None
            and canonical_action(self.action) == canonical_action(action)
        )


def step(game: Game, match: Match, state: dict[str, Any], rng: int, move: Move) -> tuple[dict[str, Any], int]:
    """``move`` applied to ``state`` (which the engine changes) with the random stream at
    ``rng``, as the referee applied it: the state after it and the stream's position."""
    if move.action is None:
        return state, rng  # a timeout that forfeited, a resignation or an abort: no action
    random = Rng(match.seed, rng)
    if move.kind == "auto":
        auto_action(game, state, move.seat, random)
    state, _ = game.apply(state, move.seat, move.action, random)
    return state, random.position()


def replay(game: Game, match: Match, moves: list[Move]) -> tuple[dict[str, Any], int]:
    """The state after ``moves`` (the log from its start), recomputed from the seed, and the
    random stream's position there.

    Engines are deterministic and each move starts the random stream where the previous one
    stored it (:meth:`Rng.position`), exactly as the referee did when it applied them.
    """
    random = Rng(match.seed)
    state, rng = game.setup(match.players, match.options, random), random.position()
    for move in moves:
        state, rng = step(game, match, state, rng, move)
    return state, rng


def state_after(game: Game, match: Match, moves: list[Move]) -> dict[str, Any]:
    """The state after ``moves`` (the log from its start), recomputed from the seed."""
    return replay(game, match, moves)[0]


def auto_action(game: Game, state: dict[str, Any], seat: int, rng: Rng) -> dict[str, Any]:
    """The action the referee plays for ``seat`` when its time runs out: a uniformly random
    legal one, drawn from the match's own stream (then applied with the same ``rng``), so a
    replay from the revealed seed draws the very same one."""
    return rng.choice(game.legal_actions(state, seat))


def ended_outcome(game: Game, players: int, ended: dict[str, Any]) -> Outcome:
    """The outcome of a match that a seat's timeout or resignation ended before its rules did.

    That seat is ranked last and every other seat shares rank 1; they win, except in a
    cooperative game, which the whole table loses. There are no scores (the rules did not
    score the match): every score is 0 and ``detail`` says why.
    """
    seat = ended["seat"]
    others = [s for s in range(players) if s != seat]
    return {
        "scores": [0] * players,
        "ranks": [players if s == seat else 1 for s in range(players)],
        "winners": [] if game.cooperative else others,
        "detail": {
            "end_reason": ended["reason"],
            "seat": seat,
            "score_means": f"no scores: the match ended ({ended['reason']}) before its rules scored it",
        },
    }


@dataclass(frozen=True)
class Snapshot:
    """What one request computes about a match once: whose move, the result, the status.

    A match ended by the referee (a timeout, a resignation, an abort: ``Match.ended``) is over
    whatever its engine state says: nobody owes a decision and its outcome is the referee's.
    """

    to_act: list[int]
    outcome: Outcome | None
    aborted: bool = False

    @classmethod
    def of(cls, game: Game, state: dict[str, Any], ended: dict[str, Any] | None = None, players: int = 0) -> Snapshot:
        if ended is None:
            return cls(game.to_act(state), game.outcome(state))
        if ended["reason"] == "aborted":
            return cls([], None, aborted=True)
        return cls([], ended_outcome(game, players, ended))

    @classmethod
    def of_match(cls, game: Game, match: Match) -> Snapshot:
        return cls.of(game, match.state, match.ended, match.players)

    @property
    def status(self) -> str:
        if self.aborted:
            return "aborted"
        return "finished" if self.outcome is not None else "active"

    @property
    def over(self) -> bool:
        """Finished or aborted: the seed is revealed and the history unredacted."""
        return self.aborted or self.outcome is not None
