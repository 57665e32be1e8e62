"""Where a move's CPU time goes: cProfile (CPU-time clock) over moves played in process through
the whole app in its production settings (access log, metrics, rate limiter, match cache) on
Redis, summed by what the code is.

The same solo matches of The Game as ``http_moves.py``, played through the WSGI app without
gunicorn or sockets in front, so the profile holds the app's own work: routing, the body's
schema check, the referee, the rules, JSON, logging, metrics and the Redis client. Each
function's own time goes to the part its module belongs to; the table gives each part's
share and its µs per move (cProfile's overhead inflates calls of small functions, so read the
shares, not the absolute figures). A run without the profiler gives the CPU µs per move, and
the bare endpoint of ``http_moves.py`` driven the same way gives the in-process baseline.

    python bench/profile_moves.py [--moves 3000] [--redis redis://127.0.0.1:6379/14] [--top 25]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from werkzeug.test import EnvironBuilder

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_moves import BARE_BODY, simple_choice  # noqa: E402

#: What a function's module belongs to, first match wins (by path fragment).
PARTS = [
    ("the benchmark's own requests (werkzeug.test)", ("werkzeug/test.py", "bench/profile_moves.py")),
    ("rules (service/games, service/engine)", ("service/games/", "service/engine/")),
    ("referee, match record, cache, tokens", ("service/referee.py", "service/match", "service/tokens.py")),
    ("store and Redis client", ("service/store/", "/redis/")),
    (
        "API layer (flask-smorest, webargs, marshmallow, service/api)",
        ("flask_smorest", "webargs", "marshmallow", "service/api/"),
    ),
    (
        "rate limits, access log, metrics",
        ("service/api/limits.py", "service/api/observability.py", "prometheus_client", "/limits/"),
    ),
    ("Flask and werkzeug", ("/flask/", "/werkzeug/")),
    ("JSON (orjson) and hashing", ("orjson", "hmac", "_hashlib", "base64", "hashlib")),
    ("jsonschema", ("jsonschema",)),
]


OTHER = "other (the standard library, called from nothing above)"


def part_of(filename: str, function: str) -> str | None:
    where = f"{filename}:{function}"
    for name, fragments in PARTS:
        if any(fragment in where for fragment in fragments):
            return name
    return None


def parts(stats: dict[Any, Any]) -> dict[str, float]:
    """Each function's own time summed by part. Built-ins and the standard library belong to
    no part of their own: their time goes to their callers' parts, in proportion to the
    time spent for each caller (``isinstance`` called by werkzeug is werkzeug's cost)."""
    memo: dict[Any, dict[str, float]] = {}

    def split(key: Any, depth: int = 0) -> dict[str, float]:
        """How ``key``'s time divides between parts, as fractions."""
        if key in memo:
            return memo[key]
        own = part_of(key[0], key[2])
        if own is not None or depth > 6:
            memo[key] = {own or OTHER: 1.0}
            return memo[key]
        callers = stats[key][4]
        weights = {caller: timing[2] for caller, timing in callers.items()}
        total = sum(weights.values())
        result: dict[str, float] = {}
        for caller, weight in weights.items():
            for name, fraction in split(caller, depth + 1).items():
                result[name] = result.get(name, 0.0) + fraction * weight / total
        memo[key] = result or {OTHER: 1.0}
        return memo[key]

    sums: dict[str, float] = {}
    for key, (_cc, _nc, own, _cum, _callers) in stats.items():
        for name, fraction in split(key).items():
            sums[name] = sums.get(name, 0.0) + own * fraction
    return sums


def production_app(redis_url: str) -> Any:
    """The app as ``create_app`` builds it to serve (access log, metrics, rate limiter, match
    cache) on ``redis_url``, with a rate limit no benchmark reaches; metrics in the process
    (an in-process benchmark has no workers' folder to share)."""
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from service import create_app

    return create_app({"REDIS_URL": redis_url, "REFEREE_SECRET": "bench", "REFEREE_RATE_LIMIT": "100000000 per minute"})


def make_player(app: Any, rng: random.Random) -> Callable[[int], None]:
    """A function playing ``n`` moves through ``app``'s WSGI interface, as http_moves.py's clients do."""

    def call(method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
        environ = EnvironBuilder(
            method=method,
            path=path,
            data=body,
            headers=headers or {},
            content_type="application/json" if body is not None else None,
        ).get_environ()
        return orjson.loads(b"".join(app(environ, lambda *_: None)))

    def play(moves: int) -> None:
        done = 0
        while done < moves:
            created = call("POST", "/v1/matches", b'{"game": "the-game", "players": 1}')
            headers = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
            url = f"/v1/matches/{created['match_id']}"
            answer = call("GET", f"{url}/legal-actions", headers=headers)
            token, legal, view = answer["state_token"], answer["actions"], None
            while legal and done < moves:
                body = orjson.dumps({"state_token": token, "action": simple_choice(legal, view, rng)})
                answer = call("POST", f"{url}/actions", body, headers)
                token, legal, view = answer["state_token"], answer["legal_actions"], answer["view"]
                done += 1

    return play


def bare_cost(redis_url: str, requests: int) -> float:
    """CPU seconds per request of the bare endpoint (``bench/bare_app.py``: one GET and one
    SET) driven the same way in this process: the in-process baseline a move compares with."""
    os.environ["REDIS_URL"] = redis_url
    from bench.bare_app import app as bare

    def call() -> None:
        environ = EnvironBuilder(
            method="POST", path="/bare", data=BARE_BODY, headers={"X-Key": "1"}, content_type="application/json"
        ).get_environ()
        b"".join(bare(environ, lambda *_: None))

    for _ in range(300):
        call()
    started = time.process_time()
    for _ in range(requests):
        call()
    return (time.process_time() - started) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--top", type=int, default=0, help="also print the top N functions by own time")
    args = parser.parse_args()

    with contextlib.redirect_stderr(io.StringIO()):  # the access log: written, not shown
        app = production_app(args.redis)
        play = make_player(app, random.Random(1))
        play(300)  # warm up: imports, connections, caches
        started = time.process_time()
        play(args.moves)
        plain = (time.process_time() - started) / args.moves
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        play(args.moves)
        profiler.disable()

    bare = bare_cost(args.redis, args.moves)
    stats = pstats.Stats(profiler)
    shares = parts(stats.stats)  # type: ignore[attr-defined]  # pstats keeps its table undeclared
    total = sum(shares.values())
    print(
        f"{args.moves} moves of solo The Game in process on {args.redis}: {plain * 1e6:.0f} µs CPU per move "
        "(request building and answer parsing included), unprofiled"
    )
    print(f"The bare endpoint (one GET and one SET) driven the same way: {bare * 1e6:.0f} µs CPU per request")
    print("| part | share of CPU time | µs per move (profiled) |")
    print("| --- | --- | --- |")
    for name, seconds in sorted(shares.items(), key=lambda item: -item[1]):
        print(f"| {name} | {seconds / total:.0%} | {seconds / args.moves * 1e6:.0f} |")
    if args.top:
        stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
