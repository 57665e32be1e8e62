"""The referee beside the peer people pick instead: boardgame.io, on the same machine, in one run.

Both serve solo matches of The Game to the same number of bots at once, in turns (rounds
alternate the systems, so a change in the machine's load hits each alike), with everything
(servers, Redis, load generators) sharing the machine's cores:

- **the peer**: boardgame.io's server (Node, socket.io; ``bench/peer/server.js``) playing
  ``bench/peer/game.js``, whose ``play`` move checks what the referee's The Game checks (an
  integer card in the mover's hand, a pile that exists, the card fitting it, the ±10
  backwards move; ``endTurn`` only after the minimum; ``endIf`` decides whether the player to
  act can still lay the minimum; ``playerView`` hides the other hands and the draw pile). Its
  bots (``bench/peer/driver.js``, one Node process) keep one socket.io connection per match,
  as boardgame.io's client does, and speak its protocol directly (as the referee's bots
  write HTTP on the socket). In memory, and with its ``FlatFile`` storage (node-persist,
  files written without fsync) for the durable pairing.
- **the referee** as shipped: gunicorn with ``service/server/gunicorn_conf.py`` (2 gevent
  workers), on a private Redis started as ``compose.yaml`` starts it (AOF, ``appendfsync
  everysec``), and, for the durable pairing, on the SQLite file ``referee serve`` keeps
  when no Redis is named (WAL, ``synchronous=FULL``: a move is on disk before it is
  answered). Its bots (``bench/http_moves.py``'s client and choice, two processes of
  threads) keep one HTTP/1.1 connection each, as a bot with an HTTP session does; the same
  bots opening a connection per request are the row beside it. Per move the referee also
  checks the seat's bearer token and the HMAC-signed state token, counts the rate limit,
  honours idempotency keys, commits by compare-and-set with a log entry, records metrics and
  an access line, and answers the seat's next legal actions. The WebSocket row: the same
  bots create the match and read its first legal actions over their kept connection, then
  open the seat's socket (``GET /v1/matches/{id}/socket``) and send every move over it.

boardgame.io is installed from npm into ``bench/peer/node_modules`` on first use (a
development tool of this benchmark, not a dependency of the service; node and npm must be
on the PATH).

    python bench/peer_moves.py [--matches 8] [--seconds 10] [--rounds 3]

Each row: moves answered per second (best round), latency percentiles of those moves, and
CPU time per move of the server processes (Node; gunicorn's master and workers), of Redis and
of the load generator, read from ``/proc``.
"""

from __future__ import annotations

import argparse
import base64
import multiprocessing
import os
import random
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from math import nan
from pathlib import Path

import orjson
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.http_moves import _CONTENT_LENGTH, cpu_seconds, free_port, request, server_pids, simple_choice

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT / "bench" / "peer"
#: How the referee's bots reach it, and the row each gives.
TRANSPORTS = {"keep-alive": "keep-alive", "per-request": "a connection per request", "socket": "WebSocket"}


def install_peer() -> None:
    """The packages ``bench/peer/package.json`` pins (boardgame.io, and node-persist for its
    FlatFile storage), unless already there."""
    wanted = orjson.loads((PEER / "package.json").read_bytes())["dependencies"]
    if not all((PEER / "node_modules" / name / "package.json").exists() for name in wanted):
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=PEER, check=True)


def wait_for(port: int, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing serves port {port}")


class KeepAlive:
    """One bot's HTTP/1.1 connection, kept for every request (opened again if the server
    closed it between two requests, as an HTTP session's pool does)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn: socket.socket | None = None

    def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        for attempt in (1, 2):
            if self.conn is None:
                self.conn = socket.create_connection(("127.0.0.1", self.port), timeout=10)
                self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                return self._exchange(method, path, body, headers)
            except (ConnectionError, _Closed):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _exchange(self, method: str, path: str, body: bytes, headers: dict[str, str] | None) -> tuple[int, bytes]:
        assert self.conn is not None
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        if method == "POST":
            lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
        self.conn.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + body)
        answer = b""
        while (end := answer.find(b"\r\n\r\n")) < 0:
            answer += self._received()
        head, data = answer[:end], answer[end + 4 :]
        length = _CONTENT_LENGTH.search(head)
        if length is None:
            raise RuntimeError(f"an answer without Content-Length: {head!r}")
        while len(data) < int(length.group(1)):
            data += self._received()
        return int(head[9:12]), data

    def _received(self) -> bytes:
        assert self.conn is not None
        chunk = self.conn.recv(65536)
        if not chunk:
            raise _Closed
        return chunk


class _Closed(Exception):
    """The server closed the connection (its keep-alive timeout, a restart)."""


class SeatSocket:
    """One seat's WebSocket (``GET /v1/matches/{id}/socket``, docs/socket.md) with the least
    client code: the upgrade written by hand, masked text frames out, unmasked frames in (the
    referee sends no fragments; pings only after a heartbeat of silence, which never comes
    here), one answer per message."""

    def __init__(self, port: int, match_id: str, token: str) -> None:
        self.conn = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn.sendall(
            f"GET /v1/matches/{match_id}/socket HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
        )
        self.buffer = b""
        while (end := self.buffer.find(b"\r\n\r\n")) < 0:
            self.buffer += self._received()
        if self.buffer[9:12] != b"101":
            raise RuntimeError(f"upgrade refused: {self.buffer!r}")
        self.buffer = self.buffer[end + 4 :]
        self.sent = 0

    def exchange(self, payload: bytes) -> bytes:
        """Send one text message; the next message received."""
        self.sent += 1
        mask = os.urandom(4)
        length = len(payload)
        head = struct.pack("!BB", 0x81, 0x80 | length) if length < 126 else struct.pack("!BBH", 0x81, 0xFE, length)
        masked = (int.from_bytes(payload) ^ int.from_bytes((mask * (length // 4 + 1))[:length])).to_bytes(length)
        self.conn.sendall(head + mask + masked)
        while (message := self._message()) is None:
            self.buffer += self._received()
        return message

    def _message(self) -> bytes | None:
        """The payload of the first whole frame received, taken out; None until one is whole."""
        if len(self.buffer) < 2:
            return None
        size, start = self.buffer[1] & 0x7F, 2
        if size == 126:
            if len(self.buffer) < 4:
                return None
            size, start = struct.unpack_from("!H", self.buffer, 2)[0], 4
        elif size == 127:
            if len(self.buffer) < 10:
                return None
            size, start = struct.unpack_from("!Q", self.buffer, 2)[0], 10
        if len(self.buffer) < start + size:
            return None
        message, self.buffer = self.buffer[start : start + size], self.buffer[start + size :]
        return message

    def _received(self) -> bytes:
        chunk = self.conn.recv(65536)
        if not chunk:
            raise _Closed
        return chunk

    def close(self) -> None:
        self.conn.sendall(struct.pack("!BB", 0x88, 0x80) + b"\0\0\0\0")
        self.conn.close()


def referee_bot(port: int, transport: str, deadline: float, latencies: list[float], errors: list[int]) -> None:
    """Solo matches of The Game, as ``bench/http_moves.py``'s clients play them: each move over
    a kept HTTP connection, a new connection per request, or the seat's WebSocket."""
    rng = random.Random()
    session = KeepAlive(port)

    def send(method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        if transport != "per-request":
            return session.request(method, path, body, headers)
        return request(port, method, path, body, headers)

    while time.perf_counter() < deadline:
        created = orjson.loads(send("POST", "/v1/matches", b'{"game": "the-game", "players": 1}')[1])
        match_id, state_token, token = created["match_id"], created["state_token"], created["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        legal = orjson.loads(send("GET", f"/v1/matches/{match_id}/legal-actions", headers=auth)[1])["actions"]
        channel = SeatSocket(port, match_id, token) if transport == "socket" else None
        view = None
        while legal and time.perf_counter() < deadline:
            action = simple_choice(legal, view, rng)
            start = time.perf_counter()
            if channel is not None:
                message = orjson.dumps({"id": str(channel.sent), "state_token": state_token, "action": action})
                reply = orjson.loads(channel.exchange(message))
                status, answer = reply["status"], reply["body"]
            else:
                body = orjson.dumps({"state_token": state_token, "action": action})
                status, data = send("POST", f"/v1/matches/{match_id}/actions", body, auth)
                answer = orjson.loads(data)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors.append(status)
                break
            state_token, legal, view = answer["state_token"], answer["legal_actions"], answer["view"]
        if channel is not None:
            channel.close()


def referee_load(port: int, transport: str, seconds: float, bots: int, out: multiprocessing.Queue) -> None:
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    errors: list[int] = []
    threads = [
        threading.Thread(target=referee_bot, args=(port, transport, deadline, latencies, errors)) for _ in range(bots)
    ]
    cpu = time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put((latencies, len(errors), time.process_time() - cpu))


def run_referee(port: int, transport: str, seconds: float, matches: int) -> tuple[list[float], int, float]:
    """``matches`` bots in two processes (one Python process cannot drive a server on its own
    without its interpreter lock being the bottleneck): latencies, refusals, their CPU."""
    out: multiprocessing.Queue = multiprocessing.Queue()
    halves = [matches // 2, matches - matches // 2]
    procs = [multiprocessing.Process(target=referee_load, args=(port, transport, seconds, n, out)) for n in halves if n]
    for proc in procs:
        proc.start()
    latencies: list[float] = []
    refused, cpu = 0, 0.0
    for _ in procs:
        lat, err, used = out.get()
        latencies += lat
        refused += err
        cpu += used
    for proc in procs:
        proc.join()
    return latencies, refused, cpu


def run_peer(port: int, api_port: int, seconds: float, matches: int) -> tuple[list[float], int, float]:
    """``matches`` bots in one Node process: latencies, moves that got no answer, its CPU."""
    done = subprocess.run(
        ["node", "driver.js", str(port), str(api_port), str(matches), str(seconds)],
        cwd=PEER,
        check=True,
        capture_output=True,
        timeout=seconds + 120,
    )
    result = orjson.loads(done.stdout.splitlines()[-1])
    return result["latencies"], result["stalled"], result["cpu"]


def measure(system: dict, seconds: float, matches: int, redis_pid: int) -> dict[str, float]:
    server_cpu, redis_cpu = cpu_seconds(system["pids"]), cpu_seconds([redis_pid])
    latencies, failed, client_cpu = system["run"](seconds, matches)
    moves = len(latencies)
    if not moves:  # a row with no move answered (a server that stalled): nothing to divide by
        return {
            "rate": 0.0,
            "p50": nan,
            "p99": nan,
            "failed": failed,
            "server_us": nan,
            "redis_us": nan,
            "client_us": nan,
        }
    ordered = sorted(latencies)
    return {
        "rate": moves / seconds,
        "p50": statistics.median(ordered) * 1000,
        "p99": ordered[int(0.99 * len(ordered))] * 1000,
        "failed": failed,
        "server_us": (cpu_seconds(system["pids"]) - server_cpu) / moves * 1e6,
        "redis_us": (cpu_seconds([redis_pid]) - redis_cpu) / moves * 1e6 if system["redis"] else 0.0,
        "client_us": client_cpu / moves * 1e6,
    }


def start_referee(port: int, store: dict[str, str]) -> subprocess.Popen:
    """The referee as shipped (gunicorn with ``service/server/gunicorn_conf.py``) on the store
    ``store``'s variables choose: Redis, or the SQLite file ``referee serve`` uses when no Redis
    is named."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_CLUSTER_URL", "REFEREE_STORE")},
        **store,
        "REFEREE_BIND": f"127.0.0.1:{port}",
        "REFEREE_SECRET": "bench",
        "REFEREE_RATE_LIMIT": "100000000 per minute",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:service.server.gunicorn_conf", "service:create_app()"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=8, help="matches played at once, one bot each")
    parser.add_argument("--seconds", type=float, default=10, help="load time per system and round")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each row is kept")
    args = parser.parse_args()
    install_peer()
    work = Path(tempfile.mkdtemp(prefix="peer-moves-"))
    started: list[subprocess.Popen] = []
    try:
        redis_port = free_port()
        started.append(
            subprocess.Popen(
                ["redis-server", "--port", str(redis_port), "--dir", str(work), "--save", ""]
                + ["--maxmemory-policy", "noeviction", "--appendonly", "yes", "--appendfsync", "everysec"],
                stdout=subprocess.DEVNULL,
            )
        )
        wait_for(redis_port)
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        redis_pid = int(redis.Redis.from_url(redis_url).info("server")["process_id"])

        systems: dict[str, dict] = {}
        for storage in ("memory", "flatfile"):
            port, api_port = free_port(), free_port()
            command = ["node", "server.js", str(port), str(api_port), storage, str(work / "flatfile")]
            node = subprocess.Popen(command, cwd=PEER, stdout=subprocess.DEVNULL)
            started.append(node)
            wait_for(port)
            wait_for(api_port)
            systems[f"boardgame.io, {storage}"] = {
                "pids": [node.pid],
                "redis": False,
                "run": lambda s, m, p=port, a=api_port: run_peer(p, a, s, m),
            }
        for store, settings in (
            ("Redis", {"REDIS_URL": redis_url}),
            ("SQLite file", {"REFEREE_DB_PATH": str(work / "matches.sqlite3")}),
        ):
            port = free_port()
            referee = start_referee(port, settings)
            started.append(referee)
            wait_for(port)
            time.sleep(2)  # the workers have forked
            referee_pids = server_pids([referee])
            for transport, row in TRANSPORTS.items():
                systems[f"referee, {store}, {row}"] = {
                    "pids": referee_pids,
                    "redis": store == "Redis",
                    "run": lambda s, m, p=port, t=transport: run_referee(p, t, s, m),
                }

        for system in systems.values():  # first requests load code, seeds and scripts: not measured
            measure(system, 2, args.matches, redis_pid)
        best: dict[str, dict[str, float]] = {}
        order = list(systems)
        for round_ in range(args.rounds):
            for name in order if round_ % 2 == 0 else reversed(order):
                result = measure(systems[name], args.seconds, args.matches, redis_pid)
                if name not in best or result["rate"] > best[name]["rate"]:
                    best[name] = result
    finally:
        for proc in started:
            proc.terminate()
        for proc in started:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(work, ignore_errors=True)

    print(
        f"{args.matches} matches at once, {args.seconds:.0f} s per row and round, best of {args.rounds} "
        f"alternating rounds, {os.cpu_count()} cores shared by everything"
    )
    print("| system | moves/s | p50 ms | p99 ms | moves failed | CPU µs/move: server | Redis | load generator |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, r in best.items():
        print(
            f"| {name} | {r['rate']:.0f} | {r['p50']:.2f} | {r['p99']:.2f} | {r['failed']:.0f} "
            f"| {r['server_us']:.0f} | {r['redis_us']:.0f} | {r['client_us']:.0f} |"
        )
    print()
    for store, peer in (("Redis", "boardgame.io, memory"), ("SQLite file", "boardgame.io, flatfile")):
        for transport in ("keep-alive", "socket"):
            ours = best[f"referee, {store}, {TRANSPORTS[transport]}"]
            ours_cpu = ours["server_us"] + ours["redis_us"]
            print(
                f"referee on {store} ({transport}) / {peer}: {ours['rate'] / best[peer]['rate']:.2f}× the moves/s; "
                f"server CPU per move (Redis included) {ours_cpu / best[peer]['server_us']:.2f}× the peer's"
            )


if __name__ == "__main__":
    main()
