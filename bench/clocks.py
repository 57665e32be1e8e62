"""What clocks cost, and how late the sweeper applies a deadline nobody asks about.

1. **Timed moves against untimed ones** (same run, Redis): solo matches of The Game played
   through the referee in process, one with a Fischer clock, one without; a timed move also
   writes the due index (``ZADD LT`` in the commit's pipeline, still one round trip) and does
   the clock arithmetic. Reported: µs per move and the ratio timed / untimed.
2. **Sweep delay** on a real server (``referee serve``, default sweep interval): matches with a
   0.5 s per-decision clock are created and left alone; the store is polled directly (one
   pipelined read of every pending match every 5 ms) until each match moves. Reported: delay
   after the deadline (p50, p99, max), against the sweep interval.

    python bench/clocks.py [--redis redis://127.0.0.1:6379/14] [--moves 2000] [--matches 40]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import orjson
import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service.live.sweeper import DEFAULT_INTERVAL_SECONDS
from service.referee import Referee
from service.store import RedisStore
from service.store.redis_store import _match_key
from service.tokens import SeatTokens, StateTokens
from tests.support.servers import BIN, free_port


def moves_per_match(referee: Referee, clock: dict | None, rng: random.Random) -> tuple[int, float]:
    """One solo match of The Game to its end; (moves, seconds spent in ``act``)."""
    created = referee.create_match("the-game", 1, {}, None, clock)
    match_id, token = created["match_id"], created["seats"][0]["token"]
    legal = referee.legal_actions(match_id, f"{token}")
    state_token, actions = legal["state_token"], legal["actions"]
    moves, spent = 0, 0.0
    while actions:
        started = time.perf_counter()
        answer = referee.act(match_id, token, state_token, rng.choice(actions)).body
        spent += time.perf_counter() - started
        moves += 1
        state_token, actions = answer["state_token"], answer["legal_actions"]
    return moves, spent


def timed_against_untimed(url: str, total_moves: int) -> None:
    referee = Referee(RedisStore.from_url(url), StateTokens(b"bench"), SeatTokens(b"bench"), 3600)
    results: dict[str, list[float]] = {"untimed": [], "timed": []}
    clocks = {"untimed": None, "timed": {"initial_s": 3600, "increment_s": 1}}
    done = {"untimed": 0, "timed": 0}
    rng = random.Random(1)
    while min(done.values()) < total_moves:
        for name, clock in clocks.items():  # interleaved, so load changes hit both alike
            moves, spent = moves_per_match(referee, clock, rng)
            done[name] += moves
            results[name].append(spent / moves * 1e6)
    untimed, timed = statistics.median(results["untimed"]), statistics.median(results["timed"])
    print(
        f"move through the referee on Redis: untimed {untimed:.0f} µs, timed {timed:.0f} µs "
        f"(median of per-match means, {done['timed']} timed moves); ratio timed / untimed {timed / untimed:.2f}"
    )


def sweep_delay(url: str, matches: int) -> None:
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": url,
        "REFEREE_SECRET": "bench",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_RATE_LIMIT": "",
    }
    server = subprocess.Popen(
        [str(BIN / "referee"), "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        pending: dict[str, int] = {}
        body = orjson.dumps({"game": "the-game", "players": 2, "clock": {"per_decision_s": 0.5}})
        for _ in range(matches):
            request = urllib.request.Request(
                f"{base}/v1/matches", data=body, headers={"Content-Type": "application/json"}
            )
            created = orjson.loads(urllib.request.urlopen(request, timeout=10).read())
            pending[created["match_id"]] = created["clock"]["deadline_ms"]
            time.sleep(0.03)
        client = redis.Redis.from_url(url)
        delays = []
        while pending:
            pipe = client.pipeline(transaction=False)
            for match_id in pending:
                pipe.hget(_match_key(match_id), "v")
            seen_at = time.time() * 1000
            for (match_id, deadline), version in zip(list(pending.items()), pipe.execute(), strict=True):
                if int(version) > 0:
                    delays.append(seen_at - deadline)
                    del pending[match_id]
            time.sleep(0.005)
    finally:
        server.terminate()
        server.wait(15)
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
    print(
        f"sweep delay after the deadline over {len(delays)} matches (2 workers, interval "
        f"{DEFAULT_INTERVAL_SECONDS * 1000:.0f} ms): p50 {statistics.median(delays):.0f} ms, p99 {p99:.0f} ms, "
        f"max {delays[-1]:.0f} ms; p99 / interval {p99 / (DEFAULT_INTERVAL_SECONDS * 1000):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--matches", type=int, default=40)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    timed_against_untimed(args.redis, args.moves)
    sweep_delay(args.redis, args.matches)


if __name__ == "__main__":
    main()
