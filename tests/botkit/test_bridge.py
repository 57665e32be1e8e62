"""``referee bot connect`` and the documented Python bot, each in a process of its own, with
``referee serve`` (on its SQLite file) in another, over HTTP: bridges meet through a challenge
and play to the end, a killed bridge loses on its clock, a restarted referee is reconnected to
and the match resumed, Ctrl-C drains."""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.botkit.bridges import (
    GAME,
    BridgeProcess,
    bridge,
    challenge,
    connect_command,
    ctrl_c_as_in_a_terminal,
    exited,
    moves,
    register,
)
from tests.support.servers import BIN, Server, clean_env, free_port, running

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Referee:
    """``referee serve`` on a file in ``folder``, which :meth:`restart` serves again."""

    folder: Path
    port: int = field(default_factory=free_port)
    secret: str = field(default_factory=lambda: secrets.token_hex(32))
    stack: ExitStack = field(default_factory=ExitStack)
    server: Server | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        command = [str(BIN / "referee"), "serve", "--port", str(self.port)]
        env = clean_env(REFEREE_SECRET=self.secret, REFEREE_DB_PATH=str(self.folder / "referee.sqlite3"))
        self.server = self.stack.enter_context(running(command, env, self.port))

    def restart(self, down_s: float) -> None:
        """Stop the server (SIGTERM), stay away ``down_s``, serve the same file again."""
        self.stack.close()
        self.stack = ExitStack()
        time.sleep(down_s)
        self.start()

    def challenge_status(self, key: str, challenge_id: str) -> str:
        answer = httpx.get(f"{self.url}/v1/challenges/{challenge_id}", headers={"Authorization": f"Bearer {key}"})
        assert answer.status_code == 200, answer.text
        status: str = answer.json()["status"]
        return status


@pytest.fixture
def referee(tmp_path: Path) -> Iterator[Referee]:
    served = Referee(tmp_path)
    served.start()
    try:
        yield served
    finally:
        served.stack.close()


def finished(bridge: BridgeProcess) -> list[dict[str, Any]]:
    return [line for line in bridge.of_type("match_played") if line["status"] == "finished"]


def started_match(bridge: BridgeProcess) -> str:
    lines = bridge.wait_for(lambda b: b.of_type("match_started"))
    return str(lines[0]["match_id"])


def test_two_bridges_meet_through_a_challenge_and_play_to_the_end(referee: Referee, tmp_path: Path) -> None:
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


def test_a_challenge_against_the_rules_is_declined(referee: Referee, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "games=the-game")) as b:
        b.wait_for(lambda b: "connected" in b.said)
        sent = challenge(url, alice, "--game", GAME, "bob")
        b.wait_for(lambda b: f"challenge {sent['id']} from alice: declined" in b.said)
        assert referee.challenge_status(alice, sent["id"]) == "declined"


def test_a_bridge_killed_mid_match_loses_on_its_clock(referee: Referee, tmp_path: Path) -> None:
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


def test_a_restarted_referee_is_reconnected_to_and_the_match_taken_up_again(referee: Referee, tmp_path: Path) -> None:
    """The referee is away longer than a request is retried: the plays break off, the streams
    reconnect after the last event seen, and the plays are taken up again where the match is."""
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
            side.wait_for(lambda s: re.search(r"connected to \S+ as \w+ after event \d+", s.said))
            assert f"match {match_id} broke off" in side.said and "taking it up again" in side.said
            side.wait_for(lambda s: s.of_type("match_finished"))  # the stream's event may trail the play
            assert len(side.of_type("match_started")) == 1 and len(side.of_type("match_finished")) == 1
        assert httpx.get(f"{url}/v1/bots/alice").json()["matches_played"] == 1


def test_a_bridge_started_again_takes_up_its_match_from_the_replayed_match_started(
    referee: Referee, tmp_path: Path
) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    with bridge(tmp_path, "bob", bob, connect_command(url, "--accept", "all", pause_s=0.05)) as b:
        with bridge(tmp_path, "alice", alice, connect_command(url, pause_s=0.05)) as first:
            b.wait_for(lambda b: "connected" in b.said)
            challenge(url, alice, "--game", GAME, "bob")
            match_id = started_match(first)
            first.wait_for(lambda a: moves(url, match_id) >= 4)
            first.process.kill()
        with bridge(tmp_path, "alice-again", alice, connect_command(url, pause_s=0.05)) as again:
            (replayed,) = again.wait_for(lambda a: a.of_type("match_started"))
            assert replayed["match_id"] == match_id
            (played,) = again.wait_for(finished, timeout_s=90)
            assert played["match_id"] == match_id and played["moves"] > 4
            b.wait_for(finished)


def test_ctrl_c_finishes_the_matches_under_way_and_answers_no_more_challenges(referee: Referee, tmp_path: Path) -> None:
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
        assert referee.challenge_status(alice, later["id"]) == "open"


def test_the_documented_python_bot_plays_its_matches(referee: Referee, tmp_path: Path) -> None:
    url = referee.url
    alice, bob = register(url, "alice"), register(url, "bob")
    (example,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "bots.md").read_text(), re.S)
    assert len(example.strip().splitlines()) <= 12
    (tmp_path / "first_legal_bot.py").write_text(example)
    python = [sys.executable, str(tmp_path / "first_legal_bot.py")]
    env = clean_env(REFEREE_BOT_KEY=bob, REFEREE_URL=url)
    with (tmp_path / "doc.out").open("wb") as out, (tmp_path / "doc.err").open("wb") as err:
        process = subprocess.Popen(
            python, env=env, stdout=out, stderr=err, cwd=tmp_path, preexec_fn=ctrl_c_as_in_a_terminal
        )
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


def test_a_refused_key_or_bad_rules_stop_the_bridge_at_once(referee: Referee, tmp_path: Path) -> None:
    url = referee.url
    with bridge(tmp_path, "nobody", "rbk_unknown", connect_command(url)) as nobody:
        assert exited(nobody.process, 30) == 2
        assert "the referee refused the key: HTTP 401 unknown_bot_key" in nobody.said
    key = register(url, "alice")
    with bridge(tmp_path, "rules", key, connect_command(url, "--accept", "games=the-game;colour=red")) as bad:
        assert exited(bad.process, 30) == 2
        assert "--accept: 'colour=red' is not one of games=…" in bad.said


def test_a_refused_challenge_is_said_with_its_problem_code(referee: Referee) -> None:
    key = register(referee.url, "alice")
    command = [str(BIN / "referee"), "bot", "challenge", "--url", referee.url, "--game", GAME, "nobody"]
    done = subprocess.run(command, env=clean_env(REFEREE_BOT_KEY=key), capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("referee bot challenge: HTTP 404 unknown_bot")
    assert done.stdout == ""
    no_key = subprocess.run(command, env=clean_env(), capture_output=True, text=True, timeout=30)
    assert (no_key.returncode, no_key.stderr) == (
        2,
        "referee bot challenge: no key: pass --key or set REFEREE_BOT_KEY\n",
    )
