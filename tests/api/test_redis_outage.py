"""Redis going away mid-test: 503 with Retry-After, then recovery without a restart.

Runs its own redis-server on a free port, so the shared one is never disturbed: paused with
SIGSTOP (requests time out), resumed, then killed (connections refused) and started again.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis

from tests.support.http import PROBLEM_JSON, MatchClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisProcess:
    def __init__(self, port: int) -> None:
        self.port = port
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(5)


@pytest.fixture
def private_redis() -> Iterator[RedisProcess]:
    if shutil.which("redis-server") is None:
        if os.environ.get("REFEREE_REQUIRE_REDIS") == "1":
            pytest.fail("REFEREE_REQUIRE_REDIS=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")
    server = RedisProcess(_free_port())
    server.start()
    yield server
    server.stop()


def assert_unavailable(response) -> None:
    assert response.status_code == 503, response.get_json()
    assert response.content_type == PROBLEM_JSON
    assert response.get_json()["code"] == "store_unavailable"
    assert int(response.headers["Retry-After"]) >= 1


def test_503_while_redis_is_down_then_recovery(private_redis: RedisProcess) -> None:
    from service import create_app

    app = create_app({
        "REDIS_URL": f"redis://127.0.0.1:{private_redis.port}/0", "REFEREE_SECRET": "s",
        "REFEREE_STORE_TIMEOUT": "0.3", "REFEREE_ACCESS_LOG": "0",
    })
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)

    os.kill(private_redis.proc.pid, signal.SIGSTOP)
    assert_unavailable(client.get(match.url))
    assert_unavailable(match.act(seat, legal["state_token"], legal["actions"][0]))
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200
    os.kill(private_redis.proc.pid, signal.SIGCONT)

    assert match.get()["version"] == 0, "the refused move was not applied"
    assert match.act(seat, legal["state_token"], legal["actions"][0]).status_code == 200

    private_redis.stop()
    assert_unavailable(client.get(match.url))
    assert_unavailable(client.post("/v1/matches", json={"game": "the-game", "players": 1}))
    private_redis.start()
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/matches", json={"game": "the-game", "players": 1}).status_code == 201
