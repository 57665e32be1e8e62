"""Bytes Redis spends on one match, by kind of key, after N moves sent with Idempotency-Key.

Plays solo matches of The Game through the referee (no HTTP) on a Redis database, each move
with its own idempotency key, then sums ``MEMORY USAGE`` of every key of the match grouped by
what it holds: the state record, the action log, the kept idempotent answers. Reports the
median over the matches, per 100 keyed moves.

    python bench/store_memory.py --redis redis://127.0.0.1:6379/6 --matches 5 --moves 100
"""

from __future__ import annotations

import argparse
import random
import statistics
import uuid
from collections import defaultdict

import redis

from service.referee import Referee
from service.store import RedisStore
from service.tokens import SeatTokens, StateTokens


def key_kind(key: str, match_id: str) -> str:
    """``state``, ``log`` or ``idempotency``, from the key's suffix after the match's tag."""
    suffix = key.split(f"{{{match_id}}}", 1)[1]
    if suffix == "":
        return "state"
    if suffix == ":log":
        return "log"
    return "idempotency"


def play_keyed(referee: Referee, moves: int, rng: random.Random) -> str:
    """A solo match of The Game with up to ``moves`` keyed moves; its id."""
    created = referee.create_match("the-game", 1, {}, None)
    match_id, bearer, token = created["match_id"], created["seats"][0]["token"], created["state_token"]
    for _ in range(moves):
        legal = referee.legal_actions(match_id, bearer)
        if not legal["actions"]:
            break
        answer = referee.act(match_id, bearer, token, rng.choice(legal["actions"]), str(uuid.uuid4())).body
        token = answer["state_token"]
        if answer["status"] != "active":
            break
    return match_id


def measure(url: str, matches: int, moves: int) -> dict[str, float]:
    client = redis.Redis.from_url(url)
    referee = Referee(RedisStore.from_url(url), StateTokens(b"bench"), SeatTokens(b"bench"), 3600)
    rng = random.Random(7)
    per_kind: dict[str, list[float]] = defaultdict(list)
    for _ in range(matches):
        match_id = play_keyed(referee, moves, rng)
        played = referee.history(match_id, None, 0, 1)["total"]
        sizes: dict[str, int] = defaultdict(int)
        for key in client.scan_iter(f"m:{{{match_id}}}*"):
            sizes[key_kind(key.decode(), match_id)] += client.memory_usage(key, samples=0) or 0
        for kind in ("state", "log", "idempotency"):
            per_kind[kind].append(sizes[kind] * 100 / played)
    return {kind: statistics.median(values) for kind, values in per_kind.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--matches", type=int, default=5)
    parser.add_argument("--moves", type=int, default=100)
    args = parser.parse_args()
    result = measure(args.redis, args.matches, args.moves)
    for kind, value in result.items():
        print(f"{kind:12} {value / 1024:8.1f} KB per 100 keyed moves")


if __name__ == "__main__":
    main()
