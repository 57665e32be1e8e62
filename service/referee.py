"""The one place that turns (state token, seat, action) into a committed new state.

The referee loads the match, authenticates the seat, checks the state token, asks the game
engine to check and apply the action, and commits the result with the store's
compare-and-set. It needs nothing between requests: any process can serve any request. A
node does keep the last record it saw of recently active matches (:mod:`service.cache.process`)
so that a move on the version it knows skips the read; the compare-and-set still decides.

It also acts on its own, always through the same compare-and-set, so that whoever gets there
first applies a thing exactly once: every request on a timed match first applies the
deadlines that passed (:meth:`Referee.settle`: an ``auto`` move or a forfeit), and a house
seat's turn is played by its bot (:meth:`Referee.play_house`) right after the commit that made
it due, in the background. The sweeper (:mod:`service.live.sweeper`) does both for matches nobody
touches, found through the store's due index, which every commit keeps up to date.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service import codec
from service.api import metrics
from service.api.problems import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    Problem,
    Unauthorized,
    Unavailable,
    Unprocessable,
)
from service.bots.registry import make_bot
from service.cache.process import MatchCache, RecordCache
from service.clock import Clock, TimeControl, iso_ms, wall_ms
from service.engine import (
    EngineError,
    Game,
    IllegalAction,
    InvalidOptions,
    NotYourTurn,
    Outcome,
    Rng,
)
from service.games import games, get_game
from service.listing import encode_cursor
from service.match import (
    ENDING_EVENTS,
    ENDING_KINDS,
    Match,
    Move,
    Snapshot,
    auto_action,
    epoch_ms,
    seed_commitment,
    state_after,
)
from service.store import (
    CommitResult,
    Listed,
    ListedMatch,
    ListFilter,
    ListPosition,
    Loaded,
    MatchDamaged,
    MatchStore,
    StoreUnavailable,
)
from service.tokens import SeatTokens, StateTokens, hash_seat_token, is_match_id, new_match_id, seat_of

_COMMIT_ATTEMPTS = 4

#: Attempts of an entry the referee makes on its own (resign, abort, a house move) before it
#: gives up: each lost compare-and-set means the match moved on, so this bounds a busy match.
_OWN_ATTEMPTS = 64

HOUSE_GRACE_MS = 1000
"""How long after the commit that made a house seat due the due index points the sweepers at
it: the node that committed plays it at once, the sweepers only if that node did not."""

#: Log entries read per round trip while looking for a retried move.
_RETRY_SEARCH_PAGE = 32

#: Store reads one listing request makes at most; past them it answers a short page with a
#: cursor, so a filter that matches little costs bounded work per request.
_LISTING_READS = 4

log = logging.getLogger("referee")


@dataclass(frozen=True)
class Caller:
    """Who is asking: a seat (authenticated by its token) or a spectator (``seat is None``)."""

    seat: int | None


@dataclass(frozen=True)
class ActionResult:
    """The answer to an accepted action, and whether it replays an earlier answer."""

    body: dict[str, Any]
    game: str
    replayed: bool = False


def stored_idempotency_key(bearer: str, idempotency_key: str) -> str:
    """What the store keeps for a client's ``Idempotency-Key``: scoped by the bearer, so one
    seat's key never replays another seat's answer, and short, since a match keeps one per
    keyed move (72 bits of SHA-256 in 12 characters; two keys of one match that collided
    could only make a retry a 422, never give it another request's answer: the log entry
    is checked against the request)."""
    digest = hashlib.sha256(f"{bearer}\n{idempotency_key}".encode()).digest()[:9]
    return base64.urlsafe_b64encode(digest).decode()


def spawn_thread(work: Callable[[], None]) -> None:
    """Run ``work`` in the background: a thread, which is a greenlet in a gevent worker (the
    worker patches ``threading``), so the answer that triggered it is not delayed."""
    threading.Thread(target=work, daemon=True, name="referee-house").start()


class Referee:
    """Matches over a store, with the server secret's state and seat tokens.

    ``now_ms`` is the clock of timed matches (epoch milliseconds; faked in tests) and
    ``spawn`` runs house turns in the background (:func:`spawn_thread`).
    """

    def __init__(
        self,
        store: MatchStore,
        tokens: StateTokens,
        seat_tokens: SeatTokens,
        match_ttl: int,
        cache: RecordCache | None = None,
        listing_window: int = 24 * 3600,
        now_ms: Callable[[], int] = wall_ms,
        spawn: Callable[[Callable[[], None]], None] = spawn_thread,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.seat_tokens = seat_tokens
        self.match_ttl = match_ttl
        self.cache: RecordCache = cache if cache is not None else MatchCache(0)
        self.listing_window = listing_window
        self.now_ms = now_ms
        self.spawn = spawn
        self._house_lock = threading.Lock()
        self._house_loops: dict[str, bool] = {}
        """Matches whose house turns a loop of this process plays, and whether another
        commit asked for it while it ran (so it looks once more before it stops)."""

    # -- creating --------------------------------------------------------------------------

    def create_match(
        self,
        game_id: str,
        players: int,
        options: dict[str, Any] | None,
        seed: str | None,
        clock: dict[str, Any] | None = None,
        house: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Set up a new match; the answer carries the token of each seat that is not the
        house's, shown only here. ``clock`` starts at once for the seats that owe the first
        decision; a house seat that owes it is played right away."""
        game = self.game(game_id)
        try:
            resolved = game.resolve_options(players, options)
        except InvalidOptions as exc:
            raise Unprocessable(exc.code, exc.message) from exc
        house_seats = self._check_house(players, house or [])
        now_ms = self.now_ms()
        seed_hex = seed if seed is not None else secrets.token_hex(32)
        rng = Rng(seed_hex)
        state = game.setup(players, resolved, rng)
        match_id = new_match_id()
        seat_tokens = [self.seat_tokens.mint(match_id, seat) for seat in range(players)]
        match = Match(
            match_id=match_id,
            game_id=game.id,
            players=players,
            options=resolved,
            seed=seed_hex,
            seed_supplied=seed is not None,
            seat_hashes=[hash_seat_token(t) for t in seat_tokens],
            rng=rng.position(),
            state=state,
            created_at=iso_ms(now_ms),
            updated_at=iso_ms(now_ms),
            house=house_seats,
        )
        snapshot = Snapshot.of(game, state)
        match.pending_since = {str(s): 0 for s in snapshot.to_act}
        if clock is not None:
            match.clock = Clock.start(TimeControl.from_request(clock), players, snapshot.to_act, now_ms).to_record()
        due_ms = self._due_ms(match, snapshot, now_ms)
        record = match.encode()
        listed = self._listed(match, snapshot)
        if not self._store(
            lambda: self.store.create(match.match_id, record, self.match_ttl, listed=listed, due_ms=due_ms)
        ):
            raise Unavailable("match_id_collision", "Could not allocate a match id; try again.")
        self.cache.remember(match.match_id, Loaded(0, record))
        self.start_house(match, snapshot)
        body = self.describe(match, game, snapshot, Caller(None))
        body["seats"] = [{"seat": s, "token": t} for s, t in enumerate(seat_tokens) if match.house_bot(s) is None]
        return body

    @staticmethod
    def _check_house(players: int, house: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The house seats, sorted; each a seat of the match, at most once."""
        seats = [h["seat"] for h in house]
        if len(set(seats)) != len(seats) or any(not 0 <= s < players for s in seats):
            raise Unprocessable(
                "invalid_house",
                f"House seats must be distinct seats of the match (0 to {players - 1}); got {seats}.",
            )
        return sorted(({"seat": h["seat"], "bot": h["bot"]} for h in house), key=lambda h: h["seat"])

    # -- reading ---------------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        game = get_game(game_id)
        if game is None:
            raise NotFound("unknown_game", f"No game {game_id!r}; known: {', '.join(games())}.")
        return game

    def load(self, match_id: str) -> Match:
        """The match as the store has it now."""
        loaded = self._read(match_id)
        return Match.decode(loaded.version, loaded.record, loaded.base)

    def _read(self, match_id: str, idempotency_key: str | None = None) -> Loaded:
        """The match's record as the store has it now (kept in the cache, being the newest
        known), and the version ``idempotency_key`` produced if it was used."""
        if not is_match_id(match_id):
            raise NotFound("unknown_match", f"No match {match_id!r}.")
        loaded = self._store(lambda: self.store.load(match_id, idempotency_key))
        if loaded is None:
            self.cache.forget(match_id)
            raise NotFound("unknown_match", f"No match {match_id!r} (it may have expired).")
        self.cache.remember(match_id, loaded)
        return loaded

    def caller(self, match: Match, bearer: str | None) -> Caller:
        """The seat a bearer token belongs to; no token is a spectator."""
        if bearer is None:
            return Caller(None)
        seat = seat_of(bearer, match.seat_hashes)
        if seat is None:
            raise Unauthorized("bad_credentials", "This bearer token is not a seat of this match.")
        return Caller(seat)

    def current(self, match_id: str) -> tuple[Match, Game]:
        """The match as it is now: loaded, with every deadline that passed applied."""
        match = self.load(match_id)
        game = self.game(match.game_id)
        return self.settle(match, game, self.now_ms()), game

    def get_match(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, game = self.current(match_id)
        return self.describe(match, game, Snapshot.of_match(game, match), self.caller(match, bearer))

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

    def summary(self, match: Match, snapshot: Snapshot) -> dict[str, Any]:
        """A listing entry: what anyone may know of a match without its view."""
        winners = snapshot.outcome["winners"] if snapshot.outcome is not None else None
        return {**self.public_fields(match, snapshot), "winners": winners, **self._timing(match)}

    def describe(self, match: Match, game: Game, snapshot: Snapshot, caller: Caller) -> dict[str, Any]:
        """The match resource as ``caller`` may see it."""
        body: dict[str, Any] = {
            **self.public_fields(match, snapshot),
            "options": match.options,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "seat": caller.seat,
            "view": game.view(match.state, caller.seat),
            "outcome": snapshot.outcome,
            "seed_sha256": seed_commitment(match.seed),
            "seed_supplied": match.seed_supplied,
            **self._timing(match),
        }
        if snapshot.over:
            body["seed"] = match.seed
        return body

    def list_matches(
        self, game: str | None, status: str | None, after: ListPosition | None, limit: int
    ) -> dict[str, Any]:
        """A page of the listing: matches updated within the listing window, the most
        recently updated first, of one game and/or status if asked.

        The store's index finds candidates; each one's record decides (an entry that no
        longer names the match's last update, or whose status has changed, is skipped). A
        page may be short, even empty, while ``next_cursor`` is set: after a few store reads
        the answer says where to continue rather than scanning on.
        """
        if game is not None:
            self.game(game)
        which = ListFilter(game, status, int(time.time() * 1000) - self.listing_window * 1000)
        matches: list[dict[str, Any]] = []
        position = after
        for _ in range(_LISTING_READS):
            entries, more = self._store(lambda: self.store.list_matches(which, position, limit + 1 - len(matches)))
            for entry in entries:
                match = self._listed_match(entry)
                if match is None or epoch_ms(match.updated_at) != entry.position.updated_ms:
                    continue
                if game not in (None, match.game_id):
                    continue
                snapshot = Snapshot.of_match(self.game(match.game_id), match)
                if status not in (None, snapshot.status):
                    continue
                if len(matches) == limit:
                    return {"matches": matches, "next_cursor": encode_cursor(position)}
                matches.append(self.summary(match, snapshot))
                position = entry.position
            if more is None:
                return {"matches": matches, "next_cursor": None}
            position = more
        return {"matches": matches, "next_cursor": encode_cursor(position)}

    @staticmethod
    def _listed_match(entry: ListedMatch) -> Match | None:
        """The match of a listing entry; ``None`` (logged) for a record that cannot be read,
        so that one damaged match never fails every listing."""
        try:
            return Match.decode(entry.version, entry.record, entry.base)
        except (ValueError, TypeError, KeyError) as exc:
            log.error("listing skips match %s: its record cannot be read (%s)", entry.position.match_id, exc)
            return None

    @staticmethod
    def _listed(match: Match, snapshot: Snapshot) -> Listed:
        return Listed(match.game_id, snapshot.status, epoch_ms(match.updated_at))

    def _timing(self, match: Match) -> dict[str, Any]:
        """The ``clock`` (as of now) and ``house`` members every match body carries."""
        clock = None if match.clock is None else Clock.from_record(match.clock).describe(self.now_ms())
        return {"clock": clock, "house": match.house}

    def legal_actions(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, game = self.current(match_id)
        caller = self._seat_required(match, bearer)
        snapshot = Snapshot.of_match(game, match)
        return {
            "match_id": match.match_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "to_act": snapshot.to_act,
            "actions": self._legal(game, match.state, snapshot, caller.seat),
        }

    @staticmethod
    def _legal(game: Game, state: dict[str, Any], snapshot: Snapshot, seat: int | None) -> list[dict[str, Any]]:
        """``seat``'s legal actions; none once the match is over, whatever the engine says."""
        return [] if snapshot.over or seat is None else game.legal_actions(state, seat)

    def history(self, match_id: str, bearer: str | None, cursor: int, limit: int) -> dict[str, Any]:
        """The action log from ``cursor`` on, redacted for the caller while the match runs.

        Once it is finished nothing is hidden any more, as at a table when the cards are
        turned over: the seed is revealed, so every hand could be recomputed anyway.
        """
        match, game = self.current(match_id)
        caller = self.caller(match, bearer)
        revealed = Snapshot.of_match(game, match).over
        total = self._store(lambda: self.store.history_length(match_id))
        raw = self._store(lambda: self.store.history(match_id, cursor, cursor + limit))
        entries = [self.history_entry(Move.decode(item), game, caller, revealed) for item in raw]
        end = cursor + len(entries)
        return {
            "match_id": match_id,
            "total": total,
            "entries": entries,
            "next_cursor": end if end < total else None,
        }

    @staticmethod
    def history_entry(move: Move, game: Game, caller: Caller, revealed: bool) -> dict[str, Any]:
        """One log entry as ``caller`` may see it (everything once ``revealed``)."""
        hide = not revealed and move.action is not None
        entry = {
            "version": move.version,
            "seat": move.seat,
            "kind": move.kind,
            "action": game.redact_action(move.action, move.seat, caller.seat) if hide else move.action,
            "events": move.events if revealed else game.visible_events(move.events, caller.seat),
            "at": move.at,
        }
        if move.clock_ms is not None:
            entry["clock_ms"] = move.clock_ms
        return entry

    def read_log(self, match_id: str, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop - 1`` as stored (503 if the store cannot answer)."""
        return self._store(lambda: self.store.history(match_id, start, stop))

    def finished_log(self, match_id: str) -> tuple[Match, Game, Outcome, list[dict[str, Any]]]:
        """A finished match, its game, its outcome and its whole action log, unredacted (for
        its replay).

        :raises Conflict: ``match_not_finished`` while the match runs (its seed is secret),
            ``match_aborted`` for an aborted match (nothing was played: no replay).
        """
        match, game = self.current(match_id)
        snapshot = Snapshot.of_match(game, match)
        if snapshot.aborted:
            raise Conflict("match_aborted", "The match was aborted before anyone moved; it has no replay.")
        if snapshot.outcome is None:
            raise Conflict(
                "match_not_finished",
                f"The match is at version {match.version} and still running; its replay exists once it is finished.",
                current_version=match.version,
            )
        raw = self._store(lambda: self.store.history(match_id, 0, match.version))
        return match, game, snapshot.outcome, [codec.decode(item) for item in raw]

    # -- acting ----------------------------------------------------------------------------

    def act(
        self,
        match_id: str,
        bearer: str | None,
        state_token: str,
        action: dict[str, Any],
        idempotency_key: str | None = None,
    ) -> ActionResult:
        """Apply ``action`` for the bearer's seat and commit it.

        A request that was already applied gets its first answer again, whether the client
        sends an ``Idempotency-Key`` or simply retries the same body after a 503 or a lost
        connection: the log entry of the move names its seat, state-token version and
        action. A race between submissions of one token lets exactly one win.
        """
        self._require_bearer(bearer)
        token = self._verify_token(match_id, state_token)
        idem = stored_idempotency_key(bearer, idempotency_key) if idempotency_key is not None else None
        # A record from this process's cache is only a hint: it may lead to a commit, which
        # the compare-and-set confirms or refutes, but every refusal is decided on the
        # store's record, so an answer never depends on whether the cache was behind.
        current = self._cached(match_id, token.version)
        hinted = current is not None
        for _ in range(_COMMIT_ATTEMPTS):
            now_ms = self.now_ms()
            if current is None:
                current, hinted = self._read(match_id, idem), False
            match = Match.decode(current.version, current.record, current.base)
            if hinted and self._deadline_passed(match, now_ms):
                # A deadline to apply first: that is a write, decided on the store's record.
                current, hinted = self._read(match_id, idem), False
                match = Match.decode(current.version, current.record, current.base)
            try:
                decided = self._decide(match, bearer, token.version, action, current.idempotent_version, now_ms)
            except Problem:
                if not hinted:
                    raise
                current = None
                continue
            if isinstance(decided, ActionResult):
                return decided
            match, move, snapshot, expected = decided
            result = self._commit(match, snapshot, expected, move, now_ms, idem)
            if result.committed:
                game = self.game(match.game_id)
                return ActionResult(self._action_answer(match, game, move, match.state, snapshot), match.game_id)
            if result.current is None:
                self.cache.forget(match_id)
                raise NotFound("unknown_match", f"No match {match_id!r} (it may have expired).")
            if hinted:
                metrics.sample(metrics.MATCH_CACHE, "stale").inc()
            self.cache.remember(match_id, result.current)
            current, hinted = result.current, False
        # The last compare-and-set lost: maybe to this very request, retried by the store
        # client after a dropped reply.
        match = self.load(match_id)
        caller = self._seat_required(match, bearer)
        return self._answer_again_or_stale(match, self.game(match.game_id), caller, token.version, action)

    def _cached(self, match_id: str, version: int) -> Loaded | None:
        """The match at ``version`` from this node's cache, if it has it there; counted as a
        hit or a miss (a hit the store then refutes is counted stale too)."""
        found = self.cache.record(match_id, version)
        metrics.sample(metrics.MATCH_CACHE, "hit" if found is not None else "miss").inc()
        return found

    def _decide(
        self,
        match: Match,
        bearer: str | None,
        token_version: int,
        action: dict[str, Any],
        produced: int | None,
        now_ms: int,
    ) -> ActionResult | tuple[Match, Move, Snapshot, int]:
        """Check the request on ``match``: the earlier answer if it was already applied (or
        :class:`Problem` if it cannot be), else the match with the move applied in place, the
        move, and the version it commits over.

        Deadlines that passed are applied first (:meth:`settle`, each its own committed
        entry), so a move made after its seat's time ran out is refused."""
        caller = self._seat_required(match, bearer)
        game = self.game(match.game_id)
        if produced is not None:
            return self._answer_keyed_again(match, game, caller, token_version, action, produced)
        match = self.settle(match, game, now_ms)
        if match.ended is not None:
            return self._answer_again_or_over(match, game, caller, token_version, action)
        if not match.accepts_token_version(token_version, caller.seat, game.to_act(match.state)):
            return self._answer_again_or_stale(match, game, caller, token_version, action)
        expected = match.version
        try:
            move, snapshot = self._play(
                match, game, caller.seat, action, Rng(match.seed, match.rng), now_ms, "move", token_version
            )
        except NotYourTurn as exc:
            raise Forbidden(exc.code, exc.message, rule=exc.rule) from exc
        except IllegalAction as exc:
            raise self._illegal(exc) from exc
        return match, move, snapshot, expected

    @staticmethod
    def _deadline_passed(match: Match, now_ms: int) -> bool:
        """Whether a seat's time ran out by ``now_ms`` in ``match`` (an entry to apply)."""
        return (
            match.clock is not None
            and match.ended is None
            and Clock.from_record(match.clock).expired(now_ms) is not None
        )

    def validate(self, match_id: str, bearer: str | None, state_token: str, action: dict[str, Any]) -> dict[str, Any]:
        """Whether ``action`` would be accepted now, with the reason if not; changes nothing."""
        self._require_bearer(bearer)
        token = self._verify_token(match_id, state_token)
        match, game = self.current(match_id)
        caller = self._seat_required(match, bearer)
        to_act = game.to_act(match.state)
        self._check_token_version(match, token.version, caller, to_act)
        answer: dict[str, Any] = {
            "match_id": match.match_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "legal": True,
        }
        if match.ended is not None:
            over = self._over(match)
            return answer | {"legal": False, "code": over.code, "detail": over.detail, "rule": None}
        try:
            game.check(match.state, caller.seat, action)
        except EngineError as exc:
            answer.update(legal=False, code=exc.code, detail=exc.message, rule=exc.rule)
        return answer

    # -- ending a match --------------------------------------------------------------------

    def resign(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        """The bearer's seat gives up: it is ranked last (in a cooperative game the table
        loses). Answers as an action does, from the resigning seat's point of view."""
        match, game, _, move, snapshot = self._end_by_seat(match_id, bearer, "resign")
        return self._action_answer(match, game, move, match.state, snapshot)

    def abort(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        """Call off a match nobody has moved in yet (any seat may): it ends with no outcome
        and its seed is revealed. Answers the match resource as the bearer's seat sees it."""
        match, game, caller, _, snapshot = self._end_by_seat(match_id, bearer, "abort")
        return self.describe(match, game, snapshot, caller)

    def _end_by_seat(self, match_id: str, bearer: str | None, kind: str) -> tuple[Match, Game, Caller, Move, Snapshot]:
        """Commit the bearer seat's ``resign`` or ``abort``; the match, its entry and after."""
        self._require_bearer(bearer)
        for _ in range(_OWN_ATTEMPTS):
            now_ms = self.now_ms()
            match, game = self.current(match_id)
            caller = self._seat_required(match, bearer)
            self._refuse_if_over(match, game)
            if kind == "abort" and match.version > 0:
                raise Conflict(
                    "match_started",
                    f"The match is at version {match.version}: only a match nobody has moved in may be aborted; "
                    "resign instead.",
                    current_version=match.version,
                )
            expected = match.version
            move, snapshot = self._end(match, game, caller.seat, kind, now_ms)
            if self._commit(match, snapshot, expected, move, now_ms).committed:
                return match, game, caller, move, snapshot
        raise self._busy()

    def _refuse_if_over(self, match: Match, game: Game) -> None:
        snapshot = Snapshot.of_match(game, match)
        if snapshot.over:
            raise (
                self._over(match)
                if match.ended is not None
                else Conflict("match_over", "The match is finished.", current_version=match.version)
            )

    def _over(self, match: Match) -> Conflict:
        ended = match.ended or {}
        return Conflict(
            "match_over",
            f"The match is over at version {match.version} (end reason {ended.get('reason')!r}, seat {ended.get('seat')}).",
            current_state_token=self.tokens.mint(match.match_id, match.version),
            current_version=match.version,
        )

    @staticmethod
    def _busy() -> Unavailable:
        return Unavailable("store_unavailable", "The match keeps moving under this request; retry shortly.")

    # -- the referee's own entries: timeouts, house turns ----------------------------------

    def settle(self, match: Match, game: Game, now_ms: int) -> Match:
        """``match`` with every deadline that passed by ``now_ms`` applied, each as its own
        entry through the compare-and-set (so exactly once, whoever applies it first).

        A seat whose clock ran out forfeits, or under ``auto`` gets a random legal action
        played for it, stamped at its deadline: the next seat's clock starts then, so a late
        sweep changes nothing but when it is seen. Several may be due at once (a match nobody
        touched for a while); they are applied in the order they fell due.
        """
        while match.clock is not None and match.ended is None:
            clock = Clock.from_record(match.clock)
            expiry = clock.expired(now_ms)
            if expiry is None:
                break
            expected = match.version
            if clock.times_out_for_good(expiry.seat):
                move, snapshot = self._end(match, game, expiry.seat, "timeout", expiry.at_ms)
            else:
                rng = Rng(match.seed, match.rng)
                action = auto_action(game, match.state, expiry.seat, rng)
                move, snapshot = self._play(match, game, expiry.seat, action, rng, expiry.at_ms, "auto", None)
            if not self._commit(match, snapshot, expected, move, now_ms).committed:
                match = self.load(match.match_id)
        return match

    def play_house(self, match_id: str) -> None:
        """Play every house turn that is due, until a client's seat owes the decision or the
        match is over. Each move goes through the compare-and-set, so when a sweeper of
        another node plays the same turn, one of them wins and the other moves on."""
        while True:
            try:
                match, game = self.current(match_id)
            except NotFound:
                return
            snapshot = Snapshot.of_match(game, match)
            seat = next((s for s in snapshot.to_act if match.house_bot(s) is not None), None)
            if seat is None:
                return
            bot = make_bot(game.id, match.house_bot(seat) or "random")
            # Seeded by the match: a node that plays the same turn again chooses the same.
            chooser = random.Random(f"{match.seed}:{match.version}:{seat}")
            action = bot.choose(game.view(match.state, seat), game.legal_actions(match.state, seat), chooser)
            now_ms = self.now_ms()
            expected = match.version
            move, snapshot = self._play(
                match, game, seat, action, Rng(match.seed, match.rng), now_ms, "house", expected
            )
            self._commit(match, snapshot, expected, move, now_ms)

    def start_house(self, match: Match, snapshot: Snapshot) -> None:
        """Start playing the house's turn in the background when one is due, unless a loop
        of this process already plays this match (then it looks once more before stopping)."""
        if not any(match.house_bot(s) is not None for s in snapshot.to_act):
            return
        with self._house_lock:
            if match.match_id in self._house_loops:
                self._house_loops[match.match_id] = True
                return
            self._house_loops[match.match_id] = False
        self.spawn(lambda: self._house_loop(match.match_id))

    def _house_loop(self, match_id: str) -> None:
        while True:
            try:
                self.play_house(match_id)
            except Exception:
                log.exception("playing the house's turns in match %s failed", match_id)
            with self._house_lock:
                if not self._house_loops.get(match_id):
                    self._house_loops.pop(match_id, None)
                    return
                self._house_loops[match_id] = False

    def house_running(self, match_id: str) -> bool:
        """Whether a loop of this process is playing ``match_id``'s house turns now."""
        with self._house_lock:
            return match_id in self._house_loops

    def _play(
        self,
        match: Match,
        game: Game,
        seat: int,
        action: dict[str, Any],
        rng: Rng,
        at_ms: int,
        kind: str,
        token_version: int | None,
    ) -> tuple[Move, Snapshot]:
        """Apply ``action`` for ``seat`` to ``match`` (in place) and return its log entry.

        :raises EngineError: when the rules refuse it; ``match`` is then unchanged.
        """
        before = game.to_act(match.state)
        state, events = game.apply(match.state, seat, action, rng)
        snapshot = Snapshot.of(game, state)
        match.state, match.rng = state, rng.position()
        clock_ms = None
        if match.clock is not None:
            clock = Clock.from_record(match.clock).after_decision(
                seat, snapshot.to_act, at_ms, timed_out=kind == "auto"
            )
            match.clock, clock_ms = clock.to_record(), clock.remaining_at(at_ms)
        match.advance(seat, before, snapshot.to_act, iso_ms(at_ms))
        return Move(match.version, seat, token_version, action, events, match.updated_at, kind, clock_ms), snapshot

    def _end(self, match: Match, game: Game, seat: int, kind: str, at_ms: int) -> tuple[Move, Snapshot]:
        """End ``match`` (in place) by a ``timeout``, ``resign`` or ``abort`` of ``seat`` and
        return its log entry."""
        before = game.to_act(match.state)
        clock_ms = None
        if match.clock is not None:
            clock = Clock.from_record(match.clock).stopped(at_ms, timed_out=seat if kind == "timeout" else None)
            match.clock, clock_ms = clock.to_record(), list(clock.remaining_ms)
        match.ended = {"reason": ENDING_KINDS[kind], "seat": seat}
        match.advance(seat, before, [], iso_ms(at_ms))
        events = [{"type": ENDING_EVENTS[kind], "seat": seat}]
        move = Move(match.version, seat, None, None, events, match.updated_at, kind, clock_ms)
        return move, Snapshot.of_match(game, match)

    def _due_ms(self, match: Match, snapshot: Snapshot, now_ms: int) -> int | None:
        """When the referee must next act on ``match`` by itself: its clock's deadline, or
        shortly after now when a house seat owes a decision; ``None`` when never."""
        if snapshot.over:
            return None
        times = []
        if match.clock is not None:
            deadline = Clock.from_record(match.clock).deadline_ms()
            if deadline is not None:
                times.append(deadline)
        if any(match.house_bot(s) is not None for s in snapshot.to_act):
            times.append(now_ms + HOUSE_GRACE_MS)
        return min(times, default=None)

    def next_due_ms(self, match: Match, game: Game) -> int | None:
        """:meth:`_due_ms` of a loaded match (for the sweeper's index)."""
        return self._due_ms(match, Snapshot.of_match(game, match), self.now_ms())

    def _commit(
        self, match: Match, snapshot: Snapshot, expected: int, move: Move, now_ms: int, idem: str | None = None
    ) -> CommitResult:
        """Compare-and-set ``match`` (already advanced by ``move``) over ``expected``, as a
        delta against its base, with its listing entry and its next due time for the
        sweepers; then start the house's turn if one is due. The cache keeps the record only
        once the store has it, and drops the match when the outcome is unknown."""
        due_ms = self._due_ms(match, snapshot, now_ms)
        record, base = match.encode_delta()
        try:
            result: CommitResult = self._store(
                lambda: self.store.commit(
                    match.match_id,
                    expected,
                    record,
                    move.encode(),
                    self.match_ttl,
                    idem,
                    base=base,
                    listed=self._listed(match, snapshot),
                    due_ms=due_ms,
                )
            )
        except Problem:
            self.cache.forget(match.match_id)
            raise
        if result.committed:
            self.cache.remember(match.match_id, Loaded(result.version, record, None, match.base_record))
            self.start_house(match, snapshot)
        return result

    # -- helpers ---------------------------------------------------------------------------

    def _verify_token(self, match_id: str, state_token: str) -> Any:
        token = self.tokens.verify(state_token)
        if token is None:
            raise BadRequest("invalid_state_token", "The state token is malformed or was not issued by this referee.")
        if token.match_id != match_id:
            raise BadRequest("state_token_mismatch", "The state token belongs to another match.")
        return token

    @staticmethod
    def _require_bearer(bearer: str | None) -> None:
        if bearer is None:
            raise Unauthorized(
                "authentication_required", "This needs a seat: send 'Authorization: Bearer <seat token>'."
            )

    def _seat_required(self, match: Match, bearer: str | None) -> Caller:
        self._require_bearer(bearer)
        return self.caller(match, bearer)

    def _check_token_version(self, match: Match, token_version: int, caller: Caller, to_act: list[int]) -> None:
        if not match.accepts_token_version(token_version, caller.seat, to_act):
            raise self._stale(match.match_id, match.version)

    def _stale(self, match_id: str, version: int) -> Conflict:
        return Conflict(
            "stale_state_token",
            f"The match has moved on to version {version}; fetch it and decide again.",
            current_state_token=self.tokens.mint(match_id, version),
            current_version=version,
        )

    @staticmethod
    def _illegal(exc: IllegalAction) -> Unprocessable:
        extra = {"rule": exc.rule} if exc.rule else {}
        return Unprocessable(exc.code, exc.message, **extra)

    def _action_answer(
        self, match: Match, game: Game, move: Move, state: dict[str, Any], snapshot: Snapshot | None = None
    ) -> dict[str, Any]:
        """The answer to ``move``, from the state it produced, as its seat sees it."""
        if snapshot is None:
            ended = match.ended if move.version == match.version else None
            snapshot = Snapshot.of(game, state, ended, match.players)
        return {
            "match_id": match.match_id,
            "state_token": self.tokens.mint(match.match_id, move.version),
            "version": move.version,
            "seat": move.seat,
            "kind": move.kind,
            "events": game.visible_events(move.events, move.seat),
            "view": game.view(state, move.seat),
            "legal_actions": self._legal(game, state, snapshot, move.seat),
            "to_act": snapshot.to_act,
            "status": snapshot.status,
            "outcome": snapshot.outcome,
            **self._timing(match),
        }

    def _answer_again(self, match: Match, game: Game, move: Move) -> ActionResult:
        """The first answer to an applied ``move``, rebuilt: from the current state when it
        is the latest move (a retry right after), else by replaying the log up to it."""
        if move.version == match.version:
            state = match.state
        else:
            earlier = self._store(lambda: self.store.history(match.match_id, 0, move.version))
            state = state_after(game, match, [Move.decode(raw) for raw in earlier])
        return ActionResult(self._action_answer(match, game, move, state), match.game_id, replayed=True)

    def _answer_again_or_stale(
        self, match: Match, game: Game, caller: Caller, token_version: int, action: dict[str, Any]
    ) -> ActionResult:
        """The first answer if this request was already applied, else a 409.

        A seat's token of version ``t`` can only have made the seat's first move after ``t``
        (at ``t + 1``, or later when other seats' simultaneous decisions came first: its own
        move closes the decision the token was accepted for). So the log is read from ``t``
        a page at a time and the search stops at the seat's first move there.
        """
        start = max(token_version, 0)
        while start < match.version:
            stop = min(start + _RETRY_SEARCH_PAGE, match.version)
            page = self._store(lambda: self.store.history(match.match_id, start, stop))
            for raw in page:
                move = Move.decode(raw)
                if move.seat == caller.seat:
                    if move.is_request(caller.seat, token_version, action):
                        return self._answer_again(match, game, move)
                    raise self._stale(match.match_id, match.version)
            if len(page) < stop - start:
                break
            start = stop
        raise self._stale(match.match_id, match.version)

    def _answer_again_or_over(
        self, match: Match, game: Game, caller: Caller, token_version: int, action: dict[str, Any]
    ) -> ActionResult:
        """The first answer if this request was applied before the match ended, else a 409
        ``match_over``."""
        try:
            return self._answer_again_or_stale(match, game, caller, token_version, action)
        except Conflict:
            raise self._over(match) from None

    def _answer_keyed_again(
        self, match: Match, game: Game, caller: Caller, token_version: int, action: dict[str, Any], produced: int
    ) -> ActionResult:
        """The first answer to the move an ``Idempotency-Key`` produced, if this request is
        the same one; reusing a key for another request is a 422."""
        raw = self._store(lambda: self.store.history(match.match_id, produced - 1, produced))
        move = Move.decode(raw[0]) if raw else None
        if move is None or not move.is_request(caller.seat, token_version, action):
            raise Unprocessable(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with a different request body.",
            )
        return self._answer_again(match, game, move)

    @staticmethod
    def _store(call: Any) -> Any:
        try:
            return call()
        except StoreUnavailable as exc:
            raise Unavailable("store_unavailable", "The match store cannot take this now; retry shortly.") from exc
        except MatchDamaged as exc:
            log.error("refusing a damaged match: %s", exc)
            raise NotFound(
                "match_damaged",
                "The store lost part of this match (its log does not match its version); "
                "it cannot be served or continued.",
            ) from exc
