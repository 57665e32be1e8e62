"""Bot accounts against real servers: two ``referee serve`` nodes (gunicorn, gevent) on one
Redis and on a Redis Cluster, a challenge made on one node and the events read on the other;
a restart of ``referee serve`` on the file store, after which accounts, keys and the event log
are all still there and a stream resumes with ``Last-Event-ID``."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.http import WireClient, auth
from tests.support.killable import Server, start_serve
from tests.support.sse import Event, EventStream

SECRET = "bot-accounts-secret-0123456789abcdef"
QUIET = {
    "REFEREE_SECRET": SECRET,
    "REFEREE_RATE_LIMIT": "",
    "REFEREE_REGISTER_LIMIT": "",
    "REFEREE_ACCESS_LOG": "0",
    "REFEREE_STREAM_HEARTBEAT": "1",
}


@contextmanager
def serving(env: dict[str, str], log: Path, workers: int = 0) -> Iterator[Server]:
    server = start_serve(env, log, workers=workers)
    try:
        assert server.proc.poll() is None, server.printed()
        yield server
    finally:
        server.kill()  # open streams would hold a graceful stop for its whole timeout


def register(client: WireClient) -> tuple[str, str]:
    name = "bot_" + secrets.token_hex(4)
    answer = client.post("/v1/bots", json={"name": name})
    assert answer.status_code == 201, answer.data
    return name, answer.get_json()["key"]


def stream(server: Server, key: str, **headers: str) -> EventStream:
    opened = EventStream(server.client.base_url, "/v1/bots/me/events", {**auth(key), **headers})
    assert opened.status == 200, opened.body()
    return opened


def kinds(events: list[Event]) -> list[str | None]:
    assert all(e.id == e.data["id"] and e.event == e.data["type"] for e in events)
    return [e.event for e in events]


def challenge(server: Server, key: str, opponent: str) -> dict[str, Any]:
    body = {"game": "the-game", "players": 2, "opponents": [opponent], "seats": "in_order"}
    answer = server.client.post("/v1/challenges", json=body, headers=auth(key))
    assert answer.status_code == 201, answer.data
    return answer.get_json()


@pytest.mark.parametrize("backend", ["redis", "cluster"])
def test_a_challenge_on_one_node_reaches_streams_on_the_other(backend: str, request, tmp_path) -> None:
    url = request.getfixturevalue("redis_url" if backend == "redis" else "redis_cluster_url")
    env = {**QUIET, ("REDIS_URL" if backend == "redis" else "REDIS_CLUSTER_URL"): url}
    with serving(env, tmp_path / "a.log") as node_a, serving(env, tmp_path / "b.log") as node_b:
        (alice, a), (bob, b) = register(node_a.client), register(node_b.client)
        with stream(node_b, b) as bob_events, stream(node_a, a) as alice_events:
            assert node_a.client.get(f"/v1/bots/{bob}").get_json()["online"] is True, "presence is shared"
            created = challenge(node_a, a, bob)
            (invited,) = bob_events.events(1, timeout=5)
            assert invited.event == "challenge" and invited.data["challenge"]["id"] == created["id"]
            accepted = node_b.client.post(f"/v1/challenges/{created['id']}/accept", headers=auth(b)).get_json()
            assert accepted["status"] == "accepted"
            assert kinds(bob_events.events(2, timeout=5)) == ["challenge_accepted", "match_started"]
            seen_by_alice = alice_events.events(3, timeout=5)
            assert kinds(seen_by_alice) == ["challenge", "challenge_accepted", "match_started"]
            started = seen_by_alice[-1].data
            assert started["seat"] == 0 and started["match_id"] == accepted["match_id"]
            resigned = node_b.client.post(
                f"/v1/matches/{started['match_id']}/resign", headers=auth(started["seat_token"])
            )
            assert resigned.status_code == 200
            (finished,) = alice_events.events(1, timeout=5)
            assert finished.event == "match_finished" and finished.data["seat"] == 0
            last_seen = int(invited.id or 0) + 2
        # Bob left after match_started; he resumes on the other node with what came after.
        with stream(node_a, b, **{"Last-Event-ID": str(last_seen)}) as resumed:
            (after,) = resumed.events(1, timeout=5)
            assert after.event == "match_finished" and int(after.id or 0) == last_seen + 1
        ids = [int(e.id or 0) for e in seen_by_alice + [finished]]
        assert ids == sorted(set(ids)), "in order, once"
        assert node_b.client.get(f"/v1/bots/{alice}").get_json()["matches_played"] == 1


def test_accounts_and_events_survive_a_restart_of_the_file_store(tmp_path) -> None:
    env = {**QUIET, "REFEREE_STORE": "file", "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3")}
    with serving(env, tmp_path / "first.log") as server:
        (_, a), (bob, b) = register(server.client), register(server.client)
        created = challenge(server, a, bob)
        server.client.post(f"/v1/challenges/{created['id']}/accept", headers=auth(b))
        with stream(server, b) as before:
            (started,) = before.events(1, timeout=5)  # the pending state: the match in progress
            assert started.event == "match_started"
    with serving(env, tmp_path / "second.log") as server:
        assert server.client.get("/v1/bots/me", headers=auth(b)).status_code == 200, "the key still works"
        with stream(server, b) as fresh:
            (again,) = fresh.events(1, timeout=5)
            assert again.id == started.id and again.data["seat_token"] == started.data["seat_token"]
        with stream(server, b, **{"Last-Event-ID": str(started.id)}) as resumed:
            token = started.data["seat_token"]
            assert (
                server.client.post(f"/v1/matches/{started.data['match_id']}/resign", headers=auth(token)).status_code
                == 200
            )
            (finished,) = resumed.events(1, timeout=5)
            assert finished.event == "match_finished" and int(finished.id or 0) == int(started.id or 0) + 1
