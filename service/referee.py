"""The one place that turns (state token, seat, action) into a committed new state.

The referee loads the match, authenticates the seat, checks the state token, asks the game
engine to check and apply the action, and commits the result with the store's
compare-and-set. It needs nothing between requests: any process can serve any request. A
node does keep the last record it saw of recently active matches (:mod:`service.cache`) so
that a move on the version it knows skips the read; the compare-and-set still decides.

It also acts on its own, always through the same compare-and-set, so that whoever gets there
first applies a thing exactly once: every request on a timed match first applies the
deadlines that passed (:meth:`Referee.settle`: an ``auto`` move or a forfeit), and a house
seat's turn is played by its bot (:mod:`service.house`) right after the commit that made it
due. The sweeper (:mod:`service.live.sweeper`) does both for matches nobody touches, found
through the store's due index, which every commit keeps up to date.

What the answers look like is :mod:`service.answers`; the listing is :mod:`service.listing`.
Refusals are :mod:`service.errors`, which the HTTP edge maps to problem answers.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service import codec
from service.answers import Answers, Caller, history_entry
from service.bots.thinkers import Thinkers
from service.cache import MatchCache, RecordCache
from service.cache.decoded import DecodedMatches
from service.clock import Clock, StoreClock, TimeControl, iso_ms, wall_ms
from service.engine import EngineError, Game, IllegalAction, InvalidOptions, NotYourTurn, Outcome, Rng
from service.errors import (
    Conflict,
    InvalidRequest,
    NotAuthenticated,
    NotFound,
    NotPermitted,
    RefereeError,
    Refused,
    Unavailable,
    from_store,
)
from service.games import games, get_game
from service.house import HOUSE_GRACE_MS, HouseSeats, checked_house, house_action, house_seat_due, spawn_thread
from service.match import (
    ENDING_EVENTS,
    ENDING_KINDS,
    Match,
    Move,
    Snapshot,
    auto_action,
    epoch_ms,
    state_after,
)
from service.store import CommitResult, Listed, Loaded, MatchStore, Timing
from service.tokens import SeatTokens, StateToken, StateTokens, hash_seat_token, is_match_id, new_match_id, seat_of

_COMMIT_ATTEMPTS = 4
"""Compare-and-sets one request tries before it answers 409: each loss means another
request moved the match, and the move is checked again on the record the loss answered."""

_OWN_ATTEMPTS = 64
"""Attempts of an entry the referee makes on its own (resign, abort) before it gives up:
each lost compare-and-set means the match moved on, so this bounds a busy match."""

_RETRY_SEARCH_PAGE = 32
"""Log entries read per round trip while looking for a retried move."""


class _Mistimed(Exception):
    """The store's clock refused a commit as too early or too late: this node's idea of
    "now" was off. Its :class:`StoreClock` has taken in the store's time; the operation is
    decided again from the store's record."""


@dataclass(frozen=True)
class ActionResult:
    """The answer to an accepted action, and whether it replays an earlier answer."""

    body: dict[str, Any]
    game: str
    replayed: bool = False
    committed: Match | None = None
    """The match as this request committed it (unless that ended it), until
    :meth:`Referee.keep` gives it back."""


def stored_idempotency_key(bearer: str, idempotency_key: str) -> str:
    """What the store keeps for a client's ``Idempotency-Key``: scoped by the bearer, so one
    seat's key never replays another seat's answer, and short, since a match keeps one per
    keyed move (72 bits of SHA-256 in 12 characters; two keys of one match that collided
    could only make a retry a 422, never give it another request's answer: the log entry
    is checked against the request)."""
    digest = hashlib.sha256(f"{bearer}\n{idempotency_key}".encode()).digest()[:9]
    return base64.urlsafe_b64encode(digest).decode()


def _ignore(outcome: str) -> None:
    """The default cache observer: counts nothing."""


def _no_one(match: Match, snapshot: Snapshot) -> None:
    """The default end-of-match hook: tells no one."""


def _no_illegal(match_id: str, seat: int) -> None:
    """The default illegal-action hook: counts nothing."""


class Referee:
    """Matches over a store, with the server secret's state and seat tokens.

    ``now_ms`` is the clock of timed matches (epoch milliseconds; faked in tests): with a
    :class:`StoreClock` every timed commit also asks the store to judge its timing by the
    store's own clock (docs/clocks.md), so nodes whose clocks disagree still agree. ``spawn``
    runs house turns in the background (:func:`service.house.spawn_thread`), ``thinkers``
    (when given) run the house's searches in worker processes (:mod:`service.bots.thinkers`), and
    ``on_cache`` hears whether each move found its record in the cache (``hit``, ``miss``,
    or ``stale`` when the store refuted a hit), for the metrics the HTTP edge keeps.
    """

    def __init__(
        self,
        store: MatchStore,
        tokens: StateTokens,
        seat_tokens: SeatTokens,
        match_ttl: int,
        cache: RecordCache | None = None,
        now_ms: Callable[[], int] = wall_ms,
        spawn: Callable[[Callable[[], None]], None] = spawn_thread,
        on_cache: Callable[[str], None] = _ignore,
        thinkers: Thinkers | None = None,
        decoded: DecodedMatches[Match] | None = None,
    ) -> None:
        self.store = store
        self.tokens = tokens
        self.seat_tokens = seat_tokens
        self.match_ttl = match_ttl
        self.cache: RecordCache = cache if cache is not None else MatchCache(0)
        self.decoded: DecodedMatches[Match] = decoded if decoded is not None else DecodedMatches(0)
        self.now_ms = now_ms
        self.on_cache = on_cache
        self.thinkers = thinkers
        self.answers = Answers(tokens, lambda: self.now_ms())
        self.house = HouseSeats(self.play_house, spawn)
        self.on_illegal: Callable[[str, int], None] = _no_illegal
        """Called when a seat's action, decided on the match's current version, is refused as
        illegal (one decided on an older version may have been made illegal by another seat's
        move), with the match id and the seat; the ladders count it as the bot's fault. It
        must not raise."""
        self.on_finished: Callable[[Match, Snapshot], None] = _no_one
        """Called after the commit that ends a match (once: only one commit can), with the
        match and its final snapshot; the app wires it to :meth:`service.challenges.
        Challenges.match_finished`, which tells the match's bots. It must not raise."""

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
            raise Refused(exc.code, exc.message) from exc
        house_seats = checked_house(game_id, players, house or [])
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
            time_control = TimeControl.from_request(clock)
            match.clock = Clock.start(time_control, players, snapshot.to_act, now_ms).to_record()
        due_ms = self._due_ms(match, snapshot, now_ms)
        record = match.encode()
        listed = _listed(match, snapshot)
        identity = from_store(
            lambda: self.store.create(match.match_id, record, self.match_ttl, listed=listed, due_ms=due_ms)
        )
        if identity is None:
            raise Unavailable("match_id_collision", "Could not allocate a match id; try again.")
        match.identity = identity
        self.cache.remember(match.match_id, Loaded(0, record, identity=identity))
        self.house.start(match, snapshot)
        body = self.answers.match(match, game, snapshot, Caller(None))
        body["seats"] = [{"seat": s, "token": t} for s, t in enumerate(seat_tokens) if match.house_bot(s) is None]
        return body

    # -- reading ---------------------------------------------------------------------------

    @staticmethod
    def game(game_id: str) -> Game:
        game = get_game(game_id)
        if game is None:
            raise NotFound("unknown_game", f"No game {game_id!r}; known: {', '.join(games())}.")
        return game

    def load(self, match_id: str) -> Match:
        """The match as the store has it now."""
        loaded = self._read(match_id)
        return Match.decode(loaded.version, loaded.record, loaded.base, loaded.identity)

    def _read(self, match_id: str, idempotency_key: str | None = None) -> Loaded:
        """The match's record as the store has it now (kept in the cache, being the newest
        known), and the version ``idempotency_key`` produced if it was used."""
        if not is_match_id(match_id):
            raise NotFound("unknown_match", f"No match {match_id!r}.")
        loaded = from_store(lambda: self.store.load(match_id, idempotency_key))
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
            raise NotAuthenticated("bad_credentials", "This bearer token is not a seat of this match.")
        return Caller(seat)

    def current(self, match_id: str) -> tuple[Match, Game]:
        """The match as it is now: loaded, with every deadline that passed applied."""
        for _ in range(_COMMIT_ATTEMPTS):
            match = self.load(match_id)
            game = self.game(match.game_id)
            try:
                return self.settle(match, game, self.now_ms()), game
            except _Mistimed:
                continue  # decided again by the store's clock
        raise Unavailable("store_unavailable", "This node's clock and the store's disagree; retry shortly.")

    def get_match(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, game = self.current(match_id)
        return self.answers.match(match, game, Snapshot.of_match(game, match), self.caller(match, bearer))

    def legal_actions(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, game = self.current(match_id)
        caller = self._seat_required(match, bearer)
        return self.answers.legal_actions(match, game, Snapshot.of_match(game, match), caller)

    def history(self, match_id: str, bearer: str | None, cursor: int, limit: int) -> dict[str, Any]:
        """The action log from ``cursor`` on, redacted for the caller while the match runs
        (a finished match reveals its seed, so every hand could be recomputed anyway)."""
        match, game = self.current(match_id)
        caller = self.caller(match, bearer)
        revealed = Snapshot.of_match(game, match).over
        total = from_store(lambda: self.store.history_length(match_id))
        raw = from_store(lambda: self.store.history(match_id, cursor, cursor + limit))
        entries = [history_entry(Move.decode(item), game, caller, revealed) for item in raw]
        end = cursor + len(entries)
        return {
            "match_id": match_id,
            "game": match.game_id,
            "total": total,
            "entries": entries,
            "next_cursor": end if end < total else None,
        }

    def read_log(self, match_id: str, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop - 1`` as stored."""
        return from_store(lambda: self.store.history(match_id, start, stop))

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
        raw = from_store(lambda: self.store.history(match_id, 0, match.version))
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
        bearer = _required(bearer)
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
            match = self._match_of(match_id, current)
            if hinted and _deadline_passed(match, now_ms):
                # A deadline to apply first: that is a write, decided on the store's record.
                current, hinted = self._read(match_id, idem), False
                match = Match.decode(current.version, current.record, current.base, current.identity)
            try:
                decided = self._decide(match, bearer, token.version, action, current.idempotent_version, now_ms)
            except RefereeError:
                if not hinted:
                    raise
                current = None
                continue
            except _Mistimed:
                current = None  # decided again, by the store's clock, on the store's record
                continue
            if isinstance(decided, ActionResult):
                return decided
            match, move, snapshot, expected, timing = decided
            try:
                result = self._commit(match, snapshot, expected, move, now_ms, idem, timing)
            except _Mistimed:
                current = None
                continue
            if result.committed:
                game = self.game(match.game_id)
                answer = self.answers.action(match, game, move, match.state, snapshot)
                return ActionResult(answer, match.game_id, committed=None if snapshot.over else match)
            if result.current is None:
                raise NotFound("unknown_match", f"No match {match_id!r} (it may have expired).")
            if hinted:
                self.on_cache("stale")
            current, hinted = result.current, False
        # The last compare-and-set lost: maybe to this very request, retried by the store
        # client after a dropped reply.
        match = self.load(match_id)
        caller = self._seat_required(match, bearer)
        return self._answer_again_or_stale(match, self.game(match.game_id), caller, token.version, action)

    def keep(self, result: ActionResult) -> None:
        """Give the match ``result`` committed back for the next move of it, which then skips
        decoding its record (:mod:`service.cache.decoded`). Call it once the answer is
        written: the answer may share parts of the match's state, which that move changes."""
        match = result.committed
        if match is not None:
            self.decoded.keep(match.match_id, match.version, match.identity, match)

    def _match_of(self, match_id: str, loaded: Loaded) -> Match:
        """The match ``loaded`` holds: the object this process committed as that very record
        when it kept one, else the record decoded."""
        kept = self.decoded.take(match_id, loaded.version, loaded.identity)
        if kept is not None:
            return kept
        return Match.decode(loaded.version, loaded.record, loaded.base, loaded.identity)

    def _cached(self, match_id: str, version: int) -> Loaded | None:
        """The match at ``version`` from this node's cache, if it has it there."""
        found = self.cache.record(match_id, version)
        self.on_cache("hit" if found is not None else "miss")
        return found

    def _decide(
        self,
        match: Match,
        bearer: str,
        token_version: int,
        action: dict[str, Any],
        produced: int | None,
        now_ms: int,
    ) -> ActionResult | tuple[Match, Move, Snapshot, int, Timing | None]:
        """Check the request on ``match``: the earlier answer if it was already applied (or
        a :class:`RefereeError` if it cannot be), else the match with the move applied in
        place, the move, the version it commits over and when it may commit (before the
        deadline it was decided in time for).

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
        expected, timing = match.version, _in_time(match)
        try:
            move, snapshot = self._play(
                match, game, _seat(caller), action, Rng(match.seed, match.rng), now_ms, "move", token_version
            )
        except NotYourTurn as exc:
            raise NotPermitted(exc.code, exc.message, rule=exc.rule) from exc
        except IllegalAction as exc:
            if token_version == match.version:  # decided on the state as it is: the seat's own mistake
                self.on_illegal(match.match_id, _seat(caller))
            raise _illegal(exc) from exc
        return match, move, snapshot, expected, timing

    def validate(self, match_id: str, bearer: str | None, state_token: str, action: dict[str, Any]) -> dict[str, Any]:
        """Whether ``action`` would be accepted now, with the reason if not; changes nothing."""
        bearer = _required(bearer)
        token = self._verify_token(match_id, state_token)
        match, game = self.current(match_id)
        caller = self._seat_required(match, bearer)
        if not match.accepts_token_version(token.version, caller.seat, game.to_act(match.state)):
            raise self._stale(match.match_id, match.version)
        answer: dict[str, Any] = {
            "match_id": match.match_id,
            "game": match.game_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "legal": True,
        }
        if match.ended is not None:
            over = self._over(match)
            return answer | {"legal": False, "code": over.code, "detail": over.detail, "rule": None}
        try:
            game.check(match.state, _seat(caller), action)
        except EngineError as exc:
            answer.update(legal=False, code=exc.code, detail=exc.message, rule=exc.rule)
        return answer

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

    def _commit(
        self,
        match: Match,
        snapshot: Snapshot,
        expected: int,
        move: Move,
        now_ms: int,
        idem: str | None = None,
        timing: Timing | None = None,
    ) -> CommitResult:
        """Compare-and-set ``match`` (already advanced by ``move``) over ``expected``, as a
        delta against its base, with its listing entry and its next due time for the
        sweepers; then start the house's turn if one is due. The commit names the identity of
        the record ``match`` was read as, so it succeeds only on that very record. The cache
        keeps what the store answers: the new record once the store has it, or the record
        a refused commit answered; it drops the match when the outcome is unknown.

        With a :class:`StoreClock`, the store also judges ``timing`` by its own clock.

        :raises _Mistimed: the store's clock says the commit comes too early or too late."""
        due_ms = self._due_ms(match, snapshot, now_ms)
        record, base = match.encode_delta()
        listed = _listed(match, snapshot)
        clock = self.now_ms if isinstance(self.now_ms, StoreClock) else None
        judged = timing if clock is not None else None
        try:
            result: CommitResult = from_store(
                lambda: self.store.commit(
                    match.match_id, expected, record, move.encode(), self.match_ttl, idem,
                    base=base, listed=listed, due_ms=due_ms, expected_identity=match.identity, timing=judged,
                )
            )  # fmt: skip
        except RefereeError:
            self.cache.forget(match.match_id)
            raise
        if result.mistimed:
            assert clock is not None and result.store_ms is not None
            clock.observe(result.store_ms)
            raise _Mistimed(match.match_id)
        if result.committed:
            match.identity = result.identity
            self.cache.remember(
                match.match_id, Loaded(result.version, record, None, match.base_record, result.identity)
            )
            self.house.start(match, snapshot)
            if snapshot.over:
                self.on_finished(match, snapshot)
        elif result.current is not None:
            self.cache.remember(match.match_id, result.current)
        else:
            self.cache.forget(match.match_id)
        return result

    # -- what the referee does on its own: deadlines, house turns --------------------------

    def settle(self, match: Match, game: Game, now_ms: int) -> Match:
        """``match`` with every deadline that passed by ``now_ms`` applied, each as its own
        entry through the compare-and-set (so exactly once, whoever applies it first).

        A seat whose clock ran out forfeits, or under ``auto`` gets a random legal action
        played for it, stamped at its deadline: the next seat's clock starts then, so a late
        sweep changes nothing but when it is seen. Several may be due at once (a match nobody
        touched for a while); they are applied in the order they fell due. Each is committed
        only if the store's clock has reached its deadline too.

        :raises _Mistimed: the store's clock had not: ``now_ms`` was ahead of it.
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
            timing = Timing(not_before_ms=expiry.at_ms)
            if not self._commit(match, snapshot, expected, move, now_ms, timing=timing).committed:
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
            seat = house_seat_due(match, Snapshot.of_match(game, match))
            if seat is None:
                return
            action = house_action(game, match, seat, self.now_ms(), self.thinkers)
            now_ms = self.now_ms()
            expected, timing = match.version, _in_time(match)
            rng = Rng(match.seed, match.rng)
            move, snapshot = self._play(match, game, seat, action, rng, now_ms, "house", expected)
            try:
                self._commit(match, snapshot, expected, move, now_ms, timing=timing)
            except _Mistimed:
                continue  # its clock ran out meanwhile, by the store's: the next look applies it

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
        if house_seat_due(match, snapshot) is not None:
            times.append(now_ms + HOUSE_GRACE_MS)
        return min(times, default=None)

    def next_due_ms(self, match: Match, game: Game) -> int | None:
        """:meth:`_due_ms` of a loaded match (for the sweeper's index)."""
        return self._due_ms(match, Snapshot.of_match(game, match), self.now_ms())

    # -- ending a match --------------------------------------------------------------------

    def resign(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        """The bearer's seat gives up: it is ranked last (in a cooperative game the table
        loses). Answers as an action does, from the resigning seat's point of view."""
        match, game, _, move, snapshot = self._end_by_seat(match_id, bearer, "resign")
        return self.answers.action(match, game, move, match.state, snapshot)

    def abort(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        """Call off a match nobody has moved in yet (any seat may): it ends with no outcome
        and its seed is revealed. Answers the match resource as the bearer's seat sees it."""
        match, game, caller, _, snapshot = self._end_by_seat(match_id, bearer, "abort")
        return self.answers.match(match, game, snapshot, caller)

    def _end_by_seat(self, match_id: str, bearer: str | None, kind: str) -> tuple[Match, Game, Caller, Move, Snapshot]:
        """Commit the bearer seat's ``resign`` or ``abort``; the match, its entry and after."""
        bearer = _required(bearer)
        for _ in range(_OWN_ATTEMPTS):
            now_ms = self.now_ms()
            match, game = self.current(match_id)
            caller = self._seat_required(match, bearer)
            if Snapshot.of_match(game, match).over:
                raise self._over(match)
            if kind == "abort" and match.version > 0:
                raise Conflict(
                    "match_started",
                    f"The match is at version {match.version}: only a match nobody has moved in may be aborted; "
                    "resign instead.",
                    current_version=match.version,
                )
            expected, timing = match.version, _in_time(match)
            move, snapshot = self._end(match, game, _seat(caller), kind, now_ms)
            try:
                if self._commit(match, snapshot, expected, move, now_ms, timing=timing).committed:
                    return match, game, caller, move, snapshot
            except _Mistimed:
                continue  # the seat's time ran out first, by the store's clock: the next look applies it
        raise Unavailable("store_unavailable", "The match keeps moving under this request; retry shortly.")

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

    def _over(self, match: Match) -> Conflict:
        if match.ended is None:
            return Conflict("match_over", "The match is finished.", current_version=match.version)
        return Conflict(
            "match_over",
            f"The match is over at version {match.version} "
            f"(end reason {match.ended.get('reason')!r}, seat {match.ended.get('seat')}).",
            current_state_token=self.tokens.mint(match.match_id, match.version),
            current_version=match.version,
        )

    # -- recognising retries ---------------------------------------------------------------

    def _answer_again(self, match: Match, game: Game, move: Move) -> ActionResult:
        """The first answer to an applied ``move``, rebuilt: from the current state when it
        is the latest move (a retry right after), else by replaying the log up to it."""
        if move.version == match.version:
            state = match.state
        else:
            earlier = from_store(lambda: self.store.history(match.match_id, 0, move.version))
            state = state_after(game, match, [Move.decode(raw) for raw in earlier])
        ended = match.ended if move.version == match.version else None
        snapshot = Snapshot.of(game, state, ended, match.players)
        return ActionResult(self.answers.action(match, game, move, state, snapshot), match.game_id, replayed=True)

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
            page = self.read_log(match.match_id, start, stop)
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
        the same one; reusing a key for another request is refused."""
        raw = self.read_log(match.match_id, produced - 1, produced)
        move = Move.decode(raw[0]) if raw else None
        if move is None or not move.is_request(caller.seat, token_version, action):
            raise Refused(
                "idempotency_key_reused",
                "This Idempotency-Key was already used with a different request body.",
            )
        return self._answer_again(match, game, move)

    # -- checks ----------------------------------------------------------------------------

    def _verify_token(self, match_id: str, state_token: str) -> StateToken:
        token = self.tokens.verify(state_token)
        if token is None:
            raise InvalidRequest(
                "invalid_state_token", "The state token is malformed or was not issued by this referee."
            )
        if token.match_id != match_id:
            raise InvalidRequest("state_token_mismatch", "The state token belongs to another match.")
        return token

    def _seat_required(self, match: Match, bearer: str | None) -> Caller:
        return self.caller(match, _required(bearer))

    def _stale(self, match_id: str, version: int) -> Conflict:
        return Conflict(
            "stale_state_token",
            f"The match has moved on to version {version}; fetch it and decide again.",
            current_state_token=self.tokens.mint(match_id, version),
            current_version=version,
        )


def _required(bearer: str | None) -> str:
    """The bearer token an operation needs a seat for."""
    if bearer is None:
        raise NotAuthenticated(
            "authentication_required", "This needs a seat: send 'Authorization: Bearer <seat token>'."
        )
    return bearer


def _seat(caller: Caller) -> int:
    """The seat of a caller that authenticated as one."""
    assert caller.seat is not None, "a seat-only operation reached its seat check without a seat"
    return caller.seat


def _illegal(exc: IllegalAction) -> Refused:
    extra = {"rule": exc.rule} if exc.rule else {}
    return Refused(exc.code, exc.message, **extra)


def _in_time(match: Match) -> Timing | None:
    """When a decision on ``match`` as it stands must reach the store: before its earliest
    running clock runs out (``None`` for an untimed match, or one whose clocks all stopped)."""
    if match.clock is None:
        return None
    deadline = Clock.from_record(match.clock).deadline_ms()
    return None if deadline is None else Timing(before_ms=deadline)


def _deadline_passed(match: Match, now_ms: int) -> bool:
    """Whether a seat's time ran out by ``now_ms`` in ``match`` (an entry to apply)."""
    return (
        match.clock is not None and match.ended is None and Clock.from_record(match.clock).expired(now_ms) is not None
    )


def _listed(match: Match, snapshot: Snapshot) -> Listed:
    return Listed(match.game_id, snapshot.status, epoch_ms(match.updated_at))
