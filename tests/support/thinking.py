"""House seats thinking on a served node, and the latency of another match's moves meanwhile.

Shared by ``tests/e2e/test_house_levels_served.py`` and ``bench/house_levels.py``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager

from tests.support.http import MatchClient, WireClient
from tests.support.servers import BIN, Server, clean_env, free_port, running


@contextmanager
def served(thinkers: int, redis_url: str | None = None) -> Iterator[Server]:
    """``referee serve`` (one gevent worker; on Redis when given, else the memory store) with
    ``thinkers`` search workers."""
    port = free_port()
    command = [str(BIN / "referee"), "serve", "--port", str(port), "--workers", "1"]
    store = {"REDIS_URL": redis_url, "REFEREE_SECRET": "thinking"} if redis_url else {"REFEREE_STORE": "memory"}
    env = clean_env(REFEREE_THINKERS=str(thinkers), REFEREE_ACCESS_LOG="0", **store)
    with running(command, env, port) as server:
        yield server


def thinking_matches(client: WireClient, seats: int, bot: str = "level5") -> list[MatchClient]:
    """``seats`` matches of The Game in which the house plays both seats with ``bot``: each
    match has one house seat thinking at any moment, until it ends."""
    house = [{"seat": 0, "bot": bot}, {"seat": 1, "bot": bot}]
    return [MatchClient.create(client, "the-game", 2, house=house) for _ in range(seats)]


def move_latencies(client: WireClient, moves: int, pause_s: float = 0.0, seed: int = 0) -> list[float]:
    """Seconds each of ``moves`` random moves of a fresh two-seat match took to be answered,
    ``pause_s`` apart (matches follow one another when one ends first)."""
    rng = random.Random(seed)
    latencies: list[float] = []
    while len(latencies) < moves:
        match = MatchClient.create(client, "the-game", 2)
        status, to_act = "active", [0]
        while status == "active" and len(latencies) < moves:
            seat = rng.choice(to_act)
            legal = match.legal(seat)
            started = time.perf_counter()
            response = match.act(seat, legal["state_token"], rng.choice(legal["actions"]))
            latencies.append(time.perf_counter() - started)
            assert response.status_code == 200, response.get_json()
            body = response.get_json()
            status, to_act = body["status"], body["to_act"]
            time.sleep(pause_s)
    return latencies


def decisions_made(matches: list[MatchClient]) -> int:
    """How many moves the house has made in ``matches`` so far."""
    return sum(match.get()["version"] for match in matches)
