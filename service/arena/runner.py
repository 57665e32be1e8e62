"""Playing a tournament over the referee's HTTP API: one :class:`MatchPlay` per match, several
at once on a thread pool.

A match is created with the planned seed, seats and time control, then played decision by
decision: every seat in ``to_act`` is shown its view and legal actions and asked (all of them
before the runner waits for any), and each answer is submitted as soon as it comes, with that
seat's own state token. A seat whose bot fails (:class:`~service.arena.errors.BotFault`) meets the timeout
policy: in an untimed match the runner resigns it at once; in a timed match the seat goes
silent and the referee's clock acts for it (``forfeit`` ends the match, ``auto`` plays a random
legal move for it at each deadline until it forfeits). The runner never waits on a bot past its
deadline, and never waits on the referee past a deadline without looking again.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import random
import re
import shlex
import shutil
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from service.arena.client import ApiError, Body, MatchFollower, RefereeClient
from service.arena.errors import ArenaError, BotFault
from service.arena.players import Observation, Player, make_player
from service.arena.schedule import lineups
from service.bots.registry import BOT_NAMES

_CLOCK_KEYS = ("per_decision_s", "initial_s", "increment_s", "max_consecutive_timeouts")
_CLOCK_GRACE_S = 0.05
"""How long after a deadline the runner looks at the match again."""
_CLOCK_PATIENCE_S = 10.0
"""How long past a deadline the referee may take to apply it before the match is given up."""
_CLOCK_POLL_S = 0.2
_OTHERS_WAIT_S = 1.0
"""How long a play that holds only some seats waits on the match's stream for the others'
moves before it reads the match again (a read applies an expired deadline)."""
_OTHERS_POLL_S = 0.1
"""The least time between two reads of the match while the others decide (when the stream
cannot be had, say)."""
_POLL_S = 0.005
"""How long the runner waits on one of several thinking bots before it looks at the next."""
_WATCH_S = 1.0
"""How often the runner reads the match while bots think, to stop waiting once it is over."""
_MAX_DECISIONS = 50_000


_NAMED_COMMAND = re.compile(r"^([A-Za-z0-9_.-]+)=(.+)$")


@dataclass(frozen=True)
class BotEntry:
    """A bot of the tournament: a built-in name (``random``, ``heuristic``) or a command line,
    named ``name=command`` or else by the command itself."""

    name: str
    command: list[str] | None = None

    @classmethod
    def parse(cls, text: str) -> BotEntry:
        text = text.strip()
        if not text:
            raise ArenaError("an empty bot name in --bots")
        if text in BOT_NAMES:
            return cls(text)
        named = _NAMED_COMMAND.match(text)
        name, command = (named.group(1), named.group(2)) if named else (text, text)
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ArenaError(f"--bots: cannot read the command {command!r}: {exc}") from None
        if not argv:
            raise ArenaError(f"--bots: {text!r} names no command")
        problem = _cannot_run(argv[0])
        if problem is None:
            return cls(name, argv)
        if not named and argv == [text] and "/" not in text:  # a bare word: meant as a built-in?
            close = difflib.get_close_matches(text, BOT_NAMES, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise ArenaError(
                f"--bots: {text!r} is neither a built-in bot ({', '.join(BOT_NAMES)}) nor a command on PATH{hint}"
            )
        raise ArenaError(f"--bots: {problem}" if name == text else f"--bots: {name}: {problem}")


def _cannot_run(program: str) -> str | None:
    """Why ``program`` cannot be started (as ``subprocess`` would look for it), or ``None``."""
    if "/" not in program:
        return None if shutil.which(program) else f"no command {program!r} on PATH"
    path = Path(program)
    if not path.exists():
        return f"{program}: no such file"
    if path.is_dir() or not os.access(path, os.X_OK):
        return f"{program}: not executable"
    return None


def parse_bots(text: str) -> list[BotEntry]:
    """``random,heuristic,./my_bot.sh`` → the entries; a name may appear once only."""
    entries = [BotEntry.parse(part) for part in text.split(",")]
    names = [entry.name for entry in entries]
    if len(set(names)) != len(names):
        raise ArenaError(f"--bots names a bot twice: {text}")
    return entries


def parse_clock(text: str | None, on_timeout: str) -> dict[str, Any] | None:
    """``per_decision_s=5`` or ``initial_s=60,increment_s=1`` (optionally
    ``max_consecutive_timeouts=N``) → the ``clock`` of a match creation; ``None`` untimed."""
    if not text:
        return None
    clock: dict[str, Any] = {"on_timeout": on_timeout}
    for part in text.split(","):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in _CLOCK_KEYS:
            raise ArenaError(f"--clock: unknown field {key!r} (use {', '.join(_CLOCK_KEYS)})")
        try:
            number = float(value)
        except ValueError:
            raise ArenaError(f"--clock: {key} needs a number, not {value!r}") from None
        clock[key] = int(number) if number.is_integer() else number
    return clock


def parse_options(text: str) -> dict[str, Any]:
    """``--options``: the JSON object of a match creation's ``options``."""
    try:
        options = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise ArenaError(f"--options is not JSON: {exc}") from None
    if not isinstance(options, dict):
        raise ArenaError("--options must be a JSON object")
    return options


@dataclass(frozen=True)
class Plan:
    """Everything a tournament is asked to do."""

    game: str
    players: int
    bots: list[BotEntry]
    matches: int
    options: dict[str, Any] = field(default_factory=dict)
    clock: dict[str, Any] | None = None
    seed: str | None = None
    move_timeout_s: float = 10.0
    concurrency: int = 1

    def match_seed(self, index: int) -> str | None:
        """A 256-bit seed per match derived from ``--seed``, so a tournament can be replayed."""
        if self.seed is None:
            return None
        return hashlib.sha256(f"referee-arena:{self.seed}:{index}".encode()).hexdigest()

    def bot_rng(self, index: int, seat: int) -> random.Random:
        """The built-in bots' own randomness, seeded with the tournament when it has a seed."""
        return random.Random(f"{self.seed}:{index}:{seat}") if self.seed is not None else random.Random()


@dataclass
class MatchRecord:
    """One played match, as written to the JSON-lines file."""

    index: int
    game: str
    players: int
    seats: list[str]
    match_id: str | None = None
    status: str | None = None
    version: int = 0
    outcome: dict[str, Any] | None = None
    faults: list[dict[str, Any]] = field(default_factory=list)
    watch_url: str | None = None
    replay_url: str | None = None
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "match_id": self.match_id,
            "game": self.game,
            "players": self.players,
            "seats": [{"seat": seat, "bot": bot} for seat, bot in enumerate(self.seats)],
            "status": self.status,
            "moves": self.version,
            "outcome": self.outcome,
            "faults": self.faults,
            "watch_url": self.watch_url,
            "replay_url": self.replay_url,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


def summarize_outcome(outcome: Body | None) -> dict[str, Any] | None:
    """The parts of an outcome a tournament table needs, with why the match ended."""
    if outcome is None:
        return None
    detail = outcome.get("detail") or {}
    reason = detail.get("end_reason") or detail.get("reason") or "rules"
    return {
        "scores": outcome["scores"],
        "ranks": outcome["ranks"],
        "winners": outcome["winners"],
        "end_reason": reason,
    }


def _ended_by_own_clock(outcome: Body | None, seat: int) -> bool:
    """Whether the match ended because ``seat``'s own time ran out."""
    detail = (outcome or {}).get("detail") or {}
    return detail.get("end_reason") == "timeout" and detail.get("seat") == seat


@dataclass
class _Snapshot:
    """The last known version of the match and when it was read (clocks count from then)."""

    version: int
    status: str
    to_act: list[int]
    clock: Body | None
    received_s: float
    outcome: Body | None = None

    @classmethod
    def of(cls, body: Body) -> _Snapshot:
        return cls(
            body["version"], body["status"], list(body["to_act"]), body.get("clock"), time.time(), body.get("outcome")
        )

    def seat_deadline_s(self, seat: int, fallback_s: float) -> float:
        """When ``seat``'s time runs out, in local epoch seconds: from its remaining time as of
        the answer (no trust in the two machines' clocks agreeing), else ``fallback_s`` away."""
        if self.clock and seat in self.clock.get("running", []):
            return self.received_s + self.clock["remaining_ms"][seat] / 1000
        return self.received_s + fallback_s


class MatchPlay:
    """Plays one match of a tournament to its end.

    The tournament holds every seat; a subclass may hold only some (``tokens`` has the seats it
    plays, ``remote`` the others, decided by someone else: the play then waits for their moves
    as it waits for the referee's clock)."""

    def __init__(
        self,
        client: RefereeClient,
        plan: Plan,
        index: int,
        lineup: tuple[int, ...],
        stop: threading.Event | None = None,
        on_start: Callable[[MatchRecord], None] = lambda record: None,
    ) -> None:
        self.client = client
        self.stop = stop or threading.Event()
        self.on_start = on_start
        self.plan = plan
        self.index = index
        self.entries = [plan.bots[i] for i in lineup]
        self.record = MatchRecord(index, plan.game, plan.players, [entry.name for entry in self.entries])
        self.match_id = ""
        self.tokens: dict[int, str] = {}
        self.remote: set[int] = set()
        self.follower: MatchFollower | None = None
        """The match's stream while the remote seats decide (opened at the first wait)."""
        self.silent: set[int] = set()
        self.fresh: dict[int, Observation] = {}
        self.failure: ArenaError | None = None
        """Why the play was given up, if it was (``record.error`` says it in words)."""

    def run(self) -> MatchRecord:
        players = {
            seat: make_player(entry.name, entry.command, self.plan.game, self.plan.bot_rng(self.index, seat))
            for seat, entry in enumerate(self.entries)
        }
        return self.play_with(players, self._create)

    def play_with(self, players: Mapping[int, Player], start: Callable[[], _Snapshot]) -> MatchRecord:
        """Play the match that ``start`` creates or finds with ``players`` (one per seat this
        play holds) to its end; the record says how it went."""
        started = time.monotonic()
        try:
            self._play(players, start())
        except ArenaError as exc:
            self.failure = exc
            self.record.error = str(exc)
        finally:
            for player in players.values():
                player.close()
            if self.follower is not None:
                self.follower.close()
            self.record.seconds = time.monotonic() - started
        return self.record

    def join(self) -> _Snapshot:
        """The match as it is now, read as one of the seats this play holds: the start of a
        play of a match someone else created."""
        return _Snapshot.of(self.client.match(self.match_id, next(iter(self.tokens.values()), None)))

    def _create(self) -> _Snapshot:
        body: Body = {"game": self.plan.game, "players": self.plan.players, "options": self.plan.options}
        if (seed := self.plan.match_seed(self.index)) is not None:
            body["seed"] = seed
        if self.plan.clock is not None:
            body["clock"] = self.plan.clock
        created = self.client.create_match(body)
        self.match_id = self.record.match_id = created["match_id"]
        self.record.watch_url = self.client.watch_url(self.match_id)
        self.tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        self.on_start(self.record)
        return _Snapshot.of(created)

    def _play(self, players: Mapping[int, Player], state: _Snapshot) -> None:
        decisions = 0
        while state.status == "active":
            if self.stop.is_set():
                raise ArenaError("interrupted")
            decisions += 1
            if decisions > _MAX_DECISIONS:
                raise ArenaError(f"no end after {_MAX_DECISIONS} decisions")
            pending = [seat for seat in sorted(state.to_act) if seat not in self.silent | self.remote]
            if not pending:
                state = self._wait_for_referee(state)
                continue
            observations = {seat: self._observe(seat, state) for seat in pending}
            if any(obs.version != state.version for obs in observations.values()):
                state = _Snapshot.of(self.client.match(self.match_id))  # it moved meanwhile
                continue
            for seat in pending:
                players[seat].ask(observations[seat])
            state = self._collect(players, observations, state)
        final = self.client.match(self.match_id)
        self.record.status = final["status"]
        self.record.version = final["version"]
        self.record.outcome = summarize_outcome(final.get("outcome"))
        if final["status"] == "finished":
            self.record.replay_url = self.client.replay_url(self.match_id)

    def _observe(self, seat: int, state: _Snapshot) -> Observation:
        """The seat's view and legal actions at the current version: the ones its last action's
        answer brought when still current, else read (view, then the legal actions)."""
        cached = self.fresh.get(seat)
        if cached is not None and cached.version == state.version:
            return cached
        match = self.client.match(self.match_id, self.tokens[seat])
        legal = self.client.legal_actions(self.match_id, self.tokens[seat])
        snapshot = _Snapshot.of(match)
        version = match["version"] if legal["version"] == match["version"] else -1
        return self._observation(seat, snapshot, version, legal["state_token"], match["view"], legal["actions"])

    def _observation(
        self, seat: int, state: _Snapshot, version: int, state_token: str, view: Body, legal: list[Body]
    ) -> Observation:
        deadline_s = state.seat_deadline_s(seat, self.plan.move_timeout_s)
        return Observation(
            match_id=self.match_id,
            game=self.plan.game,
            players=self.plan.players,
            seat=seat,
            version=version,
            state_token=state_token,
            view=view,
            legal_actions=legal,
            to_act=state.to_act,
            clock=state.clock,
            deadline_ms=int(deadline_s * 1000),
        )

    def _collect(
        self, players: Mapping[int, Player], observations: dict[int, Observation], state: _Snapshot
    ) -> _Snapshot:
        """Submit each asked seat's decision as soon as it is made (ready ones in seat order), so
        a slow bot never holds back a seat that answered in time while its clock runs.

        Once the match is over (a seat resigned on a fault, a move ended it, or the referee did
        while the bots thought: the match is read again every :data:`_WATCH_S`), the bots still
        thinking are not waited for: they owe nothing any more.
        """
        waiting = list(observations)
        look_at_s = time.monotonic() + _WATCH_S
        while waiting:
            # One left: wait for it, up to its deadline or the next look at the match.
            wait_s = max(0.0, look_at_s - time.monotonic()) if len(waiting) == 1 else _POLL_S
            for seat in list(waiting):
                try:
                    action = players[seat].poll(wait_s)
                except BotFault as fault:
                    waiting.remove(seat)
                    state = self._fault(players[seat], seat, fault, state)
                else:
                    if action is None:
                        continue
                    waiting.remove(seat)
                    state = self._submit(players[seat], seat, observations[seat], action, state)
                if state.status != "active":
                    return state
            if waiting and time.monotonic() >= look_at_s:
                state = self._latest(state)
                if state.status != "active":
                    return state
                look_at_s = time.monotonic() + _WATCH_S
        return state

    def _latest(self, state: _Snapshot) -> _Snapshot:
        """The match as it is now, unless it has not moved (then ``state``, whose clock was
        read when the bots were asked)."""
        latest = _Snapshot.of(self.client.match(self.match_id))
        return state if latest.version == state.version and latest.status == state.status else latest

    def _submit(self, player: Player, seat: int, observation: Observation, action: Body, state: _Snapshot) -> _Snapshot:
        """Submit one decision. A decision that another seat's move made stale (no longer owed,
        or no longer legal) is not the bot's fault: the seat is asked again on the new version."""
        if state.status != "active" or seat not in state.to_act:
            return state
        try:
            answer = self.client.act(self.match_id, self.tokens[seat], observation.state_token, action)
        except ApiError as exc:
            if exc.status == 422 and observation.version == state.version:
                return self._fault(player, seat, BotFault("illegal_action", str(exc)), state)
            if exc.status in (403, 409, 422):  # decided before another seat's move: ask again
                return _Snapshot.of(self.client.match(self.match_id))
            raise
        state = _Snapshot.of(answer)
        if seat in state.to_act:
            self.fresh[seat] = self._observation(
                seat, state, answer["version"], answer["state_token"], answer["view"], answer["legal_actions"]
            )
        return state

    def _fault(self, player: Player, seat: int, fault: BotFault, state: _Snapshot) -> _Snapshot:
        """A bot failed: record it, take the bot out, and apply the timeout policy. A bot out of
        time on a match that has ended meanwhile, for another reason than its own time, owed
        nothing: that is not its fault."""
        player.close()
        self.silent.add(seat)
        if fault.reason == "timeout":
            state = self._latest(state)
            if state.status != "active" and not _ended_by_own_clock(state.outcome, seat):
                return state
        clocked = state.clock is not None
        self.record.faults.append(
            {
                "seat": seat,
                "bot": self.entries[seat].name,
                "version": state.version,
                "reason": fault.reason,
                "detail": fault.detail,
                "policy": "clock" if clocked else "resigned",
            }
        )
        if clocked or state.status != "active":
            return state
        try:
            return _Snapshot.of(self.client.resign(self.match_id, self.tokens[seat]))
        except ApiError as exc:
            if exc.status not in (403, 409):
                raise
            return _Snapshot.of(self.client.match(self.match_id))

    def _wait_for_referee(self, state: _Snapshot) -> _Snapshot:
        """Only silent or remote seats owe a decision. Remote ones decide themselves: look
        until the match moves. Silent ones: the referee's clock acts for them at their
        deadline. Look again just after it, and a little longer if the referee is late."""
        if self.remote.intersection(state.to_act):
            return self._wait_for_others(state)
        if state.clock is None:
            raise ArenaError("every seat that owes a decision is out, and the match has no clock")
        due_s = min(state.seat_deadline_s(seat, 0.0) for seat in state.to_act)
        give_up_s = due_s + _CLOCK_PATIENCE_S
        time.sleep(max(0.0, due_s + _CLOCK_GRACE_S - time.time()))
        while True:
            latest = _Snapshot.of(self.client.match(self.match_id))
            if latest.version != state.version or latest.status != "active":
                return latest
            if time.time() > give_up_s:
                raise ArenaError(f"the referee did not apply the deadline of version {state.version}")
            time.sleep(_CLOCK_POLL_S)

    def _wait_for_others(self, state: _Snapshot) -> _Snapshot:
        """Wait on the match's stream until it moves on from ``state``, then read it (as one
        of this play's seats, on that seat's rate budget): a bot in a hundred matches would
        otherwise poll the referee a thousand times a second. A read also applies an expired
        deadline, so a remote seat that went silent meets its clock's policy without the
        server's sweeper: the match is read at least every :data:`_OTHERS_WAIT_S`."""
        token = next(iter(self.tokens.values()), None)
        if self.follower is None:
            self.follower = self.client.follow(self.match_id, token)
        while not self.stop.is_set():
            began = time.monotonic()
            news = self.follower.wait(state.version, _OTHERS_WAIT_S)
            latest = _Snapshot.of(self.client.match(self.match_id, token))
            if latest.version != state.version or latest.status != state.status:
                return latest
            if not news:
                self.stop.wait(max(0.0, _OTHERS_POLL_S - (time.monotonic() - began)))
        return state


def run_tournament(
    client: RefereeClient,
    plan: Plan,
    on_done: Callable[[MatchRecord], None] = lambda record: None,
    on_start: Callable[[MatchRecord], None] = lambda record: None,
) -> list[MatchRecord]:
    """Play every planned match, ``plan.concurrency`` at a time; records in match order.
    ``on_start`` hears of each match once it is created (it can be watched from then on),
    ``on_done`` once it is played.

    On Ctrl-C no further match starts and the matches under way stop at their next decision
    (their bots are stopped with them), then ``KeyboardInterrupt`` goes on.
    """
    stop = threading.Event()
    plays = [
        MatchPlay(client, plan, index, lineup, stop, on_start)
        for index, lineup in enumerate(lineups(len(plan.bots), plan.players, plan.matches))
    ]

    def play(match: MatchPlay) -> MatchRecord:
        record = match.run()
        on_done(record)
        return record

    pool = ThreadPoolExecutor(max_workers=max(1, plan.concurrency), thread_name_prefix="arena")
    try:
        return list(pool.map(play, plays))
    except KeyboardInterrupt:
        stop.set()
        raise
    finally:
        pool.shutdown(cancel_futures=True)
