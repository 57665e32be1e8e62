"""Who decides for a seat: a built-in bot (``service.bots``) or an external program.

A decision has two steps, :meth:`Player.ask` then :meth:`Player.poll`, so that when several
seats owe a decision at once the runner asks every one of them before it waits for any (the
external programs think at the same time) and takes the answers as they come.

External programs speak the protocol of docs/arena.md: the runner starts the program once per
seat per match, writes one JSON line per decision on its standard input and reads one JSON
line ``{"action": {...}}`` from its standard output; end of input means the match is over.
A program that misses its deadline, writes anything else, or exits is stopped for the rest of
the match (a late answer could otherwise be taken for the next decision's) and the fault is
reported to the runner as :class:`~service.arena.errors.BotFault`. So is a stale answer (one
written twice, say), never taken for the next decision's: each request carries its number
(``decision``), and an answer that echoes another number is stale; so is a line that reached
the runner before the request it would answer was written.
"""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from service.arena.errors import BotFault
from service.bots.registry import BOT_NAMES, THINKING_MARGIN_MS, is_search, make_bot

_STDERR_TAIL_BYTES = 2000
_EXIT_GRACE_S = 1.0


@dataclass(frozen=True)
class Observation:
    """What a seat is shown for one decision; ``request()`` is the protocol's line."""

    match_id: str
    game: str
    players: int
    seat: int
    version: int
    state_token: str
    view: dict[str, Any]
    legal_actions: list[dict[str, Any]]
    to_act: list[int]
    clock: dict[str, Any] | None
    deadline_ms: int
    """When the answer is due, in this machine's epoch milliseconds."""

    def request(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "game": self.game,
            "players": self.players,
            "seat": self.seat,
            "version": self.version,
            "view": self.view,
            "legal_actions": self.legal_actions,
            "to_act": self.to_act,
            "clock": self.clock,
            "deadline_ms": self.deadline_ms,
        }


class Player(Protocol):
    """One seat's decision maker for one match."""

    def ask(self, observation: Observation) -> None:
        """Start deciding (an external program gets its line now)."""

    def poll(self, wait_s: float | None) -> dict[str, Any] | None:
        """The action decided on, waiting up to ``wait_s`` seconds for it (``None``: up to the
        deadline); ``None`` while the bot is still thinking within its time.

        :raises BotFault: the bot failed this decision.
        """

    def close(self) -> None:
        """The match is over (or the bot is out of it): release the bot."""


class BuiltinPlayer:
    """A bot of ``service.bots`` deciding in this process; a search level stops in time for
    the decision's deadline, keeping the house seats' margin for sending its answer."""

    def __init__(self, game: str, name: str, rng: random.Random) -> None:
        self._game, self._name = game, name
        self._bot = make_bot(game, name)
        self._rng = rng
        self._decided: dict[str, Any] | None = None

    def ask(self, observation: Observation) -> None:
        bot = self._bot
        if is_search(self._name):
            left_s = observation.deadline_ms / 1000 - time.time() - THINKING_MARGIN_MS / 1000
            bot = make_bot(self._game, self._name, within_s=max(0.0, left_s))
        self._decided = bot.choose(observation.view, observation.legal_actions, self._rng)

    def poll(self, wait_s: float | None) -> dict[str, Any] | None:
        assert self._decided is not None, "poll() before ask()"
        return self._decided

    def close(self) -> None:
        self._decided = None


class ExternalPlayer:
    """A program speaking the JSON-lines protocol, started in its own process group (so a
    shell script's children are stopped with it)."""

    def __init__(self, command: list[str]) -> None:
        self._command = command
        self._process: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[tuple[int, bytes | None]] = queue.Queue()
        """Each line the program wrote (``None``: it closed its output), with the number of
        decisions it had been asked when the line arrived."""
        self._asked = 0
        """How many decisions the program has been asked: the number of the last one."""
        self._asking = threading.Lock()
        """Held to ask and to stamp a line, so that a line arrives before or after a request."""
        self._stderr: deque[bytes] = deque()
        self._stderr_reader: threading.Thread | None = None
        self._deadline_ms = 0
        self._asked_for_s = 0.0
        self._fault: BotFault | None = None

    def _start(self) -> subprocess.Popen[bytes]:
        """Start the program; :class:`OSError` when it cannot be."""
        process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        threading.Thread(target=self._read_stdout, args=(process,), daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, args=(process,), daemon=True)
        self._stderr_reader.start()
        return process

    def _read_stdout(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        for line in process.stdout:
            with self._asking:
                self._lines.put((self._asked, line))
        with self._asking:
            self._lines.put((self._asked, None))

    def _read_stderr(self, process: subprocess.Popen[bytes]) -> None:
        """Keeps the last couple of kilobytes of what the program says, to explain a crash."""
        assert process.stderr is not None
        size = 0
        for chunk in process.stderr:
            self._stderr.append(chunk)
            size += len(chunk)
            while size > _STDERR_TAIL_BYTES and len(self._stderr) > 1:
                size -= len(self._stderr.popleft())

    def stderr_tail(self) -> str:
        return b"".join(self._stderr).decode(errors="replace")[-_STDERR_TAIL_BYTES:].strip()

    def ask(self, observation: Observation) -> None:
        if self._fault is not None:
            return
        if self._process is None:
            try:
                self._process = self._start()
            except OSError as exc:
                self._stop_with(BotFault("crashed", f"cannot start {self._command[0]!r}: {exc}"))
                return
        self._deadline_ms = observation.deadline_ms
        self._asked_for_s = max(0.0, observation.deadline_ms / 1000 - time.time())
        assert self._process.stdin is not None
        with self._asking:  # lines arriving from now on may answer this decision
            self._asked += 1
        try:
            self._process.stdin.write(orjson.dumps({**observation.request(), "decision": self._asked}) + b"\n")
            self._process.stdin.flush()
        except OSError:
            self._stop_with(BotFault("crashed", self._exit_description()))

    def poll(self, wait_s: float | None) -> dict[str, Any] | None:
        if self._fault is not None:
            raise self._fault
        left_s = max(0.0, self._deadline_ms / 1000 - time.time())
        try:
            decision, line = self._lines.get(timeout=left_s if wait_s is None else min(wait_s, left_s))
        except queue.Empty:
            if time.time() * 1000 < self._deadline_ms:
                return None
            raise self._stop_with(BotFault("timeout", f"no answer within {self._asked_for_s:.1f} s")) from None
        if line is None:
            raise self._stop_with(BotFault("crashed", self._exit_description()))
        if decision < self._asked:
            detail = f"wrote a line before it was asked for decision {self._asked}: {line[:200]!r}"
            raise self._stop_with(BotFault("bad_output", detail))
        try:
            reply = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise self._stop_with(BotFault("bad_output", f"not JSON: {line[:200]!r}")) from None
        if not isinstance(reply, dict) or not isinstance(reply.get("action"), dict):
            raise self._stop_with(BotFault("bad_output", f'not {{"action": {{...}}}}: {line[:200]!r}'))
        if reply.get("decision", self._asked) != self._asked:
            detail = f"answered decision {reply['decision']!r} when decision {self._asked} was asked: {line[:200]!r}"
            raise self._stop_with(BotFault("bad_output", detail))
        return reply["action"]

    def _exit_description(self) -> str:
        assert self._process is not None
        try:
            code = self._process.wait(_EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            code = None
        if self._stderr_reader is not None:
            self._stderr_reader.join(_EXIT_GRACE_S)  # all it said before it exited
        said = self.stderr_tail()
        return f"exited with status {code}" + (f"; its stderr ends: {said}" if said else "")

    def _stop_with(self, fault: BotFault) -> BotFault:
        """Stop the program for the rest of the match; every later decision fails at once."""
        self._fault = fault
        self.close()
        return fault

    def close(self) -> None:
        """End of input tells the program the match is over; one that lingers is killed."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            assert process.stdin is not None
            process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(_EXIT_GRACE_S)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def make_player(spec: str, command: list[str] | None, game: str, rng: random.Random) -> Player:
    """The player of bot ``spec``: a built-in name, else the program ``command``."""
    if command is None:
        assert spec in BOT_NAMES
        return BuiltinPlayer(game, spec, rng)
    return ExternalPlayer(command)
