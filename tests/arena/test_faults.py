"""A tournament with an external bot that never answers: the runner never hangs on it, and the
bot's seat meets the timeout policy (resigned in an untimed match; the referee's clock acts for
it in a timed one, by forfeit or by playing for it until it forfeits)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import orjson

from service.server.cli import main

SILENT = f"silent={Path(__file__).parent / 'bots' / 'silent.sh'}"


def tournament(tmp_path: Path, *extra: str) -> tuple[list[dict[str, Any]], float]:
    out = tmp_path / "results.jsonl"
    started = time.monotonic()
    code = main(
        [
            "arena",
            "--game",
            "halunken-und-spelunken",
            "--bots",
            f"random,{SILENT}",
            "--players",
            "2",
            "--matches",
            "2",
            "--seed",
            "faults",
            "--out",
            str(out),
            "--no-progress",
            *extra,
        ]
    )
    assert code == 0
    return [orjson.loads(line) for line in out.read_bytes().splitlines()], time.monotonic() - started


def silent_seat(line: dict[str, Any]) -> int:
    (seat,) = [s["seat"] for s in line["seats"] if s["bot"] == "silent"]
    return seat


def test_an_untimed_match_resigns_the_silent_bot_at_its_move_timeout(tmp_path: Path) -> None:
    lines, took = tournament(tmp_path, "--move-timeout", "0.5")
    assert took < 20
    for line in lines:
        seat = silent_seat(line)
        assert line["status"] == "finished" and line["error"] is None
        assert [(f["seat"], f["reason"], f["policy"]) for f in line["faults"]] == [(seat, "timeout", "resigned")]
        assert line["outcome"]["end_reason"] == "resigned"
        assert line["outcome"]["ranks"][seat] == 2 and seat not in line["outcome"]["winners"]


def test_a_timed_match_forfeits_the_silent_bot_when_its_clock_runs_out(tmp_path: Path) -> None:
    lines, took = tournament(tmp_path, "--clock", "per_decision_s=1", "--on-timeout", "forfeit")
    assert took < 30
    for line in lines:
        seat = silent_seat(line)
        assert line["status"] == "finished" and line["error"] is None
        assert [(f["seat"], f["reason"], f["policy"]) for f in line["faults"]] == [(seat, "timeout", "clock")]
        assert line["outcome"]["end_reason"] == "timeout"
        assert line["outcome"]["ranks"][seat] == 2


def test_a_timed_match_plays_for_the_silent_bot_until_it_forfeits(tmp_path: Path) -> None:
    lines, took = tournament(
        tmp_path, "--clock", "per_decision_s=0.5,max_consecutive_timeouts=2", "--on-timeout", "auto"
    )
    assert took < 30
    for line in lines:
        seat = silent_seat(line)
        assert line["status"] == "finished" and line["error"] is None
        assert [(f["seat"], f["policy"]) for f in line["faults"]] == [(seat, "clock")]
        assert line["outcome"]["end_reason"] == "timeout" and line["outcome"]["ranks"][seat] == 2
        # Its first timeout was played for it (auto), the other seat moved, the second forfeited.
        assert line["moves"] >= 3
