"""Challenges between bots, and the events that tell each bot what happened.

A challenge names a game, the players, the opponents (other bots by name) and how seats are
given out. It is ``open`` until every opponent accepts (``accepted``: the referee creates the
match), one declines (``declined``), the challenger cancels (``canceled``) or nobody answers in
time (``expired``). Every change is a compare-and-set on the challenge's version
(:meth:`service.store.accounts.AccountStore.update_challenge`), so of an accept and a cancel
racing, exactly one wins and the other answers ``challenge_closed`` with the status it found.

Each change then appends an event to the log of every bot involved (the challenger and the
opponents), in order: ``challenge`` (new), ``challenge_accepted`` / ``_declined`` /
``_canceled`` / ``_expired``, and once the match exists ``match_started`` with the bot's
own seat and seat token. The match's end appends ``match_finished`` (:meth:`Challenges.
match_finished`, which the referee calls on the commit that ends a match). A bot's
*pending* entries are kept in the same step as each append: an open challenge's ``challenge``
event until it closes, a match's ``match_started`` until it ends; a stream that connects
afresh starts with them (:mod:`service.live.bot_events`).

The match is created before the accepting compare-and-set, so that the challenge never says
``accepted`` without its match; should that compare-and-set lose (a cancel came first), the
new match is aborted at once. A challenge left open past its expiry is expired by whoever
reads it first: any request on it, or the challenge sweeper
(:mod:`service.live.challenge_sweeper`), through the same compare-and-set.

Nothing here knows about HTTP.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import orjson

from service.accounts import Accounts, Bot, name_key
from service.clock import iso_ms, wall_ms
from service.engine import InvalidOptions
from service.errors import (
    Conflict,
    NotFound,
    NotPermitted,
    RefereeError,
    Refused,
    TooMany,
    from_store,
)
from service.match import Match, Snapshot
from service.referee import Referee
from service.store import AccountStore, StoredEvent

log = logging.getLogger("referee.challenges")

_ATTEMPTS = 16
"""Compare-and-sets one answer to a challenge tries: each loss means another answer landed."""

_PAGE_WINDOW = 200
"""Events a bot's page reads back for its recent results."""

ID_BYTES = 12
"""Random bytes of a challenge id (96 bits: not to be guessed)."""


@dataclass
class Challenge:
    """A challenge's record."""

    id: str
    game: str
    players: int
    options: dict[str, Any]
    time_control: dict[str, Any] | None
    seats: str
    challenger: str
    opponents: list[str]
    created: str
    expires_ms: int
    accepted: list[str] = field(default_factory=list)
    status: str = "open"
    match_id: str | None = None

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decode(cls, record: bytes) -> Challenge:
        return cls(**orjson.loads(record))

    @property
    def bots(self) -> list[str]:
        """Everyone involved: the challenger, then the opponents."""
        return [self.challenger, *self.opponents]

    def answer(self) -> dict[str, Any]:
        """The challenge as the API answers it."""
        body = asdict(self)
        del body["expires_ms"]
        return body | {"expires_at": iso_ms(self.expires_ms)}


def event_data(event: StoredEvent) -> bytes:
    """An event's JSON as a bot reads it: the stored body with its id in front."""
    return b'{"id":"%d",' % event.id + event.body[1:]


class Challenges:
    """Challenges over an :class:`AccountStore`, matches through the :class:`Referee`.

    ``expiry_s`` is how long a challenge waits for its answers; ``open_limit`` how many open
    challenges one bot may have issued at once."""

    def __init__(
        self,
        store: AccountStore,
        accounts: Accounts,
        referee: Referee,
        expiry_s: float = 60.0,
        open_limit: int = 20,
        now_ms: Callable[[], int] = wall_ms,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.referee = referee
        self.expiry_ms = int(expiry_s * 1000)
        self.open_limit = open_limit
        self.now_ms = now_ms

    # -- creating ------------------------------------------------------------------------------

    def create(self, bot: Bot, body: dict[str, Any]) -> dict[str, Any]:
        """A new open challenge from ``bot``; opponents whose auto-accept rules take it accept
        at once (when all do, the match is created before this answers).

        :raises Refused: ``players_mismatch``, ``invalid_opponents`` or the game's refusal of
            the options. :raises NotFound: ``unknown_game``, ``unknown_bot`` (an opponent).
        :raises TooMany: ``too_many_challenges``: ``bot`` has ``open_limit`` open already."""
        game = self.referee.game(body["game"])
        opponents = [self.accounts.find(name)[0] for name in body["opponents"]]
        keys = [o.key for o in opponents]
        if bot.key in keys or len(set(keys)) != len(keys):
            raise Refused("invalid_opponents", "The opponents must be other bots, each named once.")
        if body["players"] != 1 + len(opponents):
            raise Refused(
                "players_mismatch", f"players is {body['players']} but the challenge seats {1 + len(opponents)} bots."
            )
        options = self._resolved(game.id, body["players"], body.get("options"))
        if self._open_issued(bot) >= self.open_limit:
            raise TooMany(
                "too_many_challenges",
                f"This bot has {self.open_limit} open challenges already; wait for answers or cancel one.",
                limit=f"{self.open_limit} open challenges per bot",
                retry_after=max(1, self.expiry_ms // 1000),
            )
        now = self.now_ms()
        challenge = Challenge(
            id=secrets.token_urlsafe(ID_BYTES),
            game=game.id,
            players=body["players"],
            options=options,
            time_control=body.get("time_control"),
            seats=body.get("seats", "random"),
            challenger=bot.name,
            opponents=[o.name for o in opponents],
            created=iso_ms(now),
            expires_ms=now + self.expiry_ms,
        )
        ttl = self._ttl()
        from_store(self.store.create_challenge, challenge.id, challenge.encode(), ttl, challenge.expires_ms)
        self._tell(challenge, {"type": "challenge", "challenge": challenge.answer()}, pend=_pend(challenge))
        for opponent in opponents:
            if auto_accepts(opponent.auto_accept, challenge, bot.name):
                try:
                    self.accept(opponent, challenge.id)
                except Conflict:
                    break  # closed meanwhile (canceled): the answer below says how
        return self.get(bot, challenge.id)

    def _resolved(self, game_id: str, players: int, options: dict[str, Any] | None) -> dict[str, Any]:
        """The options as the game resolves them, refused now rather than at the last accept."""
        try:
            return self.referee.game(game_id).resolve_options(players, options)
        except InvalidOptions as exc:
            raise Refused(exc.code, exc.message) from exc

    def _open_issued(self, bot: Bot) -> int:
        """How many open challenges ``bot`` issued (its pending ``challenge`` events)."""
        pending, _ = from_store(self.store.pending, bot.key)
        count = 0
        for event in pending:
            data = orjson.loads(event.body)
            if data["type"] == "challenge" and name_key(data["challenge"]["challenger"]) == bot.key:
                count += 1
        return count

    # -- reading and answering -----------------------------------------------------------------

    def get(self, bot: Bot, challenge_id: str) -> dict[str, Any]:
        """The challenge, for the challenger or an opponent (expired first if its time is up)."""
        _, challenge = self._involving(bot, challenge_id)
        return challenge.answer()

    def accept(self, bot: Bot, challenge_id: str) -> dict[str, Any]:
        """``bot`` (a named opponent) accepts; the last acceptance creates the match."""
        for _ in range(_ATTEMPTS):
            version, challenge = self._involving(bot, challenge_id)
            self._opponent_only(bot, challenge)
            if bot.name in challenge.accepted:
                return challenge.answer()
            self._open_only(challenge)
            accepted = replace(challenge, accepted=[*challenge.accepted, bot.name])
            if len(accepted.accepted) < len(accepted.opponents):
                if self._move(version, accepted, open_=True):
                    self._tell(accepted, {"type": "challenge_accepted", "challenge": accepted.answer(), "by": bot.name})
                    return accepted.answer()
                continue
            started = self._start(version, accepted, bot)
            if started is not None:
                return started.answer()
        raise Conflict("challenge_busy", "The challenge keeps changing under this request; retry.")

    def decline(self, bot: Bot, challenge_id: str) -> dict[str, Any]:
        """``bot`` (a named opponent) declines: the challenge is over."""
        return self._close(bot, challenge_id, "declined", opponent=True)

    def cancel(self, bot: Bot, challenge_id: str) -> dict[str, Any]:
        """The challenger calls the challenge off."""
        return self._close(bot, challenge_id, "canceled", opponent=False)

    def expire(self, challenge_id: str) -> None:
        """Expire the challenge if it is still open past its time (the sweeper's call)."""
        found = from_store(self.store.challenge, challenge_id)
        if found is not None:
            self._expired(found[0], Challenge.decode(found[1]))

    # -- the match -----------------------------------------------------------------------------

    def _start(self, version: int, challenge: Challenge, by: Bot) -> Challenge | None:
        """Create the match and mark the challenge accepted with it; ``None`` if the
        challenge changed first (the match is then aborted)."""
        order = list(challenge.bots)
        if challenge.seats == "random":
            secrets.SystemRandom().shuffle(order)
        created = self.referee.create_match(
            challenge.game, challenge.players, challenge.options, None, challenge.time_control
        )
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        match_id = created["match_id"]
        started = replace(challenge, status="accepted", match_id=match_id)
        if not self._move(version, started, open_=False):
            self.referee.abort(match_id, tokens[0])
            return None
        self._tell(started, {"type": "challenge_accepted", "challenge": started.answer(), "by": by.name})
        self.announce(created, order, started.time_control, {"challenge_id": started.id}, unpend=_pend(started))
        return started

    def announce(
        self,
        created: dict[str, Any],
        order: Sequence[str | None],
        time_control: dict[str, Any] | None,
        extra: dict[str, Any],
        unpend: str | None = None,
    ) -> None:
        """Link the new match ``created`` (the referee's answer, with its seat tokens) to the
        bots of ``order`` (a bot's name per seat, ``None`` for a house seat) and send each its
        ``match_started`` event with its seat token, and ``extra`` (what made the match)."""
        match_id = created["match_id"]
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        keys = [name_key(n) if n is not None else "" for n in order]
        from_store(self.store.link_match, match_id, keys, self.referee.match_ttl)
        for seat, name in enumerate(order):
            if name is None:
                continue
            event = {
                "type": "match_started",
                "match_id": match_id,
                "game": created["game"],
                "seat": seat,
                "seat_token": tokens[seat],
                "players": len(order),
                "opponents": [n if n is not None else "house" for s, n in enumerate(order) if s != seat],
                "time_control": time_control,
                "watch_url": f"/watch/{match_id}",
                **extra,
            }
            self._append(name, event, pend=f"m:{match_id}", unpend=unpend)

    def match_finished(self, match: Match, snapshot: Snapshot) -> None:
        """Tell the bots of a match a challenge made that it has ended, count it on their
        profiles (and a fault for the seat whose time ran out). Called by the referee on the
        commit that ends the match: exactly once, on whichever node made that commit."""
        names = from_store(self.store.match_bots, match.match_id)
        if not names:
            return
        ended = match.ended or {}
        outcome = dict(snapshot.outcome) if snapshot.outcome is not None else {"aborted": True}
        for seat, key in enumerate(names):
            if not key:
                continue  # a house seat
            fault = "timeout" if ended.get("reason") == "timeout" and ended.get("seat") == seat else None
            from_store(self.store.count_match, key, fault)
            event = {
                "type": "match_finished",
                "match_id": match.match_id,
                "game": match.game_id,
                "seat": seat,
                "outcome": outcome,
                "replay_url": f"/v1/matches/{match.match_id}/replay",
            }
            self._append(key, event, unpend=f"m:{match.match_id}")

    # -- what a bot's page shows ----------------------------------------------------------------

    def bot_matches(self, bot: Bot, recent: int = 20) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The bot's matches in progress and its latest finished ones (newest first, up to
        ``recent``, from the events it still keeps), as a public page may show them: no
        seat token."""
        pending, last = from_store(self.store.pending, bot.key)
        playing = []
        for event in pending:
            data = orjson.loads(event.body)
            if data["type"] == "match_started":
                playing.append({k: data[k] for k in ("match_id", "game", "seat", "opponents", "watch_url")})
        window = from_store(self.store.events_after, bot.key, max(0, last - _PAGE_WINDOW), _PAGE_WINDOW)
        finished = [orjson.loads(e.body) for e in reversed(window)]
        results = [
            {k: data[k] for k in ("match_id", "game", "seat", "outcome", "replay_url")}
            for data in finished
            if data["type"] == "match_finished"
        ]
        return playing, results[:recent]

    # -- steps ---------------------------------------------------------------------------------

    def _involving(self, bot: Bot, challenge_id: str) -> tuple[int, Challenge]:
        """The challenge as it is now, if ``bot`` is in it (else, as for no challenge, 404)."""
        for _ in range(_ATTEMPTS):
            found = from_store(self.store.challenge, challenge_id) if len(challenge_id) <= 64 else None
            challenge = Challenge.decode(found[1]) if found is not None else None
            if found is None or challenge is None or bot.key not in {name_key(n) for n in challenge.bots}:
                raise NotFound("unknown_challenge", f"No challenge {challenge_id!r} of this bot.")
            if not self._expired(found[0], challenge):
                return found[0], challenge
        raise Conflict("challenge_busy", "The challenge keeps changing under this request; retry.")

    def _expired(self, version: int, challenge: Challenge) -> bool:
        """Expire an open challenge whose time is up; whether it changed it (read it again)."""
        if challenge.status != "open" or challenge.expires_ms > self.now_ms():
            return False
        expired = replace(challenge, status="expired")
        if self._move(version, expired, open_=False):
            self._tell(expired, {"type": "challenge_expired", "challenge": expired.answer()}, unpend=_pend(expired))
        return True

    def _close(self, bot: Bot, challenge_id: str, status: str, opponent: bool) -> dict[str, Any]:
        for _ in range(_ATTEMPTS):
            version, challenge = self._involving(bot, challenge_id)
            if opponent:
                self._opponent_only(bot, challenge)
            elif name_key(challenge.challenger) != bot.key:
                raise NotPermitted("not_the_challenger", "Only the challenger may cancel a challenge.")
            self._open_only(challenge)
            closed = replace(challenge, status=status)
            if self._move(version, closed, open_=False):
                event: dict[str, Any] = {"type": f"challenge_{status}", "challenge": closed.answer()}
                if opponent:
                    event["by"] = bot.name
                self._tell(closed, event, unpend=_pend(closed))
                return closed.answer()
        raise Conflict("challenge_busy", "The challenge keeps changing under this request; retry.")

    @staticmethod
    def _opponent_only(bot: Bot, challenge: Challenge) -> None:
        if bot.key not in {name_key(n) for n in challenge.opponents}:
            raise NotPermitted("not_an_opponent", "Only a bot the challenge names as an opponent may answer it.")

    @staticmethod
    def _open_only(challenge: Challenge) -> None:
        if challenge.status != "open":
            raise Conflict(
                "challenge_closed",
                f"The challenge is {challenge.status}; it takes no answers.",
                challenge_status=challenge.status,
            )

    def _move(self, version: int, challenge: Challenge, open_: bool) -> bool:
        return bool(
            from_store(self.store.update_challenge, challenge.id, version, challenge.encode(), self._ttl(), open_)
        )

    def _ttl(self) -> int:
        """How long a challenge stays readable: a day past its expiry."""
        return self.expiry_ms // 1000 + 86_400

    def _tell(
        self, challenge: Challenge, event: dict[str, Any], pend: str | None = None, unpend: str | None = None
    ) -> None:
        """Append ``event`` to the log of every bot of ``challenge``."""
        for name in challenge.bots:
            self._append(name, event, pend=pend, unpend=unpend)

    def _append(self, name: str, event: dict[str, Any], pend: str | None = None, unpend: str | None = None) -> None:
        from_store(self.store.append_event, name_key(name), orjson.dumps(event), pend, unpend)


def _pend(challenge: Challenge) -> str:
    """The pending entry of an open challenge in each of its bots' logs."""
    return f"c:{challenge.id}"


def auto_accepts(rules: dict[str, Any] | None, challenge: Challenge, challenger: str) -> bool:
    """Whether a bot's auto-accept rules take ``challenge``: no rules take nothing; each rule
    given (games, opponents, time controls) must list the challenge's, an absent one takes
    any."""
    if rules is None:
        return False
    if "games" in rules and challenge.game not in rules["games"]:
        return False
    if "opponents" in rules and name_key(challenger) not in {name_key(n) for n in rules["opponents"]}:
        return False
    return "time_controls" not in rules or challenge.time_control in rules["time_controls"]


def safe_hook(hook: Callable[[Match, Snapshot], None]) -> Callable[[Match, Snapshot], None]:
    """``hook`` for the referee's end of a match: a failure is logged, never the move's (the
    move is committed by then; its answer must not become an error)."""

    def call(match: Match, snapshot: Snapshot) -> None:
        try:
            hook(match, snapshot)
        except RefereeError as exc:
            log.warning("match %s ended but its bots were not told: %s", match.match_id, exc.detail)
        except Exception:
            log.exception("match %s ended but telling its bots failed", match.match_id)

    return call
