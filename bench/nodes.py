"""What the benchmarks that start ``referee serve`` nodes share: a node on Redis and the settings
that let it hold many streams, a plain HTTP call, a bounded wait for a line of a helper
process, a player of random legal moves, the node's memory and a percentile.

The scripts import it as a sibling (``python bench/<script>.py`` puts ``bench/`` on the path).
Every call opens a new connection, as a client of these benchmarks' era did: what they
compare is one load against another on the same node, not the cost of a connection.
"""

from __future__ import annotations

import http.client
import os
import random
import select
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import orjson

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(port: int, method: str, path: str, body: object = None, token: str | None = None) -> tuple[int, dict]:
    """One call on a new connection: the status and the decoded JSON body (``{}`` if none)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, orjson.dumps(body) if body is not None else None, headers)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, orjson.loads(data) if data else {}


def start_node(
    redis_url: str, port: int, secret: str, env: dict[str, str] | None = None, tree: Path = ROOT
) -> subprocess.Popen:
    """``referee serve`` from ``tree`` with 2 gevent workers on ``redis_url``, without rate
    limits or access lines, once it answers ``/healthz``. ``env`` adds settings; the node's
    output goes to the file ``BENCH_NODE_LOG`` names, else nowhere."""
    settings = {
        **os.environ,
        "REDIS_URL": redis_url,
        "REFEREE_SECRET": secret,
        "REFEREE_RATE_LIMIT": "",
        "REFEREE_ACCESS_LOG": "0",
        "PYTHONPATH": str(tree),
        **(env or {}),
    }
    command = [sys.executable, "-m", "service.server.cli", "serve", "--port", str(port), "--workers", "2"]
    log: IO[bytes] = open(os.environ.get("BENCH_NODE_LOG", os.devnull), "ab")
    proc = subprocess.Popen(command, env=settings, cwd=tree, stdout=log, stderr=log)
    for _ in range(400):
        try:
            if request(port, "GET", "/healthz")[0] == 200:
                return proc
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("the node did not start")


def streams_settings(streams: int) -> dict[str, str]:
    """Settings that let a node hold ``streams`` streams beside the moves, all opened from this
    machine. Each worker caps its streams, and one address holds fewer than its worker's free
    slots (:mod:`service.live.slots`): a worker that accepts more than half of ``streams``
    connections (gevent workers do not split them evenly) would answer the rest 503 under a
    cap of ``streams + 100``. Twice ``streams`` leaves room for all of them on either worker."""
    return {"REFEREE_WORKER_CONNECTIONS": str(streams + 500), "REFEREE_STREAM_LIMIT": str(2 * streams + 100)}


def helper_line(helper: subprocess.Popen, node: subprocess.Popen, timeout: float, waiting_for: str) -> str:
    """The next line of a benchmark's helper process (text mode, one line at a time), or
    :class:`SystemExit` saying what went wrong: no line within ``timeout`` seconds, the helper
    or the node gone. A helper that hangs or dies is reported, never waited for."""
    assert helper.stdout is not None
    ready, _, _ = select.select([helper.stdout], [], [], timeout)
    line = helper.stdout.readline() if ready else ""
    if line:
        return line
    why = "no line" if not ready else f"the helper exited ({helper.poll()})"
    node_state = "running" if node.poll() is None else f"exited ({node.returncode})"
    raise SystemExit(
        f"{Path(sys.argv[0]).name}: waiting for {waiting_for}: {why} within {timeout:.0f} s; "
        f"the node {node_state} (its output: the file BENCH_NODE_LOG names)"
    )


def node_rss_kb(master: int) -> dict[int, int]:
    """The RSS of the node's master and of each of its workers, in KB, by process id."""
    pids = [master, *map(int, Path(f"/proc/{master}/task/{master}/children").read_text().split())]
    sizes = {}
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                sizes[pid] = int(line.split()[1])
    return sizes


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Player:
    """Plays random legal moves in one new match, choosing the seat among those to act."""

    def __init__(self, port: int, seed: int, game: str, players: int = 2, seeded_match: bool = False) -> None:
        """``seeded_match`` also seeds the match's own chance from ``seed``, so the same
        seed plays the same match on every node and tree."""
        self.port = port
        self.body: dict[str, object] = {"game": game, "players": players}
        if seeded_match:
            self.body["seed"] = f"{seed:064x}"
        self.rng = random.Random(seed)
        self.start()

    def start(self) -> None:
        """A new match of the same game, played from here on."""
        status, created = request(self.port, "POST", "/v1/matches", self.body)
        assert status == 201, created
        self.match_id = created["match_id"]
        self.tokens = [s["token"] for s in created["seats"]]
        self.to_act = created["to_act"]
        self.version = 0

    def attempt(self) -> tuple[int, dict, float]:
        """One random legal move: the status and body of its answer and the seconds the
        ``POST /actions`` took (a refused ``GET /legal-actions`` is answered as it came,
        with no time)."""
        seat = self.rng.choice(self.to_act)
        path = f"/v1/matches/{self.match_id}"
        status, legal = request(self.port, "GET", f"{path}/legal-actions", token=self.tokens[seat])
        if status != 200:
            return status, legal, 0.0
        body = {"state_token": legal["state_token"], "action": self.rng.choice(legal["actions"])}
        started = time.perf_counter()
        status, answer = request(self.port, "POST", f"{path}/actions", body, self.tokens[seat])
        elapsed = time.perf_counter() - started
        if status == 200:
            self.to_act, self.version = answer["to_act"], answer["version"]
        return status, answer, elapsed

    def move(self) -> float:
        """One move that must be taken, in a match that must go on: the seconds it took."""
        status, answer, elapsed = self.attempt()
        assert status == 200 and answer["status"] == "active", answer
        return elapsed

    def paced(self, moves: int, pace: float) -> list[float]:
        """``moves`` moves at ``pace`` per second (0: back to back), a new match started when
        one ends: their latencies."""
        latencies = []
        for _ in range(moves):
            started = time.perf_counter()
            status, answer, elapsed = self.attempt()
            assert status == 200, answer
            latencies.append(elapsed)
            if answer["status"] != "active":
                self.start()
            if pace:
                time.sleep(max(0.0, 1 / pace - (time.perf_counter() - started)))
        return latencies
