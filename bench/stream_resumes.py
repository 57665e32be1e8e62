"""Moves while clients loop on old stream resumes (``Last-Event-ID: 0``), through
``referee serve`` (2 gevent workers) + Redis.

A long match (``--length`` versions of Viaggio, the longest game) is played first. Then, in
each round, a fresh node serves a quiet match whose moves (``POST /actions`` as the client
sees it) are timed in three phases of ``--moves`` moves: with nothing else going on, while
``--loopers`` clients each resume a stream of the long match from version 0 again and again
(read until the stream reaches the current version, hang up, start over), and with nothing
again. The loaded p99 is compared with the p99 of the quiet phases of the same round.

The loopers run in another process at the lowest CPU priority (``nice 19``), standing for
remote clients: their reading takes the node's CPU only when it idles.

    python bench/stream_resumes.py [--rounds 5] [--moves 200] [--loopers 8] [--length 500]
                                   [--tree DIR] [--redis redis://127.0.0.1:6379/2]

``--tree`` serves another checkout of the service (e.g. ``git archive <commit>`` unpacked),
to measure a version before a change with the same script.
"""

from __future__ import annotations

import argparse
import http.client
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import orjson
from nodes import ROOT, Player, free_port, percentile, start_node

GAME, PLAYERS = "viaggio-al-centro-della-terra", 2


def loop_resumes(port: int, match_id: str, current: int, loopers: int) -> None:
    """The loopers' process: ``loopers`` threads resuming from version 0 until stdin closes;
    prints how many resumes they completed and how many events they read."""
    stop = threading.Event()
    done = [0] * loopers
    events = [0] * loopers

    def loop(index: int) -> None:
        while not stop.is_set():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", f"/v1/matches/{match_id}/stream", headers={"Last-Event-ID": "0"})
            response = conn.getresponse()
            while line := response.readline():
                if line.startswith(b"id: "):
                    events[index] += 1
                    if int(line[4:]) >= current:
                        break
            conn.close()
            done[index] += 1

    threads = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(loopers)]
    for thread in threads:
        thread.start()
    print("ready", flush=True)
    sys.stdin.readline()
    stop.set()
    print(orjson.dumps({"resumes": sum(done), "events": sum(events)}).decode(), flush=True)


def one_round(tree: Path, redis_url: str, args: argparse.Namespace) -> dict:
    port = free_port()
    node = start_node(redis_url, port, "bench-stream-resumes", tree=tree)
    try:
        followed = Player(port, 1, GAME, PLAYERS, seeded_match=True)
        while followed.version < args.length:
            followed.move()
        quiet = Player(port, 2, GAME, PLAYERS, seeded_match=True)
        for _ in range(20):  # warm up both workers
            quiet.move()
        before = [quiet.move() for _ in range(args.moves)]
        loopers = subprocess.Popen(
            [
                "nice",
                "-n",
                "19",
                sys.executable,
                __file__,
                "--loop",
                str(port),
                followed.match_id,
                str(followed.version),
                str(args.loopers),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert loopers.stdout is not None and loopers.stdin is not None
        assert loopers.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        started = time.perf_counter()
        loaded = [quiet.move() for _ in range(args.moves)]
        seconds = time.perf_counter() - started
        loopers.stdin.write("stop\n")
        loopers.stdin.flush()
        report = orjson.loads(loopers.stdout.readline())
        loopers.wait(60)
        after = [quiet.move() for _ in range(args.moves)]
    finally:
        node.terminate()
        node.wait(30)
    quiet_p99 = percentile(before + after, 0.99)
    return {
        "quiet_p50": percentile(before + after, 0.5),
        "quiet_p99": quiet_p99,
        "loaded_p50": percentile(loaded, 0.5),
        "loaded_p99": percentile(loaded, 0.99),
        "ratio_p99": percentile(loaded, 0.99) / quiet_p99,
        "resumes_per_s": report["resumes"] / seconds,
        "events_per_resume": report["events"] / max(report["resumes"], 1),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--loop":
        loop_resumes(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--loopers", type=int, default=8)
    parser.add_argument("--length", type=int, default=500, help="versions of the match the loopers resume")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the source tree to serve")
    parser.add_argument("--redis", default=os.environ.get("REFEREE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/2"))
    args = parser.parse_args()
    rounds = [one_round(args.tree, args.redis, args) for _ in range(args.rounds)]
    print(
        f"{args.loopers} clients looping on Last-Event-ID: 0 over a match of {args.length} versions; "
        f"{args.moves} moves per phase, {args.rounds} rounds, tree {args.tree}"
    )
    print("| round | quiet p50 | quiet p99 | loaded p50 | loaded p99 | p99 ratio | resumes/s | events/resume |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for index, r in enumerate(rounds, 1):
        print(
            f"| {index} | {r['quiet_p50'] * 1000:.2f} ms | {r['quiet_p99'] * 1000:.2f} ms | "
            f"{r['loaded_p50'] * 1000:.2f} ms | {r['loaded_p99'] * 1000:.2f} ms | {r['ratio_p99']:.2f} | "
            f"{r['resumes_per_s']:.0f} | {r['events_per_resume']:.0f} |"
        )
    ratios = [r["ratio_p99"] for r in rounds]
    error = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else float("nan")
    print(f"p99 ratio loaded/quiet: mean {statistics.mean(ratios):.2f} ± {error:.2f} (standard error)")


if __name__ == "__main__":
    main()
