"""The bridge between a bot and its account: ``referee bot connect`` and :meth:`Bot.run`.

It holds the account's event stream open (:class:`~service.botkit.events.EventStream`:
reconnects with ``Last-Event-ID``, waits out busy answers), answers challenges by the
``--accept`` rules, and plays each ``match_started`` match in a thread of its own
(:class:`~service.botkit.seat.SeatPlay`), at most ``max_matches`` at once (more wait for a
thread). A play the referee stops answering (it restarts, the network is gone) is taken up
again after a pause, from the match as it then is. A fresh connection (a bridge started anew)
gets the matches in progress replayed as ``match_started`` events: each is played unless this
bridge is playing it already.

Ctrl-C (or SIGTERM) drains: the stream is closed, so no challenge is accepted any more, and the
matches under way are played to their end. A second Ctrl-C stops them at their next decision.

What it does is written as JSON lines on ``out``: each event (a seat token never), and
``{"type": "match_played", ...}`` with the arena's record of each match it played; what it
says to a person goes to ``err``.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TextIO

import orjson

from service.arena.client import ApiError, Body
from service.arena.errors import ArenaError
from service.arena.players import Player
from service.botkit.accounts import AccountClient
from service.botkit.events import Event, EventStream, KeyRefused
from service.botkit.rules import AcceptRules
from service.botkit.seat import SeatPlay

MakePlayer = Callable[[Body], Player]
"""The player of one match, from its ``match_started`` event's data."""

DEFAULT_MAX_MATCHES = 4
DEFAULT_MOVE_TIMEOUT_S = 10.0
RESUME_FOR_S = 600.0
"""How long a bridge keeps taking up a match the referee does not answer about."""
_FIRST_RESUME_PAUSE_S = 1.0
_LONGEST_RESUME_PAUSE_S = 30.0
_SECRET_FIELDS = ("seat_token",)


class Report:
    """Where the bridge tells what it does; lines from several threads never interleave."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out = out
        self._err = err
        self._lock = threading.Lock()

    def line(self, body: dict[str, Any]) -> None:
        text = orjson.dumps({key: value for key, value in body.items() if key not in _SECRET_FIELDS}).decode()
        with self._lock:
            print(text, file=self._out, flush=True)

    def say(self, text: str) -> None:
        with self._lock:
            print(f"referee bot: {text}", file=self._err, flush=True)


class Bridge:
    """One account's bridge; :meth:`run` until drained."""

    def __init__(
        self,
        client: AccountClient,
        make_player: MakePlayer,
        rules: AcceptRules | None,
        report: Report,
        max_matches: int = DEFAULT_MAX_MATCHES,
        move_timeout_s: float = DEFAULT_MOVE_TIMEOUT_S,
    ) -> None:
        self.client = client
        self.make_player = make_player
        self.rules = rules
        self.report = report
        self.max_matches = max_matches
        self.move_timeout_s = move_timeout_s
        self.name = ""
        self.hang_up = threading.Event()
        """Set to stop reading events (draining)."""
        self.stop = threading.Event()
        """Set to stop the matches under way at their next decision."""
        self._lock = threading.Lock()
        self._playing: set[str] = set()
        self._played: set[str] = set()
        self._pool = ThreadPoolExecutor(max_workers=max_matches, thread_name_prefix="match")

    def run(self) -> int:
        """Play until Ctrl-C, then drain. Exit status: 0 drained, 1 the key was refused while
        connected (after draining), 2 the bot could not start, 130 stopped by a second Ctrl-C."""
        try:
            self.name = self.client.me()["name"]
        except ApiError as exc:
            self.report.say(f"the referee refused the key: {exc}" if exc.status in (401, 403) else str(exc))
            return 2
        except ArenaError as exc:
            self.report.say(str(exc))
            return 2
        stream = EventStream(
            self.client.base_url,
            self.client.key or "",
            self.hang_up,
            on_connect=self._connected,
            on_wait=lambda reason, seconds: self.report.say(f"{reason}: connecting again in {seconds:.1f} s"),
        )
        status = 0
        try:
            for event in stream:
                self.handle(event)
        except KeyboardInterrupt:
            pass
        except KeyRefused as exc:
            self.report.say(str(exc))
            status = 1
        finally:
            self.hang_up.set()
            stream.close()
        return self._drain(status)

    def _connected(self, last_event_id: str | None) -> None:
        after = f" after event {last_event_id}" if last_event_id is not None else ""
        self.report.say(f"connected to {self.client.base_url} as {self.name}{after}")

    def _drain(self, status: int) -> int:
        with self._lock:
            running = len(self._playing)
        if running:
            self.report.say(f"draining: finishing {running} match(es); Ctrl-C again to stop them")
        try:
            self._pool.shutdown(wait=True)
        except KeyboardInterrupt:
            self.stop.set()
            self._pool.shutdown(wait=True, cancel_futures=True)
            return 130
        return status

    def handle(self, event: Event) -> None:
        """React to one event of the account."""
        self.report.line(event.data | {"type": event.type})
        if event.type == "challenge":
            self._challenged(event.data["challenge"])
        elif event.type == "match_started":
            self._started(event.data)

    def _challenged(self, challenge: Body) -> None:
        """Accept or decline a challenge addressed to this bot, by the rules; without rules
        it is left to the account's own (``auto_accept``), or to expire."""
        me = self.name.lower()
        named = [name.lower() for name in challenge.get("opponents", [])]
        accepted = [name.lower() for name in challenge.get("accepted", [])]
        if self.rules is None or challenge.get("status") != "open" or me not in named or me in accepted:
            return
        with self._lock:
            busy = len(self._playing) >= self.max_matches
        verb = "accept" if self.rules.accepts(challenge) and not busy else "decline"
        try:
            self.client.answer(challenge["id"], verb)
        except ArenaError as exc:  # answered meanwhile, canceled, expired, or no answer: it expires
            self.report.say(f"challenge {challenge['id']}: could not {verb}: {exc}")
            return
        why = " (busy)" if busy else ""
        done = "accepted" if verb == "accept" else "declined"
        self.report.say(f"challenge {challenge['id']} from {challenge.get('challenger')}: {done}{why}")

    def _started(self, started: Body) -> None:
        match_id = started["match_id"]
        with self._lock:
            if match_id in self._playing or match_id in self._played:
                return
            self._playing.add(match_id)
        self.report.say(f"match {match_id} ({started['game']}, seat {started['seat']}): {started.get('watch_url')}")
        self._pool.submit(self._play, started)

    def _play(self, started: Body) -> None:
        """Play the match to its end. A play given up because the referee could not be reached
        (or failed) is taken up again after a pause, from the match as it then is, for up to
        :data:`RESUME_FOR_S`; one the referee refused (the match is gone) is not."""
        match_id = started["match_id"]
        pause_s, give_up_s = _FIRST_RESUME_PAUSE_S, time.monotonic() + RESUME_FOR_S
        record = None
        try:
            while not self.stop.is_set():
                play = SeatPlay(self.client, started, self.name, self.move_timeout_s, self.stop)
                record = play.play(self.make_player(started))
                self.report.line({"type": "match_played"} | record.to_json())
                if record.error is None or not _worth_resuming(play.failure) or time.monotonic() > give_up_s:
                    break
                self.report.say(f"match {match_id} broke off: {record.error}; taking it up again in {pause_s:g} s")
                self.stop.wait(pause_s)
                pause_s = min(2 * pause_s, _LONGEST_RESUME_PAUSE_S)
            if record is not None and record.error:
                self.report.say(f"match {match_id} given up: {record.error}")
        except Exception as exc:  # a thread's failure must not pass unseen
            self.report.say(f"match {match_id} broke off: {exc!r}")
        finally:
            with self._lock:
                self._playing.discard(match_id)
                if record is not None and record.status == "finished":
                    self._played.add(match_id)


def _worth_resuming(failure: ArenaError | None) -> bool:
    """The referee could not be reached, or failed: it may answer later."""
    return not isinstance(failure, ApiError) or failure.status >= 500


def connect(
    url: str,
    key: str,
    make_player: MakePlayer,
    accept: str | None = None,
    max_matches: int = DEFAULT_MAX_MATCHES,
    move_timeout_s: float = DEFAULT_MOVE_TIMEOUT_S,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Run a bridge for the bot ``key`` at ``url`` until Ctrl-C or SIGTERM (then drain); the
    exit status of :meth:`Bridge.run`."""
    report = Report(out or sys.stdout, err or sys.stderr)
    try:
        rules = AcceptRules.parse(accept) if accept is not None else None
        if max_matches < 1 or move_timeout_s <= 0:
            raise ArenaError("--max-matches and --move-timeout must be positive")
    except ArenaError as exc:
        report.say(str(exc))
        return 2
    client = AccountClient(url, key, connections=2 * max_matches + 2)
    bridge = Bridge(client, make_player, rules, report, max_matches, move_timeout_s)
    terminated = _drain_on_sigterm()
    try:
        return bridge.run()
    finally:
        client.close()
        if terminated is not None:
            signal.signal(signal.SIGTERM, terminated)


def _drain_on_sigterm() -> Any:
    """SIGTERM drains like Ctrl-C (a service manager stopping the bridge); the handler it
    replaces, to put back (``None`` off the main thread, where signals cannot be handled)."""
    if threading.current_thread() is not threading.main_thread():
        return None

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    return signal.signal(signal.SIGTERM, interrupt)
