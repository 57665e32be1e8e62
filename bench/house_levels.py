"""Move latency of a match while level-5 house seats think on the same node.

A ``referee serve`` node (one gevent worker; Redis with ``--redis``, else the memory store)
runs ``--seats`` matches of The Game in which the house plays both seats at level 5, so that
many house seats think at every moment; meanwhile a client plays random moves in another
match and times each answer. The same run is made three ways:

- ``idle``: no house seat thinking (the baseline);
- ``pool``: searches in worker processes (``REFEREE_THINKERS``, the default);
- ``in-hub``: ``REFEREE_THINKERS=0``, searches on the worker's own event loop.

Reported: p50, p90 and max latency of the other match's moves, the ratio of each p50 to the
idle one, and how many decisions the house made during the measurement.

    python bench/house_levels.py [--seats 10] [--moves 60] [--thinkers 2] [--redis redis://127.0.0.1:6379/14]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.http import WireClient
from tests.support.thinking import decisions_made, move_latencies, served, thinking_matches


def measure(label: str, thinkers: int, seats: int, moves: int, redis_url: str | None) -> float:
    with served(thinkers, redis_url) as server:
        client = WireClient(server.client.base_url, timeout=600)  # a stalled node answers late
        move_latencies(client, 5)  # warm the worker up
        matches = thinking_matches(client, seats)
        time.sleep(1.0)  # every house seat has started thinking
        before = decisions_made(matches)
        started = time.perf_counter()
        latencies = sorted(move_latencies(client, moves, pause_s=0.1))
        window = time.perf_counter() - started
        made = decisions_made(matches) - before
    p50 = statistics.median(latencies)
    p90 = latencies[int(0.9 * (len(latencies) - 1))]
    print(
        f"{label:8} thinkers={thinkers} seats={seats:2}  p50 {p50 * 1000:7.1f} ms  p90 {p90 * 1000:7.1f} ms  "
        f"max {latencies[-1] * 1000:7.1f} ms  house decisions in those {window:.1f} s: {made}",
        flush=True,
    )
    return p50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seats", type=int, default=10, help="level-5 house seats thinking at once")
    parser.add_argument("--moves", type=int, default=60, help="moves of the other match timed per setting")
    parser.add_argument("--redis", help="the node's store (redis://...); default: the memory store")
    parser.add_argument("--thinkers", type=int, default=2, help="search worker processes of the pool")
    args = parser.parse_args()
    idle = measure("idle", args.thinkers, 0, args.moves, args.redis)
    pool = measure("pool", args.thinkers, args.seats, args.moves, args.redis)
    hub = measure("in-hub", 0, args.seats, args.moves, args.redis)
    print(f"p50 against idle: pool {pool / idle:.1f}x, in-hub {hub / idle:.1f}x")


if __name__ == "__main__":
    main()
