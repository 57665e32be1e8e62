"""``referee arena`` refuses a tournament it cannot play before the first match: a misspelled
built-in bot, a command that does not exist, a port it cannot serve on. Exit status 2, one
clear line, no traceback, no match played."""

from __future__ import annotations

import socket
from pathlib import Path

import orjson
import pytest

from service.bots.registry import BOT_NAMES
from service.server.cli import main
from tests.support.servers import free_port

BOTS = Path(__file__).parent / "bots"


def arena(*args: str, tmp_path: Path) -> list[str]:
    return [
        "arena",
        "--game",
        "halunken-und-spelunken",
        "--matches",
        "2",
        "--no-progress",
        "--out",
        str(tmp_path / "results.jsonl"),
        *args,
    ]


@pytest.mark.parametrize(
    ("bots", "said"),
    [
        ("random,randomm", f"'randomm' is neither a built-in bot ({', '.join(BOT_NAMES)}) nor a command on PATH"),
        ("random,randomm", "did you mean 'random'?"),
        ("heuristic,first=nodee bot.js", "first: no command 'nodee'"),
        ("random,./no-such-bot.sh", "./no-such-bot.sh: no such file"),
    ],
)
def test_a_bot_that_cannot_run_is_refused_before_any_match(
    bots: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(arena("--bots", bots, tmp_path=tmp_path))
    printed = capsys.readouterr()
    assert code == 2
    assert said in printed.err
    assert "Traceback" not in printed.err
    assert not (tmp_path / "results.jsonl").exists()  # no tournament was played
    assert printed.out == ""  # and no table printed


def test_every_name_of_the_bot_registry_is_a_built_in() -> None:
    """The arena accepts what the registry names (no copy of the list to drift)."""
    from service.arena.runner import parse_bots

    entries = parse_bots(",".join(BOT_NAMES))
    assert [(entry.name, entry.command) for entry in entries] == [(name, None) for name in BOT_NAMES]


def test_a_command_that_is_not_executable_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o644)
    code = main(arena("--bots", f"random,{script}", tmp_path=tmp_path))
    assert code == 2
    assert f"{script}: not executable" in capsys.readouterr().err


def test_the_in_process_referee_listens_on_the_port_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot that reads its match from the referee at that port, which only works if the
    referee listens there."""
    port = free_port()
    asks = f"asks=python3 {BOTS / 'asks_referee.py'} http://127.0.0.1:{port}"
    code = main(arena("--bots", f"random,{asks}", "--port", str(port), "--players", "2", tmp_path=tmp_path))
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert f"in-process at http://127.0.0.1:{port}" in printed.err
    lines = [orjson.loads(line) for line in (tmp_path / "results.jsonl").read_bytes().splitlines()]
    assert [line["faults"] for line in lines] == [[], []]


def test_a_busy_port_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(arena("--bots", "random,heuristic", "--port", str(port), tmp_path=tmp_path))
    printed = capsys.readouterr()
    assert code == 2
    assert f"cannot serve on 127.0.0.1:{port}" in printed.err
    assert "Traceback" not in printed.err


def test_a_port_with_a_url_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(arena("--bots", "random", "--url", "http://127.0.0.1:9", "--port", "8123", tmp_path=tmp_path))
    assert code == 2
    assert "--port chooses the in-process referee's port" in capsys.readouterr().err
