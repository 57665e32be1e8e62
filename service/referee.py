"""The one place that turns (state token, seat, action) into a committed new state.

The referee loads the match, authenticates the seat, checks the state token, asks the game
engine to check and apply the action, and commits the result with the store's
compare-and-set. It holds nothing between requests: any process can serve any request.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from dataclasses import dataclass
from typing import Any

import orjson

from service.engine import EngineError, Game, IllegalAction, InvalidOptions, NotYourTurn, Rng
from service.engine.registry import games, get_game
from service.match import Match, Move, Snapshot, seed_commitment, state_after
from service.problems import BadRequest, Conflict, Forbidden, NotFound, Unauthorized, Unavailable, Unprocessable
from service.store import MatchDamaged, MatchStore, StoreUnavailable
from service.tokens import SeatTokens, StateTokens, hash_seat_token, is_match_id, new_match_id, seat_of

_COMMIT_ATTEMPTS = 4

#: Log entries read per round trip while looking for a retried move.
_RETRY_SEARCH_PAGE = 32

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


class Referee:
    """Matches over a store, with the server secret's state and seat tokens."""

    def __init__(self, store: MatchStore, tokens: StateTokens, seat_tokens: SeatTokens, match_ttl: int) -> None:
        self.store = store
        self.tokens = tokens
        self.seat_tokens = seat_tokens
        self.match_ttl = match_ttl

    # -- creating --------------------------------------------------------------------------

    def create_match(
        self, game_id: str, players: int, options: dict[str, Any] | None, seed: str | None
    ) -> dict[str, Any]:
        """Set up a new match; the answer carries each seat's token, shown only here."""
        game = self.game(game_id)
        try:
            resolved = game.resolve_options(players, options)
        except InvalidOptions as exc:
            raise Unprocessable(exc.code, exc.message) from exc
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
        )
        snapshot = Snapshot.of(game, state)
        match.pending_since = {str(s): 0 for s in snapshot.to_act}
        if not self._store(lambda: self.store.create(match.match_id, match.encode(), self.match_ttl)):
            raise Unavailable("match_id_collision", "Could not allocate a match id; try again.")
        body = self.describe(match, game, snapshot, Caller(None))
        body["seats"] = [{"seat": s, "token": t} for s, t in enumerate(seat_tokens)]
        return body

    # -- reading ---------------------------------------------------------------------------

    def game(self, game_id: str) -> Game:
        game = get_game(game_id)
        if game is None:
            raise NotFound("unknown_game", f"No game {game_id!r}; known: {', '.join(games())}.")
        return game

    def load(self, match_id: str, idempotency_key: str | None = None) -> tuple[Match, int | None]:
        """The match, and the version ``idempotency_key`` produced if it was used."""
        if not is_match_id(match_id):
            raise NotFound("unknown_match", f"No match {match_id!r}.")
        loaded = self._store(lambda: self.store.load(match_id, idempotency_key))
        if loaded is None:
            raise NotFound("unknown_match", f"No match {match_id!r} (it may have expired).")
        return Match.decode(loaded.version, loaded.record), loaded.idempotent_version

    def caller(self, match: Match, bearer: str | None) -> Caller:
        """The seat a bearer token belongs to; no token is a spectator."""
        if bearer is None:
            return Caller(None)
        seat = seat_of(bearer, match.seat_hashes)
        if seat is None:
            raise Unauthorized("bad_credentials", "This bearer token is not a seat of this match.")
        return Caller(seat)

    def get_match(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, _ = self.load(match_id)
        game = self.game(match.game_id)
        return self.describe(match, game, Snapshot.of(game, match.state), self.caller(match, bearer))

    def describe(self, match: Match, game: Game, snapshot: Snapshot, caller: Caller) -> dict[str, Any]:
        """The match resource as ``caller`` may see it."""
        body: dict[str, Any] = {
            "match_id": match.match_id,
            "game": match.game_id,
            "players": match.players,
            "options": match.options,
            "status": snapshot.status,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "to_act": snapshot.to_act,
            "seat": caller.seat,
            "view": game.view(match.state, caller.seat),
            "outcome": snapshot.outcome,
            "seed_sha256": seed_commitment(match.seed),
            "seed_supplied": match.seed_supplied,
            "created_at": match.created_at,
            "updated_at": match.updated_at,
        }
        if snapshot.outcome is not None:
            body["seed"] = match.seed
        return body

    def legal_actions(self, match_id: str, bearer: str | None) -> dict[str, Any]:
        match, _ = self.load(match_id)
        caller = self._seat_required(match, bearer)
        game = self.game(match.game_id)
        return {
            "match_id": match.match_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "to_act": game.to_act(match.state),
            "actions": game.legal_actions(match.state, caller.seat),
        }

    def history(self, match_id: str, bearer: str | None, cursor: int, limit: int) -> dict[str, Any]:
        """The action log from ``cursor`` on, redacted for the caller while the match runs.

        Once it is finished nothing is hidden any more, as at a table when the cards are
        turned over: the seed is revealed, so every hand could be recomputed anyway.
        """
        match, _ = self.load(match_id)
        caller = self.caller(match, bearer)
        game = self.game(match.game_id)
        revealed = game.outcome(match.state) is not None
        total = self._store(lambda: self.store.history_length(match_id))
        raw = self._store(lambda: self.store.history(match_id, cursor, cursor + limit))
        entries = []
        for item in raw:
            move = Move.decode(item)
            entries.append({
                "version": move.version,
                "seat": move.seat,
                "action": move.action if revealed else game.redact_action(move.action, move.seat, caller.seat),
                "events": move.events if revealed else game.visible_events(move.events, caller.seat),
                "at": move.at,
            })
        end = cursor + len(entries)
        return {
            "match_id": match_id,
            "total": total,
            "entries": entries,
            "next_cursor": end if end < total else None,
        }

    def finished_log(self, match_id: str) -> tuple[Match, Game, list[dict[str, Any]]]:
        """A finished match, its game and its whole action log, unredacted (for its replay).

        :raises Conflict: ``match_not_finished`` while the match runs (its seed is secret).
        """
        match, _ = self.load(match_id)
        game = self.game(match.game_id)
        if game.outcome(match.state) is None:
            raise Conflict(
                "match_not_finished",
                f"The match is at version {match.version} and still running; its replay exists once it is finished.",
                current_version=match.version,
            )
        raw = self._store(lambda: self.store.history(match_id, 0, match.version))
        return match, game, [orjson.loads(item) for item in raw]

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
        # Scoped by the bearer, so one seat's key never replays another seat's answer.
        idem = (
            hashlib.sha256(f"{bearer}\n{idempotency_key}".encode()).hexdigest()[:32]
            if idempotency_key is not None
            else None
        )
        for _ in range(_COMMIT_ATTEMPTS):
            match, produced = self.load(match_id, idem)
            caller = self._seat_required(match, bearer)
            game = self.game(match.game_id)
            if produced is not None:
                return self._answer_keyed_again(match, game, caller, token.version, action, produced)
            before = game.to_act(match.state)
            if not match.accepts_token_version(token.version, caller.seat, before):
                return self._answer_again_or_stale(match, game, caller, token.version, action)
            rng = Rng(match.seed, match.rng)
            try:
                state, events = game.apply(match.state, caller.seat, action, rng)
            except NotYourTurn as exc:
                raise Forbidden(exc.code, exc.message, rule=exc.rule) from exc
            except IllegalAction as exc:
                raise self._illegal(exc) from exc
            expected = match.version
            snapshot = Snapshot.of(game, state)
            match.state, match.rng = state, rng.position()
            match.advance(caller.seat, before, snapshot.to_act)
            move = Move(match.version, caller.seat, token.version, action, events, match.updated_at)
            result = self._store(
                lambda: self.store.commit(match_id, expected, match.encode(), move.encode(), self.match_ttl, idem)
            )
            if result.committed:
                return ActionResult(self._action_answer(match, game, move, state, snapshot), match.game_id)
            if result.version < 0:
                raise NotFound("unknown_match", f"No match {match_id!r} (it may have expired).")
        # The last compare-and-set lost: maybe to this very request, retried by the store
        # client after a dropped reply.
        match, _ = self.load(match_id)
        return self._answer_again_or_stale(match, self.game(match.game_id), caller, token.version, action)

    def validate(self, match_id: str, bearer: str | None, state_token: str, action: dict[str, Any]) -> dict[str, Any]:
        """Whether ``action`` would be accepted now, with the reason if not; changes nothing."""
        self._require_bearer(bearer)
        token = self._verify_token(match_id, state_token)
        match, _ = self.load(match_id)
        caller = self._seat_required(match, bearer)
        game = self.game(match.game_id)
        to_act = game.to_act(match.state)
        self._check_token_version(match, token.version, caller, to_act)
        answer: dict[str, Any] = {
            "match_id": match.match_id,
            "seat": caller.seat,
            "version": match.version,
            "state_token": self.tokens.mint(match.match_id, match.version),
            "legal": True,
        }
        try:
            game.check(match.state, caller.seat, action)
        except EngineError as exc:
            answer.update(legal=False, code=exc.code, detail=exc.message, rule=exc.rule)
        return answer

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
        snapshot = snapshot or Snapshot.of(game, state)
        return {
            "match_id": match.match_id,
            "state_token": self.tokens.mint(match.match_id, move.version),
            "version": move.version,
            "seat": move.seat,
            "events": game.visible_events(move.events, move.seat),
            "view": game.view(state, move.seat),
            "legal_actions": game.legal_actions(state, move.seat),
            "to_act": snapshot.to_act,
            "status": snapshot.status,
            "outcome": snapshot.outcome,
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
