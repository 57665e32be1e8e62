"""Moves per second through gunicorn (2 gevent workers, the shipped configuration) + Redis,
beside a bare Flask endpoint doing one Redis GET and SET under the same gunicorn worker model,
in the same run and under the same load generator.

Each client thread plays solo matches of The Game: it creates a match, then posts one action
after another, each chosen from the ``legal_actions`` of the previous answer, with the state
token of that answer (a real move: token check, rules, compare-and-set, log). The client
plays like a simple bot (the smallest jump, two cards a turn), so a match lasts about a
hundred moves, as real ones do; uniformly random play would end after some fifteen and
the benchmark would measure match creation as much as moves. The bare
endpoint gets the same number of client threads posting a body of the same size. Both servers
run the production configuration (access log and rate limiter on, limit set out of reach).

    python bench/http_moves.py [--seconds 10] [--rounds 2] [--clients 8] [--workers gevent,sync]
                               [--nodes 2] [--redis redis://127.0.0.1:6379/14]

``--workers gevent,sync`` measures the shipped gevent workers and the sync workers used before
them side by side, each against its own bare endpoint. ``--nodes 2`` adds a row where two
referee servers share the Redis and every client sends each move to the other server than
the move before (the worst case for the per-process match cache). Each referee row shows the
match cache's hit rate over its moves, read from the servers' ``/metrics``: a hit commits
without reading the match first (one Redis round trip instead of two). Every request opens a
new connection, so one server's two worker processes take a match's moves in turn at random;
they share the node's cache (service/cache/node.py), so either finds the record the other
committed.

Where the time goes: each row also gives the CPU time per request of the servers (gunicorn
masters and workers, from ``/proc``), of the Redis server and of the load generator, since all
of them share the machine's cores: a row's rate is what their sum allows. So the load
generator does as little as a client can: it writes requests on the socket and reads only
the status, ``Content-Length`` and body of each answer (:func:`request`).
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
import redis

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(app: str, port: int, redis_url: str, extra: list[str]) -> subprocess.Popen:
    env = {
        **os.environ,
        "REDIS_URL": redis_url,
        "REFEREE_BIND": f"127.0.0.1:{port}",
        "WEB_CONCURRENCY": "2",
        "REFEREE_SECRET": "bench",
        "REFEREE_RATE_LIMIT": "100000000 per minute",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "gunicorn", *extra, "--bind", f"127.0.0.1:{port}", "--workers", "2", app]
    proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{app} did not start")


def request(
    port: int, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    """One HTTP/1.1 request on a new connection: the answer's status and body.

    Written on the socket, not with ``http.client``: that client parses every answer's
    headers with the ``email`` package, some 45 µs for the bare endpoint's five headers and
    65 µs for a move's eight on this machine, more than the referee's whole server-side cost
    over the bare endpoint. The load generator shares the servers' two cores, so that parsing
    taxed each answer by its number of headers. Here both endpoints' answers cost a few µs
    to read: the status line, ``Content-Length`` and the body, which is all a client needs
    from them. The request is what ``http.client`` sends (``Host``, the given headers, a
    ``Content-Length`` for a body); the server keeps the connection open and sees the client
    close it after the answer, as before.
    """
    lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    if method == "POST":
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall("\r\n".join(lines).encode() + b"\r\n\r\n" + body)
        answer = b""
        while (end := answer.find(b"\r\n\r\n")) < 0:
            answer += _received(conn)
        head, data = answer[:end], answer[end + 4 :]
        length = _CONTENT_LENGTH.search(head)
        if length is None:
            raise RuntimeError(f"an answer without Content-Length: {head!r}")
        while len(data) < int(length.group(1)):
            data += _received(conn)
    return int(head[9:12]), data


#: The answer's body length, in the headers (names are case-insensitive).
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)


def _received(conn: socket.socket) -> bytes:
    chunk = conn.recv(65536)
    if not chunk:
        raise RuntimeError("the server closed the connection before the whole answer")
    return chunk


def simple_choice(legal: list[dict], view: dict | None, rng: random.Random) -> dict:
    """End the turn as soon as allowed, else lay the card that moves its pile least."""
    if {"type": "end_turn"} in legal:
        return {"type": "end_turn"}
    if view is None:
        return rng.choice(legal)
    piles = view["piles"]

    def jump(action: dict) -> int:
        pile = piles[action["pile"]]
        return (action["card"] - pile["top"]) * (1 if pile["direction"] == "up" else -1)

    return min(legal, key=jump)


def referee_client(ports: list[int], deadline: float, latencies: list[float], errors: list[int], seed: int) -> None:
    """Solo matches of The Game; move ``i`` of a match goes to ``ports[i % len(ports)]``."""
    rng = random.Random(seed)
    port = ports[0]
    while time.perf_counter() < deadline:
        status, data = request(port, "POST", "/v1/matches", b'{"game": "the-game", "players": 1}')
        created = orjson.loads(data)
        match_id, token = created["match_id"], created["seats"][0]["token"]
        state_token = created["state_token"]
        auth = {"Authorization": f"Bearer {token}"}
        legal = orjson.loads(request(port, "GET", f"/v1/matches/{match_id}/legal-actions", headers=auth)[1])["actions"]
        view = None
        moves = 0
        while legal and time.perf_counter() < deadline:
            body = orjson.dumps({"state_token": state_token, "action": simple_choice(legal, view, rng)})
            node = ports[moves % len(ports)]
            moves += 1
            start = time.perf_counter()
            status, data = request(node, "POST", f"/v1/matches/{match_id}/actions", body, auth)
            latencies.append(time.perf_counter() - start)
            if status != 200:
                errors.append(status)
                break
            answer = orjson.loads(data)
            state_token, legal, view = answer["state_token"], answer["legal_actions"], answer["view"]


#: What the bare endpoint's clients post: a body the size of a move's.
BARE_BODY = orjson.dumps({"state_token": "x" * 60, "action": {"type": "play", "card": 42, "pile": 1}})


def bare_client(ports: list[int], deadline: float, latencies: list[float], errors: list[int], seed: int) -> None:
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        status, _ = request(ports[0], "POST", "/bare", BARE_BODY, {"X-Key": str(seed)})
        latencies.append(time.perf_counter() - start)
        if status != 200:
            errors.append(status)


def load_process(
    kind: str, ports: list[int], seconds: float, threads: int, seed: int, out: multiprocessing.Queue
) -> None:
    target = bare_client if kind == "bare" else referee_client
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    errors: list[int] = []
    workers = [
        threading.Thread(target=target, args=(ports, deadline, latencies, errors, seed * 100 + i))
        for i in range(threads)
    ]
    cpu = time.process_time()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    out.put((latencies, errors, time.process_time() - cpu))


def cache_lookups(ports: list[int]) -> dict[str, float]:
    """The match cache's lookups so far, by result, summed over the servers at ``ports``."""
    totals: dict[str, float] = {}
    for port in ports:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
        conn.close()
        for result, value in re.findall(r'^referee_match_cache_lookups_total\{result="(\w+)"\} (\S+)$', text, re.M):
            totals[result] = totals.get(result, 0.0) + float(value)
    return totals


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time so far of the processes ``pids`` (Linux ``/proc``)."""
    total = 0.0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def server_pids(servers: list[subprocess.Popen]) -> list[int]:
    """Each gunicorn master and its workers."""
    pids = []
    for server in servers:
        children = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
        pids += [server.pid, *map(int, children)]
    return pids


def run_load(
    kind: str, ports: list[int], seconds: float, clients: int, pids: list[int], redis_pid: int
) -> dict[str, float]:
    """One row: the load, its rate and latencies, and the CPU time per request of the
    servers (``pids``), Redis and the load generator."""
    before = cache_lookups(ports) if kind != "bare" else {}
    server_cpu, redis_cpu = cpu_seconds(pids), cpu_seconds([redis_pid])
    out: multiprocessing.Queue = multiprocessing.Queue()
    procs = [
        multiprocessing.Process(target=load_process, args=(kind, ports, seconds, clients // 2, p, out))
        for p in range(2)
    ]
    for p in procs:
        p.start()
    latencies: list[float] = []
    errors: list[int] = []
    client_cpu = 0.0
    for _ in procs:
        lat, err, cpu = out.get()
        latencies += lat
        errors += err
        client_cpu += cpu
    for p in procs:
        p.join()
    ordered = sorted(latencies)
    result = {
        "rate": len(latencies) / seconds,
        "p50": statistics.median(ordered) * 1000,
        "p90": ordered[int(0.90 * len(ordered))] * 1000,
        "p99": ordered[int(0.99 * len(ordered))] * 1000,
        "errors": len(errors),
        "server_us": (cpu_seconds(pids) - server_cpu) / len(latencies) * 1e6,
        "redis_us": (cpu_seconds([redis_pid]) - redis_cpu) / len(latencies) * 1e6,
        "client_us": client_cpu / len(latencies) * 1e6,
    }
    if kind != "bare":
        after = cache_lookups(ports)
        hits, misses = (after.get(r, 0.0) - before.get(r, 0.0) for r in ("hit", "miss"))
        result["hit_rate"] = hits / (hits + misses) if hits + misses else 0.0
    return result


WORKER_OPTIONS = {"gevent": ["-k", "gevent", "--worker-connections", "1000"], "sync": ["-k", "sync"]}
LABELS = {
    "bare": "bare Flask: one Redis GET + SET",
    "referee": "referee: POST action (a move)",
    "two-nodes": "referee on 2 nodes, each move on the other one",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10, help="load time per endpoint and worker model")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; the best of them is kept")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--nodes", type=int, choices=(1, 2), default=1, help="2: add the two-server row")
    parser.add_argument(
        "--workers",
        default="gevent",
        help="worker models to compare, comma-separated: gevent (shipped), sync (the model before it)",
    )
    args = parser.parse_args()
    models = args.workers.split(",")
    apps = {"bare": "bench.bare_app:app", "referee": "service:create_app()"}
    kinds = ["bare", "referee", *(["two-nodes"] if args.nodes == 2 else [])]
    servers = []
    try:
        ports: dict[tuple[str, str], list[int]] = {}
        started: dict[tuple[str, str], list[subprocess.Popen]] = {}
        for model in models:
            for kind in kinds:
                app = apps["bare" if kind == "bare" else "referee"]
                config = [] if kind == "bare" else ["-c", "python:service.server.gunicorn_conf"]
                ports[(model, kind)] = [free_port() for _ in range(2 if kind == "two-nodes" else 1)]
                started[(model, kind)] = [
                    start(app, port, args.redis, [*config, *WORKER_OPTIONS[model]]) for port in ports[(model, kind)]
                ]
                servers += started[(model, kind)]
        time.sleep(1.0)  # the workers have forked
        redis_pid = int(redis.Redis.from_url(args.redis).info("server")["process_id"])
        pids = {key: server_pids(procs) for key, procs in started.items()}
        results: dict[tuple[str, str], dict[str, float]] = {}
        for _ in range(args.rounds):  # interleaved, so a change of machine load hits every row alike
            for key, key_ports in ports.items():
                result = run_load(key[1], key_ports, args.seconds / args.rounds, args.clients, pids[key], redis_pid)
                if key not in results or result["rate"] > results[key]["rate"]:
                    results[key] = result
    finally:
        for server in servers:
            server.terminate()
            server.wait(10)
    print(
        f"gunicorn, 2 workers per server, {args.clients} client threads in 2 processes, {args.seconds:.0f} s per row "
        f"(best of {args.rounds} interleaved rounds), Redis {args.redis}"
    )
    print(
        "| workers | endpoint | requests/s | p50 ms | p90 ms | p99 ms | non-200 | match cache hits "
        "| CPU µs/request: servers | Redis | load generator |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (model, kind), r in results.items():
        hits = f"{r['hit_rate']:.0%}" if "hit_rate" in r else "–"
        print(
            f"| {model} | {LABELS[kind]} | {r['rate']:.0f} | {r['p50']:.2f} | {r['p90']:.2f} | {r['p99']:.2f} "
            f"| {r['errors']} | {hits} | {r['server_us']:.0f} | {r['redis_us']:.0f} | {r['client_us']:.0f} |"
        )
    for model in models:
        for kind in kinds[1:]:
            ratio = results[(model, kind)]["rate"] / results[(model, "bare")]["rate"]
            print(f"\nratio {LABELS[kind]} / bare, {model} workers: {ratio:.2f}")


if __name__ == "__main__":
    main()
