"""Bursts of stream connections against real servers: a stream ends as soon as its client
hangs up (its slot and connection are free at once, not after a heartbeat), and a burst of new
streams on many matches reads the store through a few connections, leaving the rest of the
store client's pool to the moves. Clients come from many loopback addresses, so that no
client's share of the slots is what limits them (tests/e2e/test_stream_shares.py does that)."""

from __future__ import annotations

import random
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.http import MatchClient, WireClient
from tests.support.killable import start_serve
from tests.support.servers import clean_env, free_port, readme_gunicorn_command, running

QUIET = {"REFEREE_SECRET": "stream-bursts-secret", "REFEREE_RATE_LIMIT": "", "REFEREE_ACCESS_LOG": "0"}


@contextmanager
def serving(kind: str, tmp_path: Path, redis_url: str | None, **env: str) -> Iterator[tuple[WireClient, int]]:
    """``referee serve`` on the SQLite file, or the README's gunicorn command on Redis (one
    worker, so that its connections are easy to count); the client and the server's pid."""
    if kind == "referee serve":
        server = start_serve({**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"), **env}, tmp_path / "serve.log")
        try:
            yield server.client, server.proc.pid
        finally:
            server.kill()
        return
    port = free_port()
    environ = clean_env(
        REDIS_URL=redis_url or "", REFEREE_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="1", **QUIET, **env
    )
    with running(readme_gunicorn_command(), environ, port) as served:
        yield served.client, served.process.pid


def open_streams(base_url: str, paths: list[str]) -> list[socket.socket]:
    """One stream per path, each from the next of 64 loopback addresses, once each has its
    first bytes (``: open``); every answer must be a stream."""
    port = urlsplit(base_url).port
    sockets: list[socket.socket] = []
    failures: list[bytes] = []

    def connect(index: int, path: str) -> None:
        sock = socket.socket()
        sock.bind((f"127.0.4.{1 + index % 64}", 0))
        sock.settimeout(30)
        sock.connect(("127.0.0.1", port))
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nAccept: text/event-stream\r\n\r\n".encode())
        head = sock.recv(4096)
        if not head.startswith(b"HTTP/1.1 200"):
            failures.append(head[:200])
        sockets.append(sock)

    threads = [threading.Thread(target=connect, args=(i, path)) for i, path in enumerate(paths)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures[:3]
    return sockets


def connections(port: int, state: str) -> int:
    """The server's connections on ``port`` in TCP state ``state`` (``ss``)."""
    done = subprocess.run(["ss", "-tnH", "state", state, f"( sport = :{port} )"], capture_output=True, text=True)
    return len(done.stdout.splitlines())


def redis_connections(pids: set[int]) -> int:
    """The TCP connections to Redis (port 6379) that processes ``pids`` hold."""
    done = subprocess.run(["ss", "-tnpH", "state", "established", "( dport = :6379 )"], capture_output=True, text=True)
    return sum(1 for line in done.stdout.splitlines() if any(f"pid={pid}," in line for pid in pids))


def children(pid: int) -> set[int]:
    return {int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}


@pytest.mark.parametrize("kind", ["referee serve", "README gunicorn"])
def test_a_stream_ends_when_its_client_hangs_up(kind: str, tmp_path: Path, request) -> None:
    """With heartbeats a minute apart, only noticing the hang-up can free a connection soon."""
    redis_url = request.getfixturevalue("redis_url") if kind == "README gunicorn" else None
    limit = "200"
    with serving(kind, tmp_path, redis_url, REFEREE_STREAM_HEARTBEAT="60", REFEREE_STREAM_LIMIT=limit) as (client, _):
        port = urlsplit(client.base_url).port
        match = MatchClient.create(client, "esploratore", 2)
        held = open_streams(client.base_url, [f"{match.url}/stream"] * 150)
        for sock in held:
            sock.close()
        deadline = time.monotonic() + 3
        while connections(port, "close-wait") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert connections(port, "close-wait") == 0, "the server still holds connections its clients closed"
        again = open_streams(client.base_url, [f"{match.url}/stream"] * 150)  # every slot is free again
        for sock in again:
            sock.close()


def test_a_burst_of_streams_on_many_matches_leaves_the_store_to_the_moves(redis_url: str, tmp_path: Path) -> None:
    """400 new streams on 400 matches at once used to make 400 reads at once: redis-py's pool
    (100 connections) ran dry and the worker's moves were refused 503 store_unavailable."""
    with serving("README gunicorn", tmp_path, redis_url) as (client, master):
        matches = [MatchClient.create(client, "esploratore", 2) for _ in range(400)]
        player = MatchClient.create(client, "esploratore", 2)
        answers: list[int] = []
        stop = threading.Event()

        def play() -> None:
            rng = random.Random(4)
            while not stop.is_set():
                seat = rng.choice(player.get()["to_act"])
                legal = player.legal(seat)
                answers.append(player.act(seat, legal["state_token"], rng.choice(legal["actions"])).status_code)

        mover = threading.Thread(target=play)
        mover.start()
        try:
            held = open_streams(client.base_url, [f"{m.url}/stream" for m in matches])
            workers = children(master)
            assert redis_connections(workers) <= 40, "a few connections for the streams' reads, not the pool"
        finally:
            stop.set()
            mover.join(30)
        for sock in held:
            sock.close()
        assert answers and set(answers) == {200}, sorted(set(answers))
