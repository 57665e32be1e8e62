"""A tournament with an external bot that never answers: the runner never hangs on it, and the
bot's seat meets the timeout policy (resigned in an untimed match; the referee's clock acts for
it in a timed one, by forfeit or by playing for it until it forfeits)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from service.arena.client import RefereeClient
from service.arena.errors import BotFault
from service.arena.players import Observation
from service.arena.runner import MatchPlay, Plan, parse_bots
from service.server import inprocess
from service.server.cli import main

SILENT = f"silent={Path(__file__).parent / 'bots' / 'silent.sh'}"


def tournament(tmp_path: Path, *extra: str) -> tuple[list[dict[str, Any]], float]:
    """Two matches of two seats, ``random`` against the silent bot unless ``extra`` names
    other ``--bots``."""
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


BOTS = Path(__file__).parent / "bots"


def test_a_bot_that_answers_twice_has_bad_output_never_an_illegal_or_played_stale_answer(tmp_path: Path) -> None:
    lines, _ = tournament(tmp_path, "--bots", f"heuristic,twice={BOTS / 'twice.py'}", "--move-timeout", "5")
    for line in lines:
        (seat,) = [s["seat"] for s in line["seats"] if s["bot"] == "twice"]
        assert line["status"] == "finished" and line["error"] is None
        assert [(f["seat"], f["reason"]) for f in line["faults"]] == [(seat, "bad_output")]
        detail = line["faults"][0]["detail"]
        assert "before it was asked" in detail or "when decision" in detail


def test_a_match_that_ends_while_a_bot_thinks_is_no_fault_of_that_bot(tmp_path: Path) -> None:
    """Halunken's captains choose their movement cards at once: one bot crashes there, the
    runner resigns its seat and the match is over; the other, still thinking, is not waited
    for and has no timeout held against it."""
    crash = f"crash=python3 {BOTS / 'together.py'} crash"
    think = f"think=python3 {BOTS / 'together.py'} think"
    lines, took = tournament(tmp_path, "--bots", f"{crash},{think}", "--move-timeout", "20")
    assert took < 15  # not one move timeout per match
    for line in lines:
        (crashed,) = [s["seat"] for s in line["seats"] if s["bot"] == "crash"]
        assert line["status"] == "finished" and line["outcome"]["end_reason"] == "resigned"
        assert [(f["seat"], f["reason"]) for f in line["faults"]] == [(crashed, "crashed")]


class Thinker:
    """A player that never makes up its mind: it runs out of time at its deadline."""

    deadline_s = 0.0

    def ask(self, observation: Observation) -> None:
        self.deadline_s = observation.deadline_ms / 1000

    def poll(self, wait_s: float | None) -> None:
        left_s = self.deadline_s - time.time()
        time.sleep(max(0.0, left_s if wait_s is None else min(wait_s, left_s)))
        if time.time() >= self.deadline_s:
            raise BotFault("timeout", "no answer")

    def close(self) -> None:
        pass


def test_the_runner_stops_waiting_when_the_referee_ends_the_match_meanwhile(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another client resigns the other seat while seat 0 thinks: the runner sees the match
    over within a second or so and holds nothing against the thinker."""
    monkeypatch.setattr("service.arena.runner.make_player", lambda name, command, game, rng: Thinker())
    plan = Plan("halunken-und-spelunken", 2, parse_bots("random,heuristic"), matches=1, move_timeout_s=8)
    with inprocess.serving() as url:
        client = RefereeClient(url)
        play = MatchPlay(client, plan, 0, (0, 1))
        resigner = threading.Thread(target=resign_seat_1_once_it_plays, args=(client, play))
        resigner.start()
        started = time.monotonic()
        record = play.run()
        resigner.join()
        client.close()
    assert time.monotonic() - started < 5
    assert record.status == "finished" and record.faults == [] and record.error is None
    assert record.outcome is not None and record.outcome["end_reason"] == "resigned"


def resign_seat_1_once_it_plays(client: RefereeClient, play: MatchPlay) -> None:
    deadline = time.monotonic() + 10
    while len(play.tokens) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # seat 0 is thinking by now
    client.resign(play.match_id, play.tokens[1])
