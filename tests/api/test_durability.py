"""``referee serve`` without Redis keeps matches in a SQLite file: several worker processes
share it, and ``kill -9`` of the whole server loses no acknowledged move."""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from http.client import HTTPException
from pathlib import Path
from typing import Any

from tests.support.http import MatchClient, WireClient
from tests.support.killable import start_serve


def _serve_env(db: Path) -> dict[str, str]:
    return {
        "REDIS_URL": "",
        "REFEREE_DB_PATH": str(db),
        "REFEREE_SECRET": "durable-secret",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_RATE_LIMIT": "",
    }


@dataclass
class Played:
    """One match as a client saw it: every move it sent, and every answer it got."""

    match: MatchClient
    sent: list[dict[str, Any]] = field(default_factory=list)
    acknowledged: list[dict[str, Any]] = field(default_factory=list)


class Player(threading.Thread):
    """Plays matches of The Game with random legal moves, one after the other, until the
    server stops answering; keeps every acknowledged answer."""

    def __init__(self, client: WireClient, seed: int) -> None:
        super().__init__(daemon=True)
        self.client = client
        self.rng = random.Random(seed)
        self.played: list[Played] = []

    @property
    def acknowledged(self) -> int:
        return sum(len(p.acknowledged) for p in self.played)

    def run(self) -> None:
        try:
            while True:
                self.play(Played(MatchClient.create(self.client, "the-game", 2)))
        except (OSError, HTTPException, AssertionError):
            return  # the server was killed

    def play(self, played: Played) -> None:
        self.played.append(played)
        while (current := played.match.get())["status"] == "active":
            seat = self.rng.choice(current["to_act"])
            legal = played.match.legal(seat)
            action = self.rng.choice(legal["actions"])
            played.sent.append(action)
            response = played.match.act(seat, legal["state_token"], action)
            assert response.status_code == 200
            played.acknowledged.append({**response.get_json(), "action": action, "token": legal["state_token"]})


def test_every_acknowledged_move_survives_kill_9_and_restart(tmp_path: Path) -> None:
    db = tmp_path / "matches.sqlite3"
    server = start_serve(_serve_env(db), tmp_path / "serve.log", workers=2)
    try:
        assert str(db) in server.printed(), "referee serve names the file that holds the matches"
        # Eight at once, so that moves arrive while others sync and go in one transaction
        # (group commit): each of them must still be acknowledged only once it is on disk.
        players = [Player(server.client, seed) for seed in range(1, 9)]
        for player in players:
            player.start()
        deadline = time.monotonic() + 60
        while sum(p.acknowledged for p in players) < 120 and time.monotonic() < deadline:
            time.sleep(0.02)
        server.kill()  # mid-play: each player has a move in flight or about to be
    finally:
        server.kill()
    for player in players:
        player.join(15)
    assert sum(p.acknowledged for p in players) >= 120

    restarted = start_serve(_serve_env(db), tmp_path / "serve.log", workers=2)
    try:
        for player in (played for p in players for played in p.played):
            match = MatchClient(restarted.client, player.match.created)
            acked = player.acknowledged
            now = match.get()
            assert now["version"] >= len(acked), "an acknowledged move was lost"
            assert now["version"] <= len(player.sent), "a move nobody sent appeared"
            history = restarted.client.get(f"{match.url}/history?limit=200").get_json()["entries"]
            assert [(e["version"], e["action"]) for e in history[: len(acked)]] == [
                (a["version"], a["action"]) for a in acked
            ]
            if acked:
                last = acked[-1]
                again = match.act(last["seat"], last["token"], last["action"])
                assert again.status_code == 200, "a retry of the last move still gets its answer"
                original = {k: v for k, v in last.items() if k not in ("action", "token")}
                assert again.get_json() == original
            seat = now["to_act"][0] if now["to_act"] else None
            if seat is not None:
                legal = match.legal(seat)
                assert match.act(seat, legal["state_token"], legal["actions"][0]).status_code == 200
    finally:
        restarted.stop()


def test_without_a_secret_the_tokens_outlive_a_restart_as_the_matches_do(tmp_path: Path) -> None:
    db = tmp_path / "matches.sqlite3"
    env = {k: v for k, v in _serve_env(db).items() if k != "REFEREE_SECRET"}
    server = start_serve(env, tmp_path / "serve.log")
    try:
        match = MatchClient.create(server.client, "the-game", 2)
        seat = match.get()["to_act"][0]
        legal = match.legal(seat)
        key = server.client.get("/v1/keys").get_json()["keys"][0]
    finally:
        server.stop()
    restarted = start_serve(env, tmp_path / "serve.log")
    try:
        match = MatchClient(restarted.client, match.created)
        answer = match.act(seat, legal["state_token"], legal["actions"][0])
        assert answer.status_code == 200, "a state token from before the restart still verifies"
        assert restarted.client.get("/v1/keys").get_json()["keys"][0] == key, "so does the replay key"
    finally:
        restarted.stop()
