"""``referee bot connect`` and the documented Python bot, each in a process of its own, over
HTTP: bridges meet through a challenge and play to the end, a killed bridge loses on its
clock, a restarted referee is reconnected to and the match resumed, Ctrl-C drains."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.botkit.bridges import GAME, BridgeProcess, bridge, challenge, connect_command, exited, moves, register
from tests.support.fake_accounts import Served, serving
from tests.support.servers import clean_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def referee() -> Iterator[Served]:
    with serving() as served:
        yield served


def finished(bridge: BridgeProcess) -> list[dict]:
    return [line for line in bridge.of_type("match_played") if line["status"] == "finished"]


def started_match(bridge: BridgeProcess) -> str:
    lines = bridge.wait_for(lambda b: b.of_type("match_started"))
    return str(lines[0]["match_id"])


def test_two_bridges_meet_through_a_challenge_and_play_to_the_end(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with (
        bridge(tmp_path, "alice", alice, connect_command(url)) as a,
        bridge(tmp_path, "bob", bob, connect_command(url, "--accept", f"games={GAME};opponents=alice")) as b,
    ):
        b.wait_for(lambda b: "connected" in b.said)
        sent = challenge(url, alice, "--game", GAME, "--seats", "in_order", "bob")
        assert sent["status"] == "open" and sent["opponents"] == ["bob"]
        for side in (a, b):
            side.wait_for(lambda s: s.of_type("match_finished"))
            played = side.wait_for(finished)
            assert played[0]["status"] == "finished" and played[0]["faults"] == []
        match_id = a.of_type("match_finished")[0]["match_id"]
        assert b.of_type("match_finished")[0]["match_id"] == match_id
        assert [line["seat"] for line in a.of_type("match_started")] == [0]
        assert [line["seat"] for line in b.of_type("match_started")] == [1]
        assert "seat_token" not in a.out.read_text() + b.out.read_text()
        assert f"challenge {sent['id']} from alice: accepted" in b.said
        a.interrupt()
        b.interrupt()
        assert exited(a.process) == 0 and exited(b.process) == 0


def test_a_challenge_against_the_rules_is_declined(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "games=the-game")) as b:
        b.wait_for(lambda b: "connected" in b.said)
        sent = challenge(url, alice, "--game", GAME, "bob")
        b.wait_for(lambda b: f"challenge {sent['id']} from alice: declined" in b.said)
        assert referee.accounts.challenges[sent["id"]]["status"] == "declined"


def test_a_bridge_killed_mid_match_loses_on_its_clock(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with (
        bridge(tmp_path, "alice", alice, connect_command(url, pause_s=0.1)) as a,
        bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "all", pause_s=0.1)) as b,
    ):
        b.wait_for(lambda b: "connected" in b.said)
        challenge(url, alice, "--game", GAME, "--seats", "in_order", "--time-control", "per_decision_s=2", "bob")
        match_id = started_match(b)
        b.wait_for(lambda b: moves(url, match_id) >= 4)
        b.process.kill()
        (played,) = a.wait_for(finished, timeout_s=60)
        assert played["outcome"]["end_reason"] == "timeout"
        assert played["outcome"]["ranks"][1] > played["outcome"]["ranks"][0]  # bob, seat 1, forfeited
        assert a.of_type("match_finished")[0]["outcome"]["detail"]["seat"] == 1


def test_a_restarted_referee_is_reconnected_to_and_the_match_resumed(referee: Served, tmp_path: Path) -> None:
    """The referee is away longer than a request is retried: the play breaks off, and is taken
    up again from the ``match_started`` the referee replays when the stream is back."""
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with (
        bridge(tmp_path, "alice", alice, connect_command(url, pause_s=0.05)) as a,
        bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "all", pause_s=0.05)) as b,
    ):
        b.wait_for(lambda b: "connected" in b.said)
        challenge(url, alice, "--game", GAME, "bob")
        match_id = started_match(a)
        a.wait_for(lambda a: moves(url, match_id) >= 4)
        referee.restart(down_s=6)
        for side in (a, b):
            (played,) = side.wait_for(finished, timeout_s=90)
            assert played["match_id"] == match_id
            assert re.search(r"connected to \S+ as \w+ after event \d+", side.said)
        broken = [line for line in a.of_type("match_played") + b.of_type("match_played") if line["error"]]
        assert broken, "the referee was away long enough for a play to break off"
        assert len(a.of_type("match_finished")) == 1 and len(b.of_type("match_finished")) == 1


def test_ctrl_c_finishes_the_matches_under_way_and_answers_no_more_challenges(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with (
        bridge(tmp_path, "alice", alice, connect_command(url, pause_s=0.05)),
        bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "all", pause_s=0.05)) as b,
    ):
        b.wait_for(lambda b: "connected" in b.said)
        challenge(url, alice, "--game", GAME, "bob")
        match_id = started_match(b)
        b.interrupt()
        b.wait_for(lambda b: "draining: finishing 1 match(es)" in b.said)
        later = challenge(url, alice, "--game", GAME, "bob")
        assert exited(b.process) == 0
        (played,) = finished(b)
        assert played["match_id"] == match_id
        assert referee.accounts.challenges[later["id"]]["status"] == "open"


def test_the_documented_python_bot_plays_its_matches(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    (example,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "bots.md").read_text(), re.S)
    assert len(example.strip().splitlines()) <= 12
    (tmp_path / "first_legal_bot.py").write_text(example)
    python = [sys.executable, str(tmp_path / "first_legal_bot.py")]
    env = clean_env(REFEREE_BOT_KEY=bob, REFEREE_URL=url)
    with (tmp_path / "doc.out").open("wb") as out, (tmp_path / "doc.err").open("wb") as err:
        process = subprocess.Popen(python, env=env, stdout=out, stderr=err, cwd=tmp_path)
    doc = BridgeProcess(process, tmp_path / "doc.out", tmp_path / "doc.err")
    try:
        doc.wait_for(lambda d: "connected" in d.said)
        with bridge(tmp_path, "alice", alice, connect_command(url)) as a:
            challenge(url, alice, "--game", GAME, "bob")
            (played,) = doc.wait_for(finished)
            assert played["faults"] == []
            a.wait_for(finished)
        doc.interrupt()
        assert exited(process) == 0
    finally:
        if process.poll() is None:
            process.kill()


def test_a_refused_key_or_bad_rules_stop_the_bridge_at_once(referee: Served, tmp_path: Path) -> None:
    url = referee.url
    with bridge(tmp_path, "nobody", "rbk_unknown", connect_command(url)) as nobody:
        assert exited(nobody.process, 30) == 2
        assert "the referee refused the key: HTTP 401 invalid_key" in nobody.said
    key = register(url, "alice")
    with bridge(tmp_path, "rules", key, connect_command(url, "--accept", "games=the-game;colour=red")) as bad:
        assert exited(bad.process, 30) == 2
        assert "--accept: 'colour=red' is not one of games=…" in bad.said
