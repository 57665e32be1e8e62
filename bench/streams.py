"""Live streams under load, through gunicorn (the shipped gevent workers) + Redis.

(a) **Subscribers held by one node.** One node (``referee serve``, 2 gevent workers) holds
``--subscribers`` streams (default 1,000, spectators, opened by a separate gevent process) of
one match while this process plays ``--moves`` moves in it. Move latency (``POST /actions``
as the client sees it) is compared with the same number of moves of another match on the
same node with no stream open, measured before and after, in the same run. Then every
subscriber's versions are checked: each must have received every version, in order.

(b) **Delay from a commit on node A to a subscriber on node B.** Two nodes share Redis; a
subscriber on B follows a match while moves are played on A. The delay of each version is
the time B's subscriber read its event minus the version's ``updated_at`` (stamped by A just
before its compare-and-set, so the figure slightly overstates the delay; both nodes run on
this machine, one clock).

    python bench/streams.py [--subscribers 1000] [--moves 150] [--pace 10] [--delay-moves 300]
                            [--redis redis://127.0.0.1:6379/2]

The followed match in (a) is played at ``--pace`` moves per second (a fast bot match; ``0``
plays it as fast as the node answers, which saturates the machine: every version costs the
node a write to each stream). The subscribers' process stands for remote clients and runs
at the lowest CPU priority (``nice 19``), so its reading takes the node's CPU only when idle.

Each part runs well under a minute on the project's 2-core machine.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime

import orjson
from nodes import ROOT, Player, free_port, helper_line, percentile, start_node, streams_settings

GAME, PLAYERS = "viaggio-al-centro-della-terra", 2  # about a thousand moves a match


def hold(port: int, match_id: str, count: int) -> None:
    """The subscribers' process (gevent): open ``count`` streams, say ``ready`` once each
    has its first event, then on a version number from stdin wait until each has it and print
    how many saw every version from 0 to it, in order."""
    from gevent import monkey

    monkey.patch_all()
    import gevent

    seen: list[list[int]] = [[] for _ in range(count)]

    def follow(index: int) -> None:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(
            f"GET /v1/matches/{match_id}/stream HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode()
        )
        buffer = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return
            buffer += chunk
            while (at := buffer.find(b"\nid: ")) >= 0 or buffer.startswith(b"id: "):
                start = 0 if buffer.startswith(b"id: ") else at + 1
                end = buffer.find(b"\n", start)
                if end < 0:
                    break
                seen[index].append(int(buffer[start + 4 : end]))
                buffer = buffer[end:]

    greenlets = [gevent.spawn(follow, i) for i in range(count)]
    while sum(1 for s in seen if s) < count:
        gevent.sleep(0.05)
    print("ready", flush=True)
    final = int(sys.stdin.readline())
    deadline = time.monotonic() + 60
    while any(not s or s[-1] < final for s in seen) and time.monotonic() < deadline:
        gevent.sleep(0.05)
    complete = sum(1 for s in seen if s == list(range(final + 1)))
    in_order = sum(1 for s in seen if s == list(range(len(s))))  # a prefix: late, nothing skipped
    print(
        orjson.dumps(
            {
                "subscribers": count,
                "complete": complete,
                "in_order": in_order,
                "final": final,
                "slowest": min((s[-1] for s in seen if s), default=-1),
            }
        ).decode(),
        flush=True,
    )
    gevent.killall(greenlets)


def held_by_one_node(redis_url: str, subscribers: int, moves: int, pace: float) -> None:
    port = free_port()
    node = start_node(redis_url, port, "bench-streams", streams_settings(subscribers))
    holder: subprocess.Popen | None = None
    try:
        quiet, followed = Player(port, 1, GAME, PLAYERS), Player(port, 2, GAME, PLAYERS)
        for _ in range(10):  # warm up both workers
            quiet.move()
        # Both rows at the same pace: a worker that idles between moves answers a little
        # slower than one kept busy, whatever streams it holds.
        baseline = quiet.paced(moves // 2, pace)
        # The subscribers stand for remote clients: on this machine their process runs at the
        # lowest priority, so that reading 1,000 streams takes the node's CPU only when it idles.
        holder = subprocess.Popen(
            ["nice", "-n", "19", sys.executable, __file__, "--hold", str(port), followed.match_id, str(subscribers)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        opened = time.perf_counter()
        assert holder.stdout is not None and holder.stdin is not None
        said = helper_line(holder, node, 180, f"{subscribers} streams to open").strip()
        assert said == "ready", said
        opened = time.perf_counter() - opened
        loaded = followed.paced(moves, pace)
        holder.stdin.write(f"{followed.version}\n")
        holder.stdin.flush()
        report = orjson.loads(helper_line(holder, node, 90, "the versions to reach every stream"))
        holder.wait(30)
        baseline += quiet.paced(moves // 2, pace)
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
        node.terminate()
        node.wait(30)
    print(
        f"(a) {subscribers} subscribers on one node (2 gevent workers), all opened in {opened:.1f} s; "
        f"{moves} moves each way, the followed match's at {f'{pace:g} per second' if pace else 'full speed'}"
    )
    print("| moves | p50 ms | p99 ms |")
    print("| --- | --- | --- |")
    for name, values in (("no stream open", baseline), (f"{subscribers} streams following the match", loaded)):
        print(f"| {name} | {percentile(values, 0.5) * 1000:.2f} | {percentile(values, 0.99) * 1000:.2f} |")
    print(
        f"ratio p50 {percentile(loaded, 0.5) / percentile(baseline, 0.5):.2f}, "
        f"p99 {percentile(loaded, 0.99) / percentile(baseline, 0.99):.2f}; "
        f"{report['complete']} of {report['subscribers']} subscribers got every version 0..{report['final']} "
        f"within 60 s of the last move ({report['in_order']} received theirs in order with no version skipped; "
        f"the slowest was at version {report['slowest']})"
    )


def across_nodes(redis_url: str, moves: int) -> None:
    port_a, port_b = free_port(), free_port()
    node_a = start_node(redis_url, port_a, "bench-streams", streams_settings(10))
    node_b = start_node(redis_url, port_b, "bench-streams", streams_settings(10))
    try:
        player = Player(port_a, 3, GAME, PLAYERS)
        received: dict[int, float] = {}
        stamped: dict[int, float] = {}
        conn = http.client.HTTPConnection("127.0.0.1", port_b, timeout=30)
        conn.request("GET", f"/v1/matches/{player.match_id}/stream", headers={"Accept": "text/event-stream"})
        stream = conn.getresponse()

        def read() -> None:
            while line := stream.readline():
                if line.startswith(b"data: "):
                    now = time.time()
                    event = orjson.loads(line[6:])
                    received[event["version"]] = now
                    stamped[event["version"]] = datetime.fromisoformat(event["updated_at"]).timestamp()
                    if event["version"] >= moves:
                        return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        for _ in range(moves):
            player.move()
        reader.join(30)
        conn.close()
    finally:
        for node in (node_a, node_b):
            node.terminate()
            node.wait(30)
    delays = [(received[v] - stamped[v]) * 1000 for v in range(1, moves + 1) if v in received]
    print(
        f"(b) commit on node A -> subscriber on node B, {len(delays)} of {moves} versions received: "
        f"p50 {statistics.median(delays):.1f} ms, p99 {percentile(delays, 0.99):.1f} ms, max {max(delays):.1f} ms"
    )


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--hold":
        hold(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=150)
    parser.add_argument("--delay-moves", type=int, default=300)
    parser.add_argument(
        "--pace",
        type=float,
        default=10,
        help="moves per second of the followed match in (a), as a fast bot match goes; 0: as fast as possible",
    )
    parser.add_argument("--redis", default=os.environ.get("REFEREE_BENCH_REDIS_URL", "redis://127.0.0.1:6379/2"))
    args = parser.parse_args()
    held_by_one_node(args.redis, args.subscribers, args.moves, args.pace)
    across_nodes(args.redis, args.delay_moves)


if __name__ == "__main__":
    main()
