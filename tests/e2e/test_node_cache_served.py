"""One server, two worker processes, a new connection for every move: whichever worker takes a
move finds the match's last record in the node's shared cache, so moves commit without reading
the match first (with a cache per worker, a third of them or more read first)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.support.http import MatchClient, WireClient, cache_lookups
from tests.support.servers import BIN, Server, clean_env, free_port, running


@pytest.fixture(scope="module")
def server(redis_url: str) -> Iterator[Server]:
    port = free_port()
    env = clean_env(REDIS_URL=redis_url, REFEREE_SECRET="node-cache", REFEREE_ACCESS_LOG="0")
    with running([str(BIN / "referee"), "serve", "--port", str(port), "--workers", "2"], env, port) as running_server:
        yield running_server


def play(client: WireClient, seed: int, moves: int) -> int:
    """Random solo matches of The Game until ``moves`` moves were made; the moves made.
    Each move is chosen from the previous answer, not from a read in between (unlike
    ``MatchClient.play``): a read would refresh the reading worker's cache on its own."""
    rng = random.Random(seed)
    made = 0
    while made < moves:  # random play ends a match within a few dozen moves
        match = MatchClient.create(client, "the-game", 1, seed=f"{seed:032x}{made:032x}")
        answer = match.legal(0)
        token, legal = answer["state_token"], answer["actions"]
        while legal:
            response = match.act(0, token, rng.choice(legal))  # urllib: a new connection each time
            assert response.status_code == 200, response.get_json()
            token, legal = response.get_json()["state_token"], response.get_json()["legal_actions"]
            made += 1
    return made


def test_every_move_finds_the_record_whichever_worker_takes_it(server: Server) -> None:
    """Eight clients at once keep both workers busy, so each takes moves of every match."""
    client = server.client
    before = cache_lookups(client)
    with ThreadPoolExecutor(8) as pool:
        moves = sum(pool.map(lambda seed: play(client, seed, 30), range(8)))
    after = cache_lookups(client)
    hits = after.get("hit", 0) - before.get("hit", 0)
    misses = after.get("miss", 0) - before.get("miss", 0)
    assert hits + misses == moves
    # Three active matches whose ids share both their slots would push one out; with a cache
    # per worker about a third of these moves read first.
    assert misses <= moves * 0.05, f"{misses} of {moves} moves read the match first"
