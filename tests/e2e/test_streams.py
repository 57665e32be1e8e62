"""``GET /v1/matches/{id}/stream`` against real servers: a follower on one node sees every
version of a match played on another, resumes after a disconnect without a gap, sees only
what its seat (or a spectator) may see, and hears heartbeats."""

from __future__ import annotations

import http.client
import os
import random
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support.http import MatchClient, auth
from tests.support.killable import Server, start_serve
from tests.support.sse import Comment, Event, EventStream
from tests.support.the_game import agree_over_http

SECRET = "stream-test-secret-0123456789abcdef"
QUIET = {"REFEREE_SECRET": SECRET, "REFEREE_RATE_LIMIT": "", "REFEREE_ACCESS_LOG": "0"}


@contextmanager
def serving(env: dict[str, str], log: Path, workers: int = 0) -> Iterator[Server]:
    server = start_serve(env, log, workers=workers)
    try:
        assert server.proc.poll() is None, server.printed()
        yield server
    finally:
        server.kill()  # open streams would hold a graceful stop for its whole timeout


def play(match: MatchClient, moves: int, rng: random.Random) -> int:
    """Up to ``moves`` random legal moves (fewer if the match ends); its version after."""
    return match.play(rng, moves)["version"]


def versions(events: list[Event]) -> list[int]:
    assert all(e.event == "version" and e.id == str(e.data["version"]) for e in events)
    return [e.data["version"] for e in events]


def stream_of(server: Server, match: MatchClient, **headers: str) -> EventStream:
    stream = EventStream(server.client.base_url, f"{match.url}/stream", headers)
    assert stream.status == 200, stream.body()
    assert stream.headers["Content-Type"].startswith("text/event-stream")
    assert stream.headers["Cache-Control"] == "no-store" and stream.headers["X-Accel-Buffering"] == "no"
    return stream


def test_a_follower_on_another_node_sees_every_version_and_resumes_without_a_gap(redis_url: str, tmp_path) -> None:
    """Node b runs one worker, so a resume there finds what its other stream of the match
    kept: every version it missed comes. With nothing kept, the current version comes alone,
    marked with how many versions it skipped."""
    env = {**QUIET, "REDIS_URL": redis_url, "REFEREE_STREAM_HEARTBEAT": "30"}
    rng = random.Random(3)
    with serving(env, tmp_path / "a.log") as node_a, serving(env, tmp_path / "b.log", workers=1) as node_b:
        match = MatchClient.create(node_a.client, "halunken-und-spelunken", 2, seed=f"{3:064x}")  # ~50 moves
        with stream_of(node_b, match) as keeper:
            with stream_of(node_b, match) as stream:
                first = stream.events(1)[0]
                assert (first.data["version"], first.data["events"], first.data["kind"]) == (0, [], None)
                reached = play(match, 6, rng)
                assert versions(stream.events(reached, timeout=5)) == list(range(1, reached + 1))
            missed_from = reached
            reached = play(match, 5, rng)  # only the keeper follows
            assert versions(keeper.events(reached + 1, timeout=5)) == list(range(reached + 1))
            with stream_of(node_b, match, **{"Last-Event-ID": str(missed_from)}) as stream:
                resumed = stream.events(reached - missed_from)
                assert versions(resumed) == list(range(missed_from + 1, reached + 1))
                assert not any("skipped" in e.data for e in resumed)
        missed_from = reached
        reached = play(match, 5, rng)  # nobody follows: nothing is kept
        with stream_of(node_b, match, **{"Last-Event-ID": str(missed_from)}) as stream:
            (current,) = stream.events(1)
            assert (current.data["version"], current.data["skipped"]) == (reached, reached - missed_from - 1)
            history = match.client.get(f"{match.url}/history?cursor={reached - 1}").get_json()["entries"]
            assert current.data["events"] == history[0]["events"]
            final = play(match, 10_000, rng)
            rest = stream.rest(timeout=10)
        assert final > reached + 10
        assert versions(rest) == list(range(reached + 1, final + 1)), "every version, in order, then the end"
        last = rest[-1].data
        assert last["status"] == "finished" and last["outcome"] == match.get()["outcome"]
        assert last["view"] == match.get()["view"] and last["seed"] == match.get()["seed"]
        with EventStream(node_b.client.base_url, f"{match.url}/stream", {"Last-Event-ID": str(final)}) as ended:
            assert ended.status == 204


@pytest.mark.parametrize("workers", [1, 2])
def test_file_store_followers_hear_every_commit_within_and_across_workers(workers: int, tmp_path) -> None:
    """One worker: the store tells the feed in process. Two workers sharing the SQLite file:
    followers on the other worker hear of commits by the poll. Heartbeats are 60 s apart, so
    only notifications can deliver these events in time."""
    env = {**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"), "REFEREE_STREAM_HEARTBEAT": "60"}
    with serving(env, tmp_path / "serve.log", workers=workers) as server:
        match = MatchClient.create(server.client, "esploratore", 2, seed=f"{5:064x}")
        streams = [stream_of(server, match) for _ in range(2 * workers)]
        try:
            for stream in streams:
                assert versions(stream.events(1)) == [0]
            rng = random.Random(5)
            for _ in range(8):
                reached = play(match, 1, rng)
                for stream in streams:
                    assert versions(stream.events(1, timeout=3)) == [reached]
        finally:
            for stream in streams:
                stream.close()


def test_a_spectator_never_sees_a_hand_and_each_seat_sees_its_own(tmp_path) -> None:
    env = {**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3")}
    with serving(env, tmp_path / "serve.log") as server:
        match = MatchClient.create(server.client, "the-game", 2, seed=f"{9:064x}")
        spectator = stream_of(server, match)
        seat_0 = stream_of(server, match, **auth(match.tokens[0]))
        with spectator, seat_0:
            agree_over_http(match)
            reached = play(match, 6, random.Random(9))
            seen = {None: spectator.events(reached + 1), 0: seat_0.events(reached + 1)}
        assert versions(seen[None]) == versions(seen[0]) == list(range(reached + 1))
        for seat, events in seen.items():
            history = match.client.get(
                f"{match.url}/history", headers=auth(match.tokens[seat]) if seat is not None else {}
            )
            entries = history.get_json()["entries"]
            assert [e.data["events"] for e in events[1:]] == [entry["events"] for entry in entries], seat
            assert all(e.data["seat"] == seat for e in events)
        assert all("hand" not in e.data["view"] for e in seen[None])
        assert all("state_token" not in e.data for e in seen[None])
        assert all("hand" in e.data["view"] for e in seen[0])
        drawn = [ev for e in seen[0] for ev in e.data["events"] if ev["type"] == "drew"]
        assert drawn, "seat 0 saw its own draws"
        assert not [ev for e in seen[None] for ev in e.data["events"] if ev["type"] == "drew"]
        assert seen[0][-1].data["view"] == match.get(0)["view"]
        assert seen[0][-1].data["state_token"] == match.get(0)["state_token"]


def test_heartbeats_keep_an_idle_stream_alive(tmp_path) -> None:
    env = {**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"), "REFEREE_STREAM_HEARTBEAT": "0.2"}
    with serving(env, tmp_path / "serve.log") as server:
        match = MatchClient.create(server.client, "esploratore", 2)
        with stream_of(server, match) as stream:
            assert isinstance(stream.next(), Event)
            beats = [stream.next(timeout=2) for _ in range(3)]
            assert beats == [Comment("keep-alive")] * 3
            reached = play(match, 1, random.Random(1))
            # A beat may come between: the move takes longer than 0.2 s on a busy machine.
            while (item := stream.next(timeout=2)) == Comment("keep-alive"):
                pass
            assert isinstance(item, Event) and item.data["version"] == reached


def test_a_stopping_server_ends_its_streams_long_polls_and_idle_connections_at_once(tmp_path) -> None:
    """``SIGTERM`` (a deploy, a scale-down): the worker ends a match stream, a bot's event
    stream and a bot's long poll cleanly, and closes a kept connection idle between two
    requests, within a second or so; it exits well before its graceful timeout (10 s) would
    have cut them, or the keep-alive wait (5 s) run out. The clients reconnect elsewhere."""
    env = {**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"), "REFEREE_REGISTER_LIMIT": ""}
    server = start_serve(env, tmp_path / "serve.log", workers=1)
    try:
        match = MatchClient.create(server.client, "esploratore", 2)
        key = server.client.post("/v1/bots", json={"name": "stopping"}).get_json()["key"]
        kept = http.client.HTTPConnection("127.0.0.1", urlsplit(server.client.base_url).port, timeout=8)
        kept.request("GET", "/healthz")
        assert kept.getresponse().read() and kept.sock is not None  # answered, and kept open
        with (
            stream_of(server, match) as spectator,
            EventStream(server.client.base_url, "/v1/bots/me/events", auth(key)) as bot_events,
            ThreadPoolExecutor(1) as pool,
        ):
            assert isinstance(spectator.next(), Event) and bot_events.status == 200
            long_poll = pool.submit(server.client.get, "/v1/bots/me/next?wait=60&after=0", headers=auth(key))
            time.sleep(0.5)  # the poll is waiting
            os.kill(server.proc.pid, signal.SIGTERM)
            asked = time.monotonic()
            assert spectator.rest(timeout=8) == [] and bot_events.rest(timeout=8) == []
            assert long_poll.result(timeout=8).status_code == 204
            assert kept.sock.recv(1) == b"", "the idle connection was not closed"
            assert time.monotonic() - asked < 4
        assert server.proc.wait(15) == 0
        assert time.monotonic() - asked < 5, "the worker waited for a connection to end"
    finally:
        server.kill()
