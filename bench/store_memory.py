"""Bytes Redis spends on a match of every game after 100 keyed moves, and what a move writes.

Plays matches of each game through the referee (no HTTP), heuristic bots on every seat, each
move sent with its own Idempotency-Key, on a private ``redis-server`` started for the run
(or ``--redis URL``), once with the compact encoding (:mod:`service.codec`) and once with
the plain JSON written before it, as the baseline of the same run. Per match it reports:

- ``MEMORY USAGE`` of each key of the match, grouped by what it holds (record, log,
  idempotency keys), and their total;
- the growth of ``used_memory`` (``INFO memory``) over all the matches of a row, per match:
  everything Redis spends, its per-key overhead and expiry entries included;
- the bytes a move hands Redis (the record or its delta, the base record when it is
  rewritten, the log entry and the idempotency key, as the commit sends them), on average;
- the CPU microseconds per move to decode the record and encode the new record and log
  entry (the codec's share of a move), and of a whole ``Referee.act`` (load, rules, commit;
  CPU time, so the other processes of a shared machine and the wait for Redis do not count);
- how many such matches fit in 1 GiB.

    python bench/store_memory.py --matches 3 --moves 100 --players 2,4
"""

from __future__ import annotations

import argparse
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import orjson
import redis

# tools/ is a folder of the checkout, not of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from service import codec
from service.games import games
from service.match import Match, Move
from service.referee import Referee
from service.store import RedisStore
from service.tokens import SeatTokens, StateTokens
from tools.build_dictionaries import play

GIB = 1024**3


def key_kind(key: str, match_id: str) -> str:
    """``record``, ``log`` or ``idempotency``, from the key's suffix after the match's tag."""
    suffix = key.split(f"{{{match_id}}}", 1)[1]
    return {"": "record", ":log": "log"}.get(suffix, "idempotency")


@dataclass(frozen=True)
class Commit:
    """What one commit handed the store."""

    record: bytes
    entry: bytes
    key: str
    base: bytes | None

    @property
    def written(self) -> int:
        return len(self.record) + len(self.entry) + len(self.key) + len(self.base or b"")


class RecordingStore(RedisStore):
    """A Redis store that notes what each commit hands Redis."""

    def __init__(self, client: redis.Redis) -> None:
        super().__init__(client)
        self.commits: list[Commit] = []

    def commit(
        self,
        match_id: str,
        expected_version: int,
        record: bytes,
        log_entry: bytes,
        ttl: int,
        idempotency_key: str | None = None,
        base: bytes | None = None,
        **extra: Any,
    ) -> Any:
        self.commits.append(Commit(record, log_entry, idempotency_key or "", base))
        return super().commit(match_id, expected_version, record, log_entry, ttl, idempotency_key, base, **extra)


@dataclass
class Row:
    """One game, player count and encoding: medians over its matches."""

    bytes_by_kind: dict[str, float]
    used_memory: float
    written_per_move: float
    codec_us: float
    act_us: float
    moves: float
    finished: int
    matches: int

    @property
    def total(self) -> float:
        return sum(self.bytes_by_kind.values())

    @property
    def per_gib(self) -> float:
        return GIB / max(self.used_memory, self.total)


@dataclass
class Timer:
    """CPU time of this process in the calls it wraps (not wall time: on a shared machine
    that measures the other processes; waiting for Redis is not counted either)."""

    seconds: list[float] = field(default_factory=list)

    def wrap(self, call: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds.append(time.process_time() - start)

        return timed


def codec_us(commits: list[Commit], rounds: int = 3) -> float:
    """CPU microseconds per move to decode the record a move starts from and to encode the
    new record and log entry: best of ``rounds`` passes over the match's commits."""
    bases, base = [], None
    for commit in commits:
        base = commit.base or base
        bases.append(base)
    moves = [Move.decode(commit.entry) for commit in commits]
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for commit, base, move in zip(commits, bases, moves, strict=True):
            Match.decode(1, commit.record, base).encode_delta()
            move.encode()
        best = min(best, time.process_time() - start)
    return best / len(commits) * 1e6


def measure(client: redis.Redis, game_id: str, players: int, matches: int, moves: int, seed: int) -> Row:
    store = RecordingStore(client)
    referee = Referee(store, StateTokens(b"bench"), SeatTokens(b"bench"), 3600)
    timer = Timer()
    referee.act = timer.wrap(referee.act)  # type: ignore[method-assign]  # timed in place
    chooser = random.Random(f"{seed}:{game_id}:{players}")
    per_kind: dict[str, list[float]] = defaultdict(list)
    written, us, played, finished = [], [], [], 0
    before = client.info("memory")["used_memory"]
    for _ in range(matches):
        store.commits.clear()
        *_, match_id = play(referee, game_id, players, moves, chooser, keyed=True)  # the whole match
        sizes: dict[str, int] = defaultdict(int)
        for key in client.scan_iter(f"m:{{{match_id}}}*"):
            sizes[key_kind(key.decode(), match_id)] += client.memory_usage(key, samples=0) or 0
        for kind in ("record", "log", "idempotency"):
            per_kind[kind].append(sizes[kind])
        written.append(statistics.mean(commit.written for commit in store.commits))
        us.append(codec_us(store.commits))
        played.append(len(store.commits))
        finished += referee.get_match(match_id, None)["status"] != "active"
    grown = (client.info("memory")["used_memory"] - before) / matches
    return Row(
        {kind: statistics.median(values) for kind, values in per_kind.items()},
        grown,
        statistics.median(written),
        statistics.median(us),
        statistics.median(timer.seconds) * 1e6,
        statistics.median(played),
        finished,
        matches,
    )


@contextmanager
def plain_json() -> Iterator[None]:
    """The encoding before :mod:`service.codec`: the whole record and each entry as plain
    JSON."""
    with (
        mock.patch.object(codec, "encode", lambda _kind, value: orjson.dumps(value)),
        mock.patch.object(Match, "encode_delta", lambda match: (match._json(), None)),
    ):
        yield


@contextmanager
def private_redis() -> Iterator[str]:
    """A throwaway ``redis-server`` on a free port, so ``used_memory`` grows only with the
    matches of this run."""
    if shutil.which("redis-server") is None:
        raise SystemExit("redis-server is not installed; pass --redis URL")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                folder,
            ],
            stdout=subprocess.DEVNULL,
        )
        try:
            client = redis.Redis(port=port)
            for _ in range(100):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(10)


def report(game_id: str, players: int, name: str, row: Row) -> str:
    kinds = row.bytes_by_kind
    return (
        f"| {game_id} | {players} | {name} | {row.moves:.0f} ({row.finished}/{row.matches} ended) "
        f"| {kinds['record'] / 1024:.1f} | {kinds['log'] / 1024:.1f} | {kinds['idempotency'] / 1024:.1f} "
        f"| {row.total / 1024:.1f} | {row.used_memory / 1024:.1f} | {row.written_per_move:.0f} "
        f"| {row.codec_us:.0f} | {row.act_us:.0f} | {row.per_gib:,.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", help="an empty Redis database to use instead of a private redis-server")
    parser.add_argument("--matches", type=int, default=3, help="matches per game, player count and encoding")
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--players", default="2,4", help="player counts, comma-separated")
    parser.add_argument("--games", default=",".join(sorted(games())))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    print(
        "| game | players | encoding | moves | record KB | log KB | idempotency KB | MEMORY USAGE KB "
        "| used_memory KB | written B/move | codec CPU µs/move | act CPU µs | matches per GiB |"
    )
    print("| --- " * 13 + "|")
    with nullcontext(args.redis) if args.redis else private_redis() as url:
        client = redis.Redis.from_url(url)
        measure(client, "the-game", 2, 2, 20, args.seed)  # warm up: scripts, buffers, dict tables
        for game_id in args.games.split(","):
            for players in (int(p) for p in args.players.split(",")):
                game = games()[game_id]
                if not game.min_players <= players <= game.max_players:
                    continue
                with plain_json():
                    before = measure(client, game_id, players, args.matches, args.moves, args.seed)
                after = measure(client, game_id, players, args.matches, args.moves, args.seed)
                print(report(game_id, players, "plain JSON", before), flush=True)
                print(report(game_id, players, "compact", after), flush=True)


if __name__ == "__main__":
    main()
