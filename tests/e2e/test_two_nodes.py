"""Two server processes sharing one Redis, each with its own match cache: moves alternate
between them and race on one token, over real sockets. Nothing stale is ever applied: every
version comes from exactly one accepted move, and the caches' refuted hits are re-checked.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import pytest

from tests.support.http import MatchClient, cache_lookups
from tests.support.servers import BIN, Server, clean_env, free_port, running


@pytest.fixture(scope="module")
def two_nodes(redis_url: str) -> Iterator[tuple[Server, Server]]:
    with ExitStack() as stack:
        servers = []
        for _ in range(2):
            port = free_port()
            env = clean_env(REDIS_URL=redis_url, REFEREE_SECRET="two-nodes", REFEREE_ACCESS_LOG="0")
            command = [str(BIN / "referee"), "serve", "--port", str(port), "--workers", "1"]
            servers.append(stack.enter_context(running(command, env, port)))
        yield servers[0], servers[1]


def test_moves_alternating_between_two_servers_finish_the_match(two_nodes: tuple[Server, Server]) -> None:
    clients = [server.client for server in two_nodes]
    match = MatchClient.create(clients[0], "the-game", 2, seed="d1" * 32)
    rng = random.Random(5)
    answer = match.created
    while answer["status"] == "active":
        node = MatchClient(clients[answer["version"] % 2], match.created)
        seat = rng.choice(answer["to_act"])
        legal = node.legal(seat)
        response = node.act(seat, legal["state_token"], rng.choice(legal["actions"]))
        assert response.status_code == 200, response.get_json()
        answer = response.get_json()
    history = match.client.get(f"{match.url}/history?limit=100").get_json()
    assert history["total"] == answer["version"]
    assert [entry["version"] for entry in history["entries"]] == list(range(1, min(answer["version"], 100) + 1))


def test_one_token_sent_to_both_servers_at_once_moves_the_match_once(two_nodes: tuple[Server, Server]) -> None:
    """Both servers cache the match at the token's version; each commits on its cached
    record, the store lets one win and answers the other the current record, on which its
    request is a stale token (409), never a second move."""
    clients = [server.client for server in two_nodes]
    before = [cache_lookups(client) for client in clients]
    match = MatchClient.create(clients[0], "the-game", 1, seed="d2" * 32)
    nodes = [MatchClient(client, match.created) for client in clients]
    races = 0
    while races < 15:
        legal = [node.legal(0) for node in nodes]  # both caches at the current version
        token, actions = legal[0]["state_token"], legal[0]["actions"][:2]
        version = legal[0]["version"]
        if len(actions) < 2:  # only one thing to do: no race to run
            assert nodes[0].act(0, token, actions[0]).status_code == 200
            continue
        with ThreadPoolExecutor(max_workers=2) as pool:  # both moves at once, one per node
            sent = [pool.submit(nodes[i].act, 0, token, actions[i]) for i in range(2)]
        answers = [future.result() for future in sent]
        statuses = sorted(answer.status_code for answer in answers)
        assert statuses == [200, 409], [a.get_json() for a in answers]
        assert nodes[1].get()["version"] == version + 1
        races += 1
    after = [cache_lookups(client) for client in clients]

    def delta(result: str) -> float:
        return sum(a.get(result, 0) - b.get(result, 0) for a, b in zip(after, before, strict=True))

    assert delta("hit") >= 2 * races, "both racing moves were tried on cached records"
    assert delta("stale") == races, "every loser's hit was refuted by the store and checked again"
