"""The service as users run it, over real sockets: ``referee serve`` on the embedded store,
and gunicorn with two workers on Redis (tokens and metrics must work across workers)."""

from __future__ import annotations

import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.http import MatchClient, WireClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running(command: list[str], env: dict[str, str], port: int) -> Iterator[WireClient]:
    proc = subprocess.Popen(command, env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    client = WireClient(f"http://127.0.0.1:{port}")
    try:
        for _ in range(200):
            try:
                if client.get("/healthz").status_code == 200:
                    break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"server did not start: {command}")
        yield client
    finally:
        proc.terminate()
        proc.wait(10)


def play_matches(client: WireClient, counts: range) -> int:
    moves = 0
    for players in counts:
        match = MatchClient.create(client, "the-game", players)
        final = match.play_to_end(random.Random(players))
        assert final["status"] == "finished"
        moves += match.moves
    return moves


def test_referee_serve_on_the_embedded_store() -> None:
    port = _free_port()
    command = [sys.executable, "-m", "service.cli", "serve", "--port", str(port)]
    with running(command, {"REDIS_URL": "", "REFEREE_ACCESS_LOG": "0"}, port) as client:
        play_matches(client, range(1, 6))
        assert client.get("/readyz").get_json() == {"status": "ok", "store": "embedded"}


def test_gunicorn_with_two_workers_on_redis(redis_url: str) -> None:
    port = _free_port()
    command = [sys.executable, "-m", "gunicorn", "-c", "python:service.gunicorn_conf", "service:create_app()"]
    env = {
        "REDIS_URL": redis_url, "REFEREE_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2",
        "REFEREE_ACCESS_LOG": "0", "REFEREE_SECRET": "", "PROMETHEUS_MULTIPROC_DIR": "",
    }
    with running(command, env, port) as client:
        moves = play_matches(client, range(1, 6))
        text = client.get("/metrics").data.decode()
        counted = sum(float(v) for v in re.findall(r'^referee_moves_total\{game="the-game"\} (\S+)$', text, re.M))
        assert counted == moves, "metrics must add up over both workers"
