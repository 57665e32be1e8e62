"""Bursts of stream connections against one node: does its memory come back, and do new
connections get through while a burst is on?

One node (``referee serve`` with Redis, 2 gevent workers, the shipped limits) serves
``--matches`` matches. A warm-up burst (``--warm`` streams) runs first: what a worker sets up
once (connections, caches, code paths) is part of the baseline. Each of ``--bursts`` bursts
then opens ``--connections`` streams at once from ``--addresses`` client addresses
(127.0.0.x, so that no single client's share of the slots is what refuses them), holds them
``--hold`` seconds while a move is played in each match, then every client hangs up.
Meanwhile a prober opens a new connection every 50 ms and times its answer (``GET
/healthz``): one that takes over a second is counted as stalled. After each burst, once the
node has had ``--settle`` seconds, the RSS of its processes (master and workers, from /proc)
is compared with the baseline measured after the warm-up.

    python bench/stream_bursts.py [--bursts 5] [--connections 2000] [--tree DIR]

The bursting clients run in another process (gevent), at the lowest CPU priority.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
from nodes import ROOT, Player, free_port, node_rss_kb, request, start_node


class Prober:
    """A new connection every 50 ms: how long each took to answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            started = time.perf_counter()
            try:
                request(self.port, "GET", "/healthz")
            except OSError:
                pass
            self.times.append(time.perf_counter() - started)


def burst(port: int, match_ids: list[str], connections: int, addresses: int, hold: float) -> dict:
    """The bursting clients' process: open ``connections`` streams at once, keep them
    ``hold`` seconds (reading what comes), hang up; what the node answered."""
    from gevent import monkey

    monkey.patch_all()
    import gevent

    answers: dict[str, int] = {}
    events = [0]

    def follow(index: int) -> None:
        sock = socket.socket()
        sock.bind((f"127.0.0.{2 + index % addresses}", 0))
        try:
            sock.connect(("127.0.0.1", port))
            path = f"/v1/matches/{match_ids[index % len(match_ids)]}/stream"
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
            status = sock.recv(65536)[9:12].decode() or "closed"
            answers[status] = answers.get(status, 0) + 1
            if status == "200":
                with gevent.Timeout(hold, False):
                    while chunk := sock.recv(65536):
                        events[0] += chunk.count(b"\nid: ") + chunk.startswith(b"id: ")
        except OSError as exc:
            answers[type(exc).__name__] = answers.get(type(exc).__name__, 0) + 1
        finally:
            sock.close()

    greenlets = [gevent.spawn(follow, i) for i in range(connections)]
    gevent.joinall(greenlets, timeout=hold + 60)
    return {"answers": answers, "events": events[0]}


def node_rss_mb(master: int) -> dict[int, float]:
    """The RSS of the node's master and each worker, in MB."""
    return {pid: kb / 1024 for pid, kb in node_rss_kb(master).items()}


def run_burst(port: int, match_ids: list[str], players: list[Player], args: argparse.Namespace) -> dict:
    clients = subprocess.Popen(
        [
            "nice",
            "-n",
            "19",
            sys.executable,
            __file__,
            "--burst",
            str(port),
            ",".join(match_ids),
            str(args.connections),
            str(args.addresses),
            str(args.hold),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    time.sleep(args.hold / 2)
    moves: dict[str, int] = {}
    for player in players:
        status, answer, _ = player.attempt()
        said = "200" if status == 200 else f"{status} {answer.get('code')}"
        moves[said] = moves.get(said, 0) + 1
    out, _ = clients.communicate(timeout=args.hold + 120)
    return orjson.loads(out) | {"moves": moves}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--burst":
        port, ids, connections, addresses, hold = sys.argv[2:7]
        result = burst(int(port), ids.split(","), int(connections), int(addresses), float(hold))
        print(orjson.dumps(result).decode(), flush=True)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--connections", type=int, default=2000)
    parser.add_argument("--addresses", type=int, default=50)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--hold", type=float, default=8.0)
    parser.add_argument("--warm", type=int, default=2000, help="streams of the warm-up burst before the baseline")
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the node")
    parser.add_argument("--redis", default=os.environ.get("REFEREE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/2"))
    args = parser.parse_args()
    extra = dict(item.split("=", 1) for item in args.env)
    port = free_port()
    node = start_node(args.redis, port, "bench-stream-bursts", extra, tree=args.tree)
    try:
        players = [Player(port, seed, "esploratore") for seed in range(args.matches)]
        match_ids = [p.match_id for p in players]
        fresh = node_rss_mb(node.pid)
        warm = argparse.Namespace(**{**vars(args), "connections": args.warm})
        run_burst(port, match_ids, players, warm)
        time.sleep(args.settle)
        baseline = node_rss_mb(node.pid)
        print(
            f"tree {args.tree}, env {extra or 'shipped defaults'}; node RSS fresh {sum(fresh.values()):.0f} MB, "
            f"after a warm-up burst of {args.warm} streams {sum(baseline.values()):.0f} MB (the baseline below)"
        )
        print(
            "| burst | answers | events | moves | stalled probes (>1 s) | slowest probe | node RSS MB | vs baseline |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        total0 = sum(baseline.values())
        for index in range(1, args.bursts + 1):
            with Prober(port) as prober:
                result = run_burst(port, match_ids, players, args)
            stalled = sum(1 for t in prober.times if t > 1.0)
            time.sleep(args.settle)
            rss = node_rss_mb(node.pid)
            total = sum(rss.values())
            print(
                f"| {index} | {result['answers']} | {result['events']} | {result['moves']} | "
                f"{stalled} of {len(prober.times)} | "
                f"{max(prober.times):.2f} s | {total:.0f} ({', '.join(f'{v:.0f}' for v in rss.values())}) | "
                f"{total - total0:+.0f} |"
            )
        print(f"median probe {statistics.median(prober.times) * 1000:.1f} ms in the last burst")
    finally:
        node.terminate()
        node.wait(30)


if __name__ == "__main__":
    main()
