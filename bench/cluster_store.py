"""What a move costs the store on a Redis Cluster, and what waiting for a replica adds.

One thread commits moves (a load, then the compare-and-set, as the referee does) to many
matches in turn, on: one Redis (the baseline), a local three-master cluster, and the same
cluster with ``WAIT 1`` after each commit (``REFEREE_REDIS_WAIT_REPLICAS=1``). It starts
the cluster itself (tests/support/cluster.py, ports 7000-7099) and reports the latency of
load + commit (p50, p99) and the ratio of moves per second to the baseline of the same run.

    python bench/cluster_store.py --redis redis://127.0.0.1:6379/6 --moves 3000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import uuid
from pathlib import Path

# tests/support starts the cluster: a folder of the checkout, not of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.store import RedisStore
from tests.support.cluster import LocalCluster, free_block

RECORD = b"x" * 600
ENTRY = b"y" * 120


def run(store: RedisStore, moves: int, matches: int = 50) -> list[float]:
    """Seconds per move (load + commit) over ``moves`` moves spread on ``matches`` matches."""
    ids = [uuid.uuid4().hex for _ in range(matches)]
    for match_id in ids:
        store.create(match_id, RECORD, 600)
    versions = dict.fromkeys(ids, 0)
    timings = []
    for i in range(moves):
        match_id = ids[i % matches]
        started = time.perf_counter()
        loaded = store.load(match_id)
        result = store.commit(match_id, loaded.version, RECORD, ENTRY, 600)
        timings.append(time.perf_counter() - started)
        assert result.committed and loaded.version == versions[match_id]
        versions[match_id] += 1
    return timings


def row(name: str, timings: list[float], baseline: float) -> str:
    per_second = len(timings) / sum(timings)
    p50 = statistics.median(timings) * 1e6
    p99 = statistics.quantiles(timings, n=100)[98] * 1e6
    return f"| {name} | {per_second:,.0f} | {per_second / baseline:.2f} | {p50:.0f} | {p99:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/6", help="the single Redis (baseline)")
    parser.add_argument("--moves", type=int, default=3000, help="moves per store and round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the stores taking turns (evens out load)")
    args = parser.parse_args()
    cluster = LocalCluster(free_block(6), masters=3, replicas=1).start()
    try:
        stores = {
            "one Redis": RedisStore.from_url(args.redis),
            "cluster (3 masters)": RedisStore.from_url(cluster.url, cluster=True),
            "cluster, WAIT 1 replica": RedisStore.from_url(cluster.url, cluster=True, replica_acks=1),
        }
        runs: dict[str, list[float]] = {name: [] for name in stores}
        for _ in range(args.rounds):
            for name, store in stores.items():
                runs[name] += run(store, args.moves)
    finally:
        cluster.stop()
    baseline = len(runs["one Redis"]) / sum(runs["one Redis"])
    print("| store | moves/s (load + commit) | ratio | p50 µs | p99 µs |")
    print("|---|---:|---:|---:|---:|")
    for name, timings in runs.items():
        print(row(name, timings, baseline))


if __name__ == "__main__":
    main()
