"""Bridges as users run them: ``referee bot connect`` (or a Python bot) in a process of its
own, whose stdout (JSON lines) and stderr a test reads as they grow."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson

from tests.support.servers import BIN, clean_env

FIRST_LEGAL = Path(__file__).parent / "bots" / "first_legal.py"
GAME = "halunken-und-spelunken"


@dataclass
class BridgeProcess:
    process: subprocess.Popen[bytes]
    out: Path
    err: Path

    def lines(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.out.read_bytes().splitlines() if line.strip()]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [line for line in self.lines() if line.get("type") == kind]

    @property
    def said(self) -> str:
        return self.err.read_text(errors="replace")

    def wait_for(self, condition: Callable[[BridgeProcess], Any], timeout_s: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout_s
        while not (found := condition(self)):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; stdout:\n{self.out.read_text()}\nstderr:\n{self.said}")
            time.sleep(0.05)
        return found

    def interrupt(self) -> None:
        self.process.send_signal(signal.SIGINT)


def ctrl_c_as_in_a_terminal() -> None:
    """Run in a bridge's process before its command: SIGINT handled by default and not blocked,
    as for a command a person starts in a terminal. A suite started in the background by a
    script (``.ci/run &``) runs with SIGINT ignored, an ignored signal stays ignored across
    ``exec``, and a Python started so installs no ``KeyboardInterrupt``: the tests' Ctrl-C did
    nothing and the bridges never drained."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def bridge(tmp_path: Path, name: str, key: str, command: list[str]) -> Iterator[BridgeProcess]:
    """Run ``command`` (a bridge) with the bot's key in ``REFEREE_BOT_KEY``; killed at the end
    if still running."""
    out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            command,
            env=clean_env(REFEREE_BOT_KEY=key),
            stdout=stdout,
            stderr=stderr,
            cwd=tmp_path,
            preexec_fn=ctrl_c_as_in_a_terminal,
        )
    running = BridgeProcess(process, out, err)
    try:
        yield running
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)


def connect_command(url: str, *options: str, pause_s: float = 0.0) -> list[str]:
    bot = [sys.executable, str(FIRST_LEGAL), str(pause_s)]
    return [str(BIN / "referee"), "bot", "connect", "--url", url, *options, "--", *bot]


def register(url: str, name: str) -> str:
    """A new bot's key, through ``referee bot register``."""
    done = subprocess.run(
        [str(BIN / "referee"), "bot", "register", "--url", url, "--name", name],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return done.stdout.strip()


def challenge(url: str, key: str, *arguments: str) -> dict[str, Any]:
    """A challenge sent with ``referee bot challenge``, as it prints it."""
    done = subprocess.run(
        [str(BIN / "referee"), "bot", "challenge", "--url", url, *arguments],
        env=clean_env(REFEREE_BOT_KEY=key),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    body: dict[str, Any] = orjson.loads(done.stdout)
    return body


def moves(url: str, match_id: str) -> int:
    version: int = httpx.get(f"{url}/v1/matches/{match_id}").json()["version"]
    return version


def exited(process: subprocess.Popen[bytes], timeout_s: float = 60.0) -> int:
    try:
        return process.wait(timeout_s)
    except subprocess.TimeoutExpired:
        os.kill(process.pid, signal.SIGKILL)
        raise
