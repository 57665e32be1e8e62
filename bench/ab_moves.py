"""A/B of referee variants against the bare endpoint, in fresh servers every round.

Each variant is a source tree (a ``git worktree`` of another commit, say) and optional
environment settings. Every round starts a gunicorn server for the bare endpoint and one for
each variant, warms each up, then loads them one after the other in a shuffled order, and
stops them; a variant's ratio per round is its moves/s over the bare endpoint's in that round.

Fresh servers each round, because one server start is not like another: the same tree served
twice side by side in one run measured ratios 0.03 apart, round after round, and the order of
two variants flipped between runs. Memory layout and
where the kernel places each worker make a start fast or slow for its whole life, so rounds
of one start are not independent samples of a variant; rounds of fresh starts are. The mean
ratio and its standard error over rounds are the figures to compare.

    git worktree add /tmp/before <commit>
    python bench/ab_moves.py /tmp/before . ".:REFEREE_ACCESS_LOG=0" [--seconds 5] [--rounds 8]

A variant with ``AB_WITHOUT=<name>`` serves the tree with one optimisation of the move path
taken out by a patch in the benchmark (``bench/ab_patches.py``), so each optimisation is
measured alone against the tree as shipped:

    python bench/ab_moves.py . ".:AB_WITHOUT=resp_packer" ".:AB_WITHOUT=move_lane" --rounds 8

Besides each variant's mean ratio, the table gives its difference to the first variant,
round by round (both served fresh in the same round): the mean of those paired differences
± its standard error is what says whether an optimisation beats the noise.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.http_moves import WORKER_OPTIONS, cpu_seconds, free_port, run_load, server_pids
from bench.peer_moves import run_referee

REDIS_URL = os.environ.get("AB_REDIS_URL", "redis://127.0.0.1:6379/14")
WARM_UP_SECONDS = 1.0


def start(variant: str | None) -> tuple[subprocess.Popen, int]:
    """The bare endpoint (``None``) or a referee variant ``tree[:NAME=value...]``."""
    tree, *settings = (variant or str(Path(__file__).resolve().parents[1])).split(":")
    tree = str(Path(tree).resolve())
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": REDIS_URL,
        "REFEREE_SECRET": "bench",
        "WEB_CONCURRENCY": "2",
        "REFEREE_RATE_LIMIT": "100000000 per minute",
        "PYTHONPATH": tree,
        **dict(setting.split("=", 1) for setting in settings),
    }
    factory = "bench.ab_patches:create_app()" if "AB_WITHOUT" in env else "service:create_app()"
    # A variant runs the worker its tree's configuration ships (a gevent worker); the bare
    # endpoint runs gunicorn's own gevent worker.
    app, config = (
        ("bench.bare_app:app", WORKER_OPTIONS["gevent"])
        if variant is None
        else (factory, ["-c", "python:service.server.gunicorn_conf", "--worker-connections", "1000"])
    )
    command = [
        sys.executable,
        "-m",
        "gunicorn",
        *config,
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        "2",
        app,
    ]
    server = subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return server, port


def wait_until_serving(name: str, port: int) -> None:
    """Wait until a started server answers HTTP (its socket is bound before its workers have
    booted; on a busy machine many servers starting at once take a while to import the
    service)."""
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", "/healthz")
            conn.getresponse().read()
            conn.close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{name} did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="+", help="source tree, optionally :NAME=value settings")
    parser.add_argument("--seconds", type=float, default=5, help="load time per server and round")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1, help="seeds the order of the servers in each round")
    parser.add_argument(
        "--transport",
        choices=("per-request", "socket"),
        default="per-request",
        help="how the variants' bots send moves: a connection per request, or the seat's WebSocket "
        "(bench/peer_moves.py's bots); the bare endpoint is always loaded a connection per request",
    )
    args = parser.parse_args()
    if len(set(args.variants)) != len(args.variants):  # each names its server: a repeat would be left running
        parser.error("name each variant once (to serve one tree twice, give the second a setting such as :RUN=2)")
    redis_pid = int(redis.Redis.from_url(REDIS_URL).info("server")["process_id"])
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in ["bare", *args.variants]}
    shuffled = random.Random(args.seed)
    for _ in range(args.rounds):
        servers: dict[str, tuple[subprocess.Popen, int]] = {}
        try:
            for name in rows:  # inside the try: a variant that fails to start stops the ones before it
                servers[name] = start(None if name == "bare" else name)
            for name, (_, port) in servers.items():
                wait_until_serving(name, port)
            time.sleep(1.5)  # the workers have forked
            pids = {name: server_pids([server]) for name, (server, _) in servers.items()}
            order = list(servers)
            shuffled.shuffle(order)
            for name in order:  # first requests load seeds, dictionaries and scripts: not measured
                load(name, servers[name][1], WARM_UP_SECONDS, args, pids[name], redis_pid)
            for name in order:
                rows[name].append(load(name, servers[name][1], args.seconds, args, pids[name], redis_pid))
        finally:
            for server, _ in servers.values():
                server.terminate()
            for server, _ in servers.values():
                try:
                    server.wait(30)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()
        print(f"round {len(rows['bare'])} of {args.rounds} done", file=sys.stderr, flush=True)
    print(
        "| server | requests/s per round | ratio to bare per round | mean ratio ± standard error "
        f"| minus {args.variants[0]}, paired by round | non-200 | CPU µs/request: servers | Redis | load generator |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    ratios = {
        name: [r["rate"] / b["rate"] for r, b in zip(results, rows["bare"], strict=True)]
        for name, results in rows.items()
    }
    for name, results in rows.items():
        rates = [r["rate"] for r in results]
        differences = [x - first for x, first in zip(ratios[name], ratios[args.variants[0]], strict=True)]
        cpu = [statistics.mean(r[part] for r in results) for part in ("server_us", "redis_us", "client_us")]
        print(
            f"| {name} | {' '.join(f'{x:.0f}' for x in rates)} | {' '.join(f'{x:.2f}' for x in ratios[name])} "
            f"| {statistics.mean(ratios[name]):.3f} ± {_standard_error(ratios[name]):.3f} "
            f"| {statistics.mean(differences):+.3f} ± {_standard_error(differences):.3f} "
            f"| {sum(r['errors'] for r in results):.0f} | {cpu[0]:.0f} | {cpu[1]:.0f} | {cpu[2]:.0f} |"
        )


def load(
    name: str, port: int, seconds: float, args: argparse.Namespace, pids: list[int], redis_pid: int
) -> dict[str, float]:
    """One server's row of a round, loaded as ``--transport`` says."""
    if name == "bare" or args.transport == "per-request":
        return run_load(_kind(name), [port], seconds, args.clients, pids, redis_pid)
    server_cpu, redis_cpu = cpu_seconds(pids), cpu_seconds([redis_pid])
    latencies, refused, client_cpu = run_referee(port, "socket", seconds, args.clients)
    moves = max(1, len(latencies))
    return {
        "rate": len(latencies) / seconds,
        "errors": refused,
        "server_us": (cpu_seconds(pids) - server_cpu) / moves * 1e6,
        "redis_us": (cpu_seconds([redis_pid]) - redis_cpu) / moves * 1e6,
        "client_us": client_cpu / moves * 1e6,
    }


def _kind(name: str) -> str:
    return "bare" if name == "bare" else "referee"


def _standard_error(values: list[float]) -> float:
    return statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else 0.0


if __name__ == "__main__":
    main()
