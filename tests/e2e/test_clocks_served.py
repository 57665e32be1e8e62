"""Clocks and house seats on real servers (``referee serve`` subprocesses), over HTTP.

The sweeper's tests create a timed match, then read the store directly, never the match over
HTTP (a request would apply the deadline itself): only the sweeper can have moved it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.match import Match
from service.replay.document import verify
from tests.support import stored
from tests.support.http import MatchClient, WireClient
from tests.support.servers import BIN, Server, clean_env, free_port, running

#: On a quiet machine a deadline is applied within about a quarter of a second at the default
#: sweep interval (0.25 s; bench/clocks.py). The bound leaves room for a CI machine whose two
#: cores run the rest of the suite beside the server (measured there: p99 about 2 s at a load
#: average of 16), while still failing when no sweeper runs or it sweeps only every few seconds.
SWEEP_BOUND_S = 3.0


def serve(env: dict[str, str], workers: int = 1) -> Any:
    port = free_port()
    command = [str(BIN / "referee"), "serve", "--port", str(port), "--workers", str(workers)]
    return running(command, clean_env(REFEREE_SECRET="clocks-e2e", **env), port)


@pytest.fixture(scope="module")
def file_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    db = tmp_path_factory.mktemp("clocks") / "matches.sqlite3"
    with serve({"REFEREE_DB_PATH": str(db)}) as server:
        yield server, db


@pytest.fixture(scope="module")
def redis_nodes(redis_url: str) -> Iterator[tuple[Server, Server]]:
    with serve({"REDIS_URL": redis_url}) as one, serve({"REDIS_URL": redis_url}) as two:
        yield one, two


def wait_for_sweep(read: Any, match_id: str, deadline_ms: int) -> tuple[Match, float]:
    """Poll the store until the match leaves version 0; the match and how late after its
    deadline that was seen (seconds)."""
    while True:
        version, record, base = read(match_id)
        if version > 0:
            return Match.decode(version, record, base), time.time() - deadline_ms / 1000
        assert time.time() < deadline_ms / 1000 + 10, "no sweeper applied the deadline"
        time.sleep(0.02)


def create(client: WireClient, game: str, players: int, **body: Any) -> MatchClient:
    return MatchClient.create(client, game, players, **body)


def test_a_deadline_nobody_asks_about_is_applied_by_the_sweeper_on_the_file_store(file_server) -> None:
    server, db = file_server
    match = create(server.client, "the-game", 2, clock={"per_decision_s": 0.5})
    swept, late = wait_for_sweep(
        lambda m: stored.on_file(db, m), match.created["match_id"], match.created["clock"]["deadline_ms"]
    )
    assert swept.ended == {"reason": "timeout", "seat": 0}
    assert late < SWEEP_BOUND_S, f"applied {late:.2f} s after the deadline"
    assert match.get()["outcome"]["detail"]["end_reason"] == "timeout"


def test_a_deadline_nobody_asks_about_is_applied_by_the_sweeper_on_redis(redis_nodes, redis_url: str) -> None:
    match = create(redis_nodes[0].client, "esploratore", 2, clock={"per_decision_s": 0.5, "on_timeout": "auto"})
    swept, late = wait_for_sweep(
        lambda m: stored.on_redis(redis_url, m), match.created["match_id"], match.created["clock"]["deadline_ms"]
    )
    # esploratore draws its first seat from the seed: whichever it is timed out once.
    assert swept.ended is None and sorted(swept.clock["consecutive_timeouts"]) == [0, 1], "an auto move"
    assert late < SWEEP_BOUND_S, f"applied {late:.2f} s after the deadline"


def test_two_nodes_sweeping_one_redis_apply_each_timeout_once(redis_nodes, redis_url: str) -> None:
    """Many short-clock matches left alone: both nodes' sweepers race on every deadline; each
    entry appears once, versions are contiguous, and every replay verifies."""
    one, two = redis_nodes
    clock = {"per_decision_s": 0.3, "on_timeout": "auto", "max_consecutive_timeouts": 2}
    matches = [create((one, two)[i % 2].client, "the-game", 2, clock=clock) for i in range(24)]
    deadline = time.time() + 60
    for match in matches:
        while Match.decode(*stored.on_redis(redis_url, match.created["match_id"])).ended is None:
            assert time.time() < deadline, "the sweepers did not finish the matches"
            time.sleep(0.05)
    for match in matches:
        log = match.client.get(f"{match.url}/history?limit=200").get_json()["entries"]
        assert [e["version"] for e in log] == list(range(1, len(log) + 1))
        kinds = [e["kind"] for e in log]
        assert kinds.count("timeout") == 1 and kinds[-1] == "timeout" and set(kinds[:-1]) == {"auto"}
        assert len({e["at"] for e in log}) == len(log), "each deadline applied once"
        replay = match.client.get(f"{match.url}/replay").get_json()
        assert verify(replay, None).actions == len(log)


def play_against_the_house(client: WireClient, game: str, players: int, house: list[dict], seed: int) -> dict:
    """A person plays every seat the house does not, with random legal actions, waiting for
    the house's moves as a client would (by reading the match); the final match."""
    match = create(client, game, players, house=house)
    assert sorted(match.by_seat) == sorted(set(range(players)) - {h["seat"] for h in house})
    rng = random.Random(seed)
    deadline = time.time() + 240
    while True:
        body = match.get()
        if body["status"] != "active":
            return body
        assert time.time() < deadline, "the match did not end"
        mine = [s for s in body["to_act"] if s in match.by_seat]
        if not mine:
            time.sleep(0.01)
            continue
        legal = match.legal(mine[0])
        answer = match.act(mine[0], legal["state_token"], rng.choice(legal["actions"]))
        assert answer.status_code in (200, 409), answer.get_json()


@pytest.mark.parametrize(("game", "players"), [("the-game", 2), ("halunken-und-spelunken", 2)])
def test_a_person_plays_a_full_match_against_house_bots(file_server, game: str, players: int) -> None:
    server, _ = file_server
    final = play_against_the_house(server.client, game, players, [{"seat": 1, "bot": "heuristic"}], seed=7)
    assert final["status"] == "finished" and final["house"] == [{"seat": 1, "bot": "heuristic"}]
    log = server.client.get(f"/v1/matches/{final['match_id']}/history?limit=200").get_json()
    house_moves = [e for e in log["entries"] if e["kind"] == "house"]
    assert house_moves and {e["seat"] for e in house_moves} == {1}
    assert {e["seat"] for e in log["entries"] if e["kind"] == "move"} == {0}


def test_an_all_house_match_plays_itself_to_the_end(file_server) -> None:
    server, _ = file_server
    house = [{"seat": 0, "bot": "heuristic"}, {"seat": 1, "bot": "random"}]
    created = server.client.post("/v1/matches", json={"game": "the-game", "players": 2, "house": house}).get_json()
    assert created["seats"] == []
    deadline = time.time() + 120
    while (body := server.client.get(f"/v1/matches/{created['match_id']}").get_json())["status"] == "active":
        assert time.time() < deadline, "the exhibition match did not finish"
        time.sleep(0.1)
    assert body["status"] == "finished" and "seed" in body
    replay = server.client.get(f"/v1/matches/{created['match_id']}/replay").get_json()
    assert {e["kind"] for e in replay["actions"]} == {"house"} and verify(replay, None).actions == body["version"]
