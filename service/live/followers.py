"""Following a match: every version of it, in order, as one caller may see it.

A :class:`Follower` turns notifications (:mod:`service.live.feeds`) into the stream's events.
It subscribes before it reads the match, so no commit falls between the read and the
subscription; each wake-up (and each heartbeat) reads the match again and sends every
version since the last one sent, never skipping one: the versions in between are rebuilt by
stepping the engine forward through the log from the last state sent. The newest version is
always built from the match as loaded, through the same answers (:mod:`service.answers`) as
``GET /v1/matches/{id}``, and the events of each version through the history's own
redaction (:func:`service.answers.history_entry`).

A stream resumed after ``Last-Event-ID`` has no state of its own to step from, and rebuilding
one replays the match from its seed: work that grows with the match's length, which a client
reconnecting in a loop would make the server do again and again. So a resume gets the
versions it missed only when this process still keeps their events (another stream of the
match here built them: the last :data:`_KEEP_VERSIONS`); otherwise it gets the current
version alone, marked with how many versions it ``skipped`` (their events are in the
history). Either costs a bounded amount of work, whatever the match's length.

The followers of one process share their reads through :class:`LiveMatches`: a move followed
by a thousand streams costs one load of the match, one read of its log entry and one event
per distinct viewer (the spectators share one), not a thousand of each.

Nothing here knows about HTTP: :mod:`service.api.streams` writes the events as SSE.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson

from service.answers import Caller, history_entry
from service.engine import Game
from service.errors import InvalidRequest, NotFound, Unavailable
from service.live.feeds import Feed, Subscription
from service.match import Match, Move, Snapshot, step
from service.referee import Referee

#: The fields of a match body that a stream event carries (those the referee has).
EVENT_FIELDS = (
    "match_id",
    "game",
    "version",
    "status",
    "to_act",
    "seat",
    "view",
    "clock",
    "house",
    "outcome",
    "seed",
    "state_token",
    "updated_at",
)

#: A heartbeat's read of the match reuses one made this recently by another follower.
FRESH_SECONDS = 1.0

#: Store reads the streams of one process make at once, at most. A burst of new streams on
#: as many matches must not take every connection of the store client's pool (redis-py's
#: holds 100), which the process's moves need too: beyond it they were refused 503.
STORE_READS = 16

#: Log entries and built events kept per match, counted in versions back from the newest
#: (a stream further behind rebuilds its own).
_KEEP_VERSIONS = 16


@dataclasses.dataclass(frozen=True)
class Frame:
    """One event, ready to send: its version and its data as JSON."""

    version: int
    data: bytes


@dataclasses.dataclass
class _Followed:
    """What the followers of one match in this process share."""

    lock: threading.Lock = dataclasses.field(default_factory=threading.Lock)
    match: Match | None = None
    loaded_at: float = -math.inf
    """When the read of :attr:`match` began (monotonic seconds)."""
    moves: dict[int, Move] = dataclasses.field(default_factory=dict)
    frames: dict[tuple[int, int | None, bool], bytes] = dataclasses.field(default_factory=dict)
    ended: dict[int, bool] = dataclasses.field(default_factory=dict)
    streams: int = 0


class LiveMatches:
    """The latest loaded version, recent log entries and built events of the matches
    followed in this process, kept while a stream of the match is open here."""

    def __init__(self, referee: Referee, store_reads: int = STORE_READS) -> None:
        self.referee = referee
        self._followed: dict[str, _Followed] = {}
        self._lock = threading.Lock()
        self._reads = threading.BoundedSemaphore(store_reads)

    def attach(self, match_id: str) -> None:
        """A stream of ``match_id`` opens here."""
        with self._lock:
            self._followed.setdefault(match_id, _Followed()).streams += 1

    def detach(self, match_id: str) -> None:
        """A stream of ``match_id`` closes; the last one takes what was kept with it."""
        with self._lock:
            entry = self._followed.get(match_id)
            if entry is not None:
                entry.streams -= 1
                if entry.streams <= 0:
                    del self._followed[match_id]

    def _entry(self, match_id: str) -> _Followed:
        """What is kept of ``match_id`` (a fresh, unkept entry if no stream holds it)."""
        with self._lock:
            return self._followed.get(match_id) or _Followed()

    def load(self, match_id: str, at_least: int | None = None, read_since: float | None = None) -> Match:
        """The match at ``at_least`` or later; with ``read_since`` (monotonic seconds), as read
        from that moment on; with neither, as read in the last :data:`FRESH_SECONDS`. One
        follower reads while the others wait for its result.

        :raises NotFound, Unavailable: as :meth:`Referee.load`.
        """
        entry = self._entry(match_id)
        with entry.lock:
            cached = entry.match
            if cached is not None:
                if at_least is not None:
                    fresh = cached.version >= at_least
                elif read_since is not None:
                    fresh = entry.loaded_at >= read_since
                else:
                    fresh = time.monotonic() - entry.loaded_at < FRESH_SECONDS
                if fresh:
                    return cached
            started = time.monotonic()
            with self._reads:
                match = self.referee.load(match_id)
            if entry.match is None or entry.match.version <= match.version:
                self._keep(entry, match, started)
            return match

    @staticmethod
    def _keep(entry: _Followed, match: Match, read_at: float) -> None:
        entry.match, entry.loaded_at = match, read_at
        oldest = match.version - _KEEP_VERSIONS
        entry.moves = {v: m for v, m in entry.moves.items() if v > oldest}
        entry.frames = {k: f for k, f in entry.frames.items() if k[0] > oldest}
        entry.ended = {v: e for v, e in entry.ended.items() if v > oldest}

    def ended(self, game: Game, match: Match) -> bool:
        """Whether the match has ended at ``match``'s version (worked out once per version)."""
        entry = self._entry(match.match_id)
        with entry.lock:
            ended = entry.ended.get(match.version)
            if ended is None:
                ended = entry.ended[match.version] = Snapshot.of_match(game, match).status != "active"
            return ended

    def moves(self, match_id: str, start: int, stop: int) -> list[Move]:
        """The moves that produced versions ``start + 1`` to ``stop``."""
        entry = self._entry(match_id)
        with entry.lock:
            if all(v in entry.moves for v in range(start + 1, stop + 1)):
                return [entry.moves[v] for v in range(start + 1, stop + 1)]
            with self._reads:
                raw = self.referee.read_log(match_id, start, stop)
            moves = [Move.decode(item) for item in raw]
            if len(moves) != stop - start:
                raise NotFound("match_damaged", f"The log of match {match_id} is shorter than its version {stop}.")
            if entry.match is not None and stop > entry.match.version - _KEEP_VERSIONS:
                entry.moves.update((m.version, m) for m in moves)
            return moves

    def kept_frames(self, match_id: str, versions: range, seat: int | None, revealed: bool) -> list[Frame] | None:
        """The events of ``versions`` for ``seat`` as kept here, or ``None`` unless every one is."""
        entry = self._entry(match_id)
        with entry.lock:
            kept = [entry.frames.get((version, seat, revealed)) for version in versions]
        frames = [Frame(version, data) for version, data in zip(versions, kept, strict=True) if data is not None]
        return frames if len(frames) == len(kept) else None

    def frame(self, match_id: str, key: tuple[int, int | None, bool], build: Callable[[], bytes]) -> bytes:
        """The event of ``key`` = (version, seat, revealed), built once per process."""
        entry = self._entry(match_id)
        with entry.lock:
            built = entry.frames.get(key)
        if built is None:
            built = build()
            with entry.lock:
                if entry.match is not None and key[0] > entry.match.version - _KEEP_VERSIONS:
                    entry.frames[key] = built
        return built


@dataclasses.dataclass
class _Sent:
    """The last version sent, with the engine state and random stream position after it
    (``None`` for the version a resumed stream names: nothing was sent here yet)."""

    version: int
    state: dict[str, Any] | None = None
    rng: int | None = None


class Follower:
    """One open stream: a caller following one match from a version on."""

    def __init__(self, live: LiveMatches, subscription: Subscription, match: Match, caller: Caller, after: int | None):
        """A follower of a match :meth:`open` attached to ``live`` (so that what the process
        keeps of it stays while the stream is open); :meth:`close` detaches it."""
        self._live = live
        self._referee = live.referee
        self._subscription = subscription
        self._match = match
        self._caller = caller
        self._game = self._referee.game(match.game_id)
        self._sent = _Sent(after) if after is not None else None
        self._open = True
        self._stopped = False

    @classmethod
    def open(
        cls, live: LiveMatches, feed: Feed, match_id: str, bearer: str | None, after: int | None
    ) -> Follower | None:
        """Subscribe, then read the match and check the caller; ``None`` when ``after`` is
        the last version of an ended match (nothing will ever come).

        :raises NotFound, NotAuthenticated: as reading the match would.
        :raises InvalidRequest: ``invalid_last_event_id`` for a version the match has not reached.
        """
        subscription = feed.subscribe(match_id)
        live.attach(match_id)  # so that the streams opening at once share one read
        follower: Follower | None = None
        try:
            subscription.wait_ready()
            match = live.load(match_id, read_since=time.monotonic())
            caller = live.referee.caller(match, bearer)
            if after is not None and after > match.version:
                raise InvalidRequest(
                    "invalid_last_event_id",
                    f"The match is at version {match.version}; Last-Event-ID {after} is not one of its versions.",
                    current_version=match.version,
                )
            follower = cls(live, subscription, match, caller, after)
            if after == match.version and follower._ended(match):
                follower.close()
                return None
            return follower
        except BaseException:
            if follower is not None:
                follower.close()
            else:
                subscription.close()
                live.detach(match_id)
            raise

    def frames(self, heartbeat: float) -> Iterator[Frame | None]:
        """Each version's event, in order; ``None`` when ``heartbeat`` seconds passed with
        nothing new. Ends after the match's final version (or if the match expires)."""
        try:
            match = self._match
            while True:
                yield from self._catch_up(match)
                if self._ended(match):
                    return
                woken = self._subscription.wait(heartbeat)
                if self._stopped:
                    return
                if not woken:
                    yield None
                sent = self._sent.version if self._sent is not None else -1
                try:
                    match = self._live.load(match.match_id, max(self._subscription.latest, sent + 1) if woken else None)
                except Unavailable:
                    continue  # the store is back soon: the next wake-up or heartbeat reads again
                except NotFound:
                    return
        finally:
            self.close()

    def stop(self) -> None:
        """End the stream at once (its client hung up), rather than at its next write."""
        self._stopped = True
        self._subscription.wake()

    def close(self) -> None:
        """Leave the feed and what the process keeps for the match's streams (once)."""
        if self._open:
            self._open = False
            self._subscription.close()
            self._live.detach(self._match.match_id)

    # -- building events -------------------------------------------------------------------

    def _ended(self, match: Match) -> bool:
        return self._live.ended(self._game, match)

    def _catch_up(self, match: Match) -> Iterator[Frame]:
        """The events of every version after the last one sent, up to ``match``'s."""
        revealed = self._ended(match)
        sent = self._sent
        if sent is not None and match.version <= sent.version:
            return
        if sent is None:
            yield self._frame(match, self._last_move(match), revealed)
        elif sent.state is None or sent.rng is None:
            yield from self._resume(match, sent.version, self._last_move(match), revealed)
        else:
            moves = self._live.moves(match.match_id, sent.version, match.version)
            if len(moves) > 1:
                # A copy: engines change the state they are given, and the one held may be shared.
                state, rng = orjson.loads(orjson.dumps(sent.state)), sent.rng
                for move in moves[:-1]:
                    state, rng = step(self._game, match, state, rng, move)
                    then = dataclasses.replace(match, version=move.version, state=state, rng=rng, updated_at=move.at)
                    yield self._frame(then, move, revealed)
                    self._sent = _Sent(move.version, state, rng)
            yield self._frame(match, moves[-1], revealed)
        self._sent = _Sent(match.version, match.state, match.rng)

    def _last_move(self, match: Match) -> Move | None:
        """The log entry that made ``match``'s version (none for version 0)."""
        return self._live.moves(match.match_id, match.version - 1, match.version)[0] if match.version else None

    def _resume(self, match: Match, after: int, last: Move | None, revealed: bool) -> Iterator[Frame]:
        """After ``Last-Event-ID: after``: the versions missed if this process keeps them all,
        else the current one marked with how many were skipped."""
        missed = range(after + 1, match.version)
        kept = self._live.kept_frames(match.match_id, missed, self._caller.seat, revealed)
        if kept is not None:
            yield from kept
            yield self._frame(match, last, revealed)
            return
        event = self._event(match, last, revealed) | {"skipped": len(missed)}
        yield Frame(match.version, orjson.dumps(event))

    def _frame(self, match: Match, move: Move | None, revealed: bool) -> Frame:
        key = (match.version, self._caller.seat, revealed)
        data = self._live.frame(match.match_id, key, lambda: orjson.dumps(self._event(match, move, revealed)))
        return Frame(match.version, data)

    def _event(self, match: Match, move: Move | None, revealed: bool) -> dict[str, Any]:
        """The event of ``match``'s version (produced by ``move``) as the caller sees it."""
        game: Game = self._game
        body = self._referee.answers.match(match, game, Snapshot.of_match(game, match), self._caller)
        event = {name: body[name] for name in EVENT_FIELDS if name in body}
        if self._caller.seat is None:
            event.pop("state_token", None)
        entry = history_entry(move, game, self._caller, revealed) if move is not None else None
        event["events"] = entry["events"] if entry is not None else []
        event["kind"] = entry.get("kind", "move") if entry is not None else None
        return event
