"""A ladder under load: ``--bots`` simulated bots (default 200, random players) in one gevent
process, all joined to one ladder on one node (``referee serve``, 2 gevent workers, the SQLite
file unless ``--redis``), each holding its event stream and playing every match it is given.

Measured over ``--seconds`` after a warm-up (the validation matches against the house):

- **Pairing delay.** For every match a bot gets, the time from the end of its previous match
  (or its stream opening) to the arrival of its ``match_started``: p50, p99 and the largest,
  over the matches where another bot was free when it became free (an opponent to pair with);
  the others (it waited for someone to finish) are counted apart.
- **Matches per hour** the ladder finished.
- **Overhead per match.** Then the same simulated bots play, for as long and as many at once,
  matches the benchmark creates itself (each bot one seat, as a bridge plays it: no ladder,
  no event stream); and ``referee arena``'s runner plays as many matches as the ladder did
  with the same random bot (it plays both seats of a match in one loop, so it never waits on
  the other seat by polling), as many at once. The ladder's matches per hour against each,
  same node, same process, same run: what pairing, rating and the event streams cost.

    python bench/ladder.py [--bots 200] [--seconds 60] [--game halunken-und-spelunken] [--redis URL]

Targets (issue 24): p99 pairing delay under 2 s when an opponent is free, overhead under 10%.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from http_moves import cpu_seconds, server_pids

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "bench-ladder-admin-token-0123456789"
BOTS_PER_CLIENT = 10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def start_node(port: int, bots: int, redis_url: str | None, db: Path, log: Path) -> subprocess.Popen[bytes]:
    import httpx

    env = {
        **os.environ,
        "REFEREE_SECRET": "bench-ladder-secret-0123456789",
        "REFEREE_ADMIN_TOKEN": ADMIN,
        "REFEREE_RATE_LIMIT": "",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_WORKER_CONNECTIONS": str(4 * bots + 500),
        "REFEREE_STREAM_LIMIT": str(2 * bots + 100),
        "PYTHONPATH": str(ROOT),
    }
    env.update({"REDIS_URL": redis_url} if redis_url else {"REFEREE_STORE": "file", "REFEREE_DB_PATH": str(db)})
    command = [sys.executable, "-m", "service.server.cli", "serve", "--port", str(port), "--workers", "2"]
    with log.open("ab") as sink:
        node = subprocess.Popen(command, env=env, cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT)
    for _ in range(400):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                return node
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError("the node did not start")


class Ladder:
    """The simulated bots: one stream greenlet each, one play greenlet per match."""

    def __init__(self, url: str, game: str, keys: dict[str, str]) -> None:
        import httpx

        from service.arena.client import RefereeClient

        self.url, self.game, self.keys = url, game, keys
        self.http = httpx.Client(base_url=url, timeout=None, limits=httpx.Limits(max_connections=4 * len(keys)))
        shared = range(0, len(keys), BOTS_PER_CLIENT)
        self.clients = [RefereeClient(url, connections=4 * BOTS_PER_CLIENT) for _ in shared]
        """A few bots share each client: one pool of hundreds of connections costs its users
        more than the referee costs them (httpcore looks at every connection on each request)."""
        self.free_since: dict[str, float] = {}
        self.company: dict[str, bool] = {}
        """Whether another bot was free when this one became free (an opponent to pair with)."""
        self.playing: dict[str, set[str]] = {name: set() for name in keys}
        """The matches each bot is playing: a bot plays every match it is given, as the bridge
        does, also one that starts before its last play has read the end of the match before."""
        self.seen: set[tuple[str, str]] = set()
        """(bot, match) plays started, so that a stream's replay of a pending match starts no
        second play."""
        self.delays: list[tuple[float, float, bool]] = []  # (when it arrived, delay, an opponent was free)
        self.finished: list[tuple[float, float]] = []  # (when it ended, seconds it took)
        self.drops = 0
        """Streams the node dropped (each reconnected)."""

    def follow(self, name: str) -> None:
        """Hold the bot's event stream (again after a drop, from the last event id, as a
        bridge does) and start a play for each ``match_started``."""
        import gevent
        import httpx
        import orjson

        headers = {"Authorization": f"Bearer {self.keys[name]}", "Accept": "text/event-stream"}
        self._freed(name, time.monotonic())
        while True:
            try:
                with self.http.stream("GET", "/v1/bots/me/events", headers=headers) as stream:
                    for line in stream.iter_lines():
                        if line.startswith("id: "):
                            headers["Last-Event-ID"] = line[4:]
                        if not line.startswith("data: "):
                            continue
                        event = orjson.loads(line[6:])
                        if event["type"] == "match_started" and (name, event["match_id"]) not in self.seen:
                            self.seen.add((name, event["match_id"]))
                            now = time.monotonic()
                            delay = 0.0 if self.playing[name] else now - self.free_since[name]
                            self.delays.append((now, delay, self.company[name]))
                            self.playing[name].add(event["match_id"])
                            gevent.spawn(self.play, name, event)
            except httpx.HTTPError:
                self.drops += 1
                gevent.sleep(1)

    def play(self, name: str, started: dict[str, Any]) -> None:
        import random
        import threading

        from service.arena.players import make_player
        from service.botkit.seat import SeatPlay

        playing = self.playing.setdefault(name, set())  # the direct baseline's bots are new here
        playing.add(started["match_id"])
        began = time.monotonic()
        client = self.clients[hash(name) % len(self.clients)]
        SeatPlay(client, started, name, 30.0, threading.Event()).play(
            make_player("random", None, self.game, random.Random())
        )
        ended = time.monotonic()
        if started["seat"] == 0:
            self.finished.append((ended, ended - began))
        playing.discard(started["match_id"])
        if not playing:
            self._freed(name, ended)

    def _freed(self, name: str, at: float) -> None:
        self.free_since[name] = at
        self.company[name] = sum(1 for matches in self.playing.values() if not matches) > 1


def direct_play(ladder: Ladder, pairs: int, seconds: float, clock: dict[str, Any]) -> tuple[float, int]:
    """Matches per hour of the same simulated bots (one seat each, as a bridge plays it) in
    matches the benchmark creates itself, ``pairs`` at a time, for ``seconds``: no ladder, no
    event stream; and how many were played in all (those under way at the end finish)."""
    import gevent

    finished: list[float] = []
    played = 0
    deadline = time.monotonic() + seconds

    def pair(index: int) -> None:
        nonlocal played
        client = ladder.clients[index % len(ladder.clients)]
        while time.monotonic() < deadline:
            body = {"game": ladder.game, "players": 2, "clock": clock}
            created = client.call("POST", "/v1/matches", json=body)
            tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
            plays = [
                gevent.spawn(
                    ladder.play,
                    f"direct{index}_{seat}",
                    {
                        "match_id": created["match_id"],
                        "game": ladder.game,
                        "players": 2,
                        "seat": seat,
                        "seat_token": tokens[seat],
                        "watch_url": "",
                    },
                )
                for seat in (0, 1)
            ]
            gevent.joinall(plays)
            played += 1
            if time.monotonic() < deadline:
                finished.append(time.monotonic())

    started = time.monotonic()
    gevent.joinall([gevent.spawn(pair, i) for i in range(pairs)])
    return len(finished) / (time.monotonic() - started) * 3600, played


def arena_play(url: str, game: str, matches: int, concurrency: int, clock: dict[str, Any]) -> tuple[float, int]:
    """Matches per hour of ``referee arena``'s runner, random against random, on ``url``, and
    how many it played."""
    from service.arena.client import RefereeClient
    from service.arena.runner import Plan, parse_bots, run_tournament

    client = RefereeClient(url, connections=2 * concurrency)
    plan = Plan(game, 2, parse_bots("random"), matches, clock=clock, concurrency=concurrency)
    started = time.monotonic()
    records = run_tournament(client, plan)
    seconds = time.monotonic() - started
    client.close()
    played = sum(1 for r in records if r.status == "finished")
    return played / seconds * 3600, played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured time, after the warm-up")
    parser.add_argument("--warm-up", type=float, default=15.0, help="seconds of validation matches first")
    parser.add_argument("--game", default="halunken-und-spelunken")
    parser.add_argument("--redis", help="serve on this Redis (default: the SQLite file)")
    parser.add_argument("--server-log", type=Path, default=Path(os.devnull), help="where the node's output goes")
    args = parser.parse_args()

    from gevent import monkey

    monkey.patch_all()
    import gevent
    import httpx

    port = free_port()
    url = f"http://127.0.0.1:{port}"
    db = Path(f"/tmp/bench-ladder-{secrets.token_hex(4)}.sqlite3")
    node = start_node(port, args.bots, args.redis, db, args.server_log)
    clock = {"per_decision_s": 10}
    try:
        admin = {"Authorization": f"Bearer {ADMIN}"}
        ladder_id = "bench-" + secrets.token_hex(3)
        body = {"id": ladder_id, "game": args.game, "players": 2, "time_control": clock, "provisional_games": 5}
        assert httpx.post(f"{url}/v1/ladders", json=body, headers=admin).status_code == 201
        keys = {}
        for i in range(args.bots):
            name = f"l{ladder_id[-6:]}_{i}"
            answer = httpx.post(f"{url}/v1/bots", json={"name": name, "owner": name}, headers=admin).json()
            keys[name] = answer["key"]
            joined = httpx.post(
                f"{url}/v1/ladders/{ladder_id}/join", headers={"Authorization": f"Bearer {answer['key']}"}
            )
            assert joined.status_code == 200, joined.text
        ladder = Ladder(url, args.game, keys)
        streams = [gevent.spawn(ladder.follow, name) for name in keys]
        gevent.sleep(args.warm_up)
        pids = server_pids([node])
        start, cpu_start = time.monotonic(), cpu_seconds(pids)
        gevent.sleep(args.seconds)
        end, ladder_cpu = time.monotonic(), cpu_seconds(pids) - cpu_start
        assert httpx.post(f"{url}/v1/ladders/{ladder_id}/close", headers=admin, timeout=120).status_code == 200
        gevent.killall(streams)
        quiet_by = time.monotonic() + 60
        while any(ladder.playing.values()) and time.monotonic() < quiet_by:  # the ladder's last matches play out
            gevent.sleep(0.5)
        delays = [d for at, d, company in ladder.delays if start <= at <= end and company]
        alone = [d for at, d, company in ladder.delays if start <= at <= end and not company]
        done = [s for at, s in ladder.finished if start <= at <= end]
        ladder_rate = len(done) / (end - start) * 3600
        cpu_start = cpu_seconds(pids)
        direct, direct_played = direct_play(ladder, max(1, args.bots // 2), args.seconds, clock)
        direct_cpu, cpu_start = cpu_seconds(pids) - cpu_start, cpu_seconds(pids)
        arena, arena_played = arena_play(url, args.game, max(20, len(done)), max(1, args.bots // 2), clock)
        arena_cpu = cpu_seconds(pids) - cpu_start
        per_match = {
            "ladder": ladder_cpu / max(1, len(done)) * 1000,
            "direct": direct_cpu / max(1, direct_played) * 1000,
            "arena": arena_cpu / max(1, arena_played) * 1000,
        }
        load = os.getloadavg()[0]
        print(
            f"{args.bots} bots, {args.game}, {args.seconds:.0f} s measured, load average {load:.1f}, "
            f"{ladder.drops} streams dropped and resumed\n"
        )
        print(
            "| matches | matches/hour | delay p50 s | delay p99 s | delay max s | no opponent free: count, p50 s "
            "| made directly: matches/hour | arena: matches/hour "
            "| server CPU per match, ms: ladder / direct / arena | ladder's overhead vs direct / vs arena |"
        )
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        print(
            f"| {len(done)} | {ladder_rate:.0f} | {percentile(delays, 0.5):.3f} | {percentile(delays, 0.99):.3f} "
            f"| {max(delays, default=float('nan')):.3f} | {len(alone)}, {percentile(alone, 0.5):.3f} "
            f"| {direct:.0f} | {arena:.0f} "
            f"| {per_match['ladder']:.1f} / {per_match['direct']:.1f} / {per_match['arena']:.1f} "
            f"| {per_match['ladder'] / per_match['direct'] - 1:+.1%} "
            f"/ {per_match['ladder'] / per_match['arena'] - 1:+.1%} |"
        )
    finally:
        node.terminate()
        node.wait(20)
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
