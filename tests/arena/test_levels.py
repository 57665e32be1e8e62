"""``referee arena`` knows every house bot level by name, refuses an unknown one, and a search
level keeps to the match clock."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from service.server.cli import main


def test_an_arena_of_search_levels_plays_to_the_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results.jsonl"
    argv = ["arena", "--game", "the-game", "--players", "2", "--bots", "level3,level1", "--matches", "2"]
    code = main([*argv, "--seed", "levels", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    lines = [orjson.loads(line) for line in out.read_text().splitlines()]
    assert [line["status"] for line in lines] == ["finished", "finished"]
    assert {seat["bot"] for line in lines for seat in line["seats"]} == {"level3", "level1"}


def test_an_unknown_level_is_refused_before_any_match(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arena", "--game", "the-game", "--bots", "level3,level9", "--no-progress"]) != 0
    assert "level9" in capsys.readouterr().err


def test_a_search_level_answers_within_the_arenas_clock(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0.6 s a decision, and three timeouts in a row forfeit: level 5, which in Esploratore
    would think to its 1 s cap and so time out on every decision, stops in time (on a loaded
    machine a rare decision may still come late, hence the allowance)."""
    out = tmp_path / "results.jsonl"
    argv = ["arena", "--game", "esploratore", "--players", "2", "--bots", "level5,level1", "--matches", "1"]
    clock = ["--clock", "per_decision_s=0.6,max_consecutive_timeouts=3", "--on-timeout", "auto"]
    code = main([*argv, *clock, "--seed", "levels", "--out", str(out), "--no-progress"])
    assert code == 0, capsys.readouterr().err
    (line,) = [orjson.loads(line) for line in out.read_text().splitlines()]
    assert line["status"] == "finished" and line["outcome"]["end_reason"] == "twelve_rounds"
