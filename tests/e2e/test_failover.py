"""A master of the Redis Cluster dies (``kill -9``) while matches are played through two
referee nodes; its replica is promoted. Moves meanwhile get 503 (problem+json with
Retry-After), then succeed when retried; every acknowledged move is still in the log after
the failover, since the referee acknowledges a move only once a replica holds it
(``REFEREE_REDIS_WAIT_REPLICAS=1``). The killed node is restarted at once and comes back as
the new master's replica; a master without a replica cannot confirm any write, so its matches
would answer 503 until then (tests/test_store.py shows that refusal).
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support import cluster
from tests.support.http import PROBLEM_JSON, WireClient, auth
from tests.support.servers import (
    Server,
    clean_env,
    free_port,
    readme_gunicorn_command,
    running,
)

MATCHES = 6
MOVES_AFTER_FAILOVER = 10


@pytest.fixture(scope="module")
def replicated() -> Iterator[cluster.LocalCluster]:
    """Three masters with one replica each, for this module only (it gets broken)."""
    if not cluster.tools_available():
        from tests.conftest import missing_redis

        missing_redis("redis-server or redis-cli is not installed (needed for the failover test)")
    local = cluster.LocalCluster(cluster.free_block(6), masters=3, replicas=1, node_timeout_ms=1000).start()
    yield local
    local.stop()


@pytest.fixture(scope="module")
def nodes(replicated: cluster.LocalCluster) -> Iterator[list[Server]]:
    ports = [free_port(), free_port()]
    env = [
        clean_env(
            REDIS_CLUSTER_URL=replicated.url,
            REFEREE_BIND=f"127.0.0.1:{port}",
            REFEREE_SECRET="failover",
            REFEREE_RATE_LIMIT="",
            WEB_CONCURRENCY="1",
            REFEREE_REDIS_WAIT_REPLICAS="1",
            REFEREE_STORE_TIMEOUT="1",
        )
        for port in ports
    ]
    with (
        running(readme_gunicorn_command(), env[0], ports[0]) as a,
        running(readme_gunicorn_command(), env[1], ports[1]) as b,
    ):
        yield [a, b]


@dataclass
class Player:
    """Plays one match of The Game with random legal moves on alternating nodes, retrying
    every 503 as a client should (after Retry-After), and remembers each acknowledged move."""

    clients: list[WireClient]
    match_id: str
    tokens: list[str]
    acknowledged: dict[int, dict[str, Any]] = field(default_factory=dict)
    unavailable: int = 0
    turn: int = 0

    def request(self, method: str, url: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        while True:
            self.turn += 1
            client = self.clients[self.turn % 2]
            response = client.get(url, headers) if method == "GET" else client.post(url, body, headers)
            if response.status_code != 503:
                assert response.status_code == 200, response.get_json()
                return response.get_json()
            assert response.content_type.startswith(PROBLEM_JSON)
            assert response.get_json()["code"] == "store_unavailable"
            self.unavailable += 1
            time.sleep(min(float(response.headers["Retry-After"]), 0.5))

    def move(self, rng: random.Random) -> bool:
        """One move; false once the match is over."""
        url = f"/v1/matches/{self.match_id}"
        match = self.request("GET", url)
        if match["status"] != "active":
            return False
        seat = rng.choice(match["to_act"])
        legal = self.request("GET", f"{url}/legal-actions", headers=auth(self.tokens[seat]))
        action = rng.choice(legal["actions"])
        answer = self.request(
            "POST", f"{url}/actions", {"state_token": legal["state_token"], "action": action}, auth(self.tokens[seat])
        )
        self.acknowledged[answer["version"]] = {"seat": seat, "action": action}
        return True


def test_a_master_fails_over_while_matches_are_played_and_no_acknowledged_move_is_lost(
    replicated: cluster.LocalCluster, nodes: list[Server]
) -> None:
    clients = [node.client for node in nodes]
    players = []
    for _ in range(MATCHES):
        created = clients[0].post("/v1/matches", {"game": "the-game", "players": 2}).get_json()
        players.append(Player(clients, created["match_id"], [s["token"] for s in created["seats"]]))
    victim = replicated.master_of(f"m:{{{players[0].match_id}}}")
    failed_over = threading.Event()
    stop = threading.Event()
    # The master dies once every match has made its first move, and the matches wait for
    # it: a short match of The Game (a few dozen moves of a few milliseconds) could end
    # before a fixed delay, and a failover that no match meets shows nothing.
    first_moves = threading.Semaphore(0)
    killed = threading.Event()

    def play(player: Player, seed: int) -> None:
        rng = random.Random(seed)
        after = 0
        try:
            while not stop.is_set() and player.move(rng):
                if len(player.acknowledged) == 1:
                    first_moves.release()
                    killed.wait(60)
                if failed_over.is_set():
                    after += 1
                    if after >= MOVES_AFTER_FAILOVER:
                        return
        finally:
            if not player.acknowledged:
                first_moves.release()

    threads = [threading.Thread(target=play, args=(p, i)) for i, p in enumerate(players)]
    for thread in threads:
        thread.start()
    try:
        for _ in players:
            assert first_moves.acquire(timeout=30), "the matches did not start"
        victim.kill()
        killed.set()
        promoted = replicated.wait_for_promotion(victim)
        # Restarted as an orchestrator would: until a replica is back, the promoted master
        # cannot confirm writes to a replica, so its matches answer 503 (see the docstring).
        victim.start()
        failed_over.set()
        for thread in threads:
            thread.join(60)
        assert not any(t.is_alive() for t in threads), "moves still fail after the failover"
    finally:
        killed.set()
        stop.set()
    replicated.wait_ok()
    assert victim.role() == "slave" and promoted.role() == "master"

    on_victim = [p for p in players if replicated.master_of(f"m:{{{p.match_id}}}") is promoted]
    assert sum(p.unavailable for p in on_victim) > 0, "no move met the failover"
    for player in players:
        # Each seat reads the log as it sees it: its own actions unredacted.
        logs = [_log(clients[0], player.match_id, token) for token in player.tokens]
        assert len(logs[0]) >= max(player.acknowledged)
        for version, move in player.acknowledged.items():
            assert logs[move["seat"]][version] == move, f"acknowledged move {version} of {player.match_id} lost"


def _log(client: WireClient, match_id: str, token: str) -> dict[int, dict[str, Any]]:
    """The whole action log as ``token``'s seat sees it, by version."""
    entries: dict[int, dict[str, Any]] = {}
    cursor: int | None = 0
    while cursor is not None:
        page = client.get(f"/v1/matches/{match_id}/history?limit=100&cursor={cursor}", auth(token)).get_json()
        entries.update({e["version"]: {"seat": e["seat"], "action": e["action"]} for e in page["entries"]})
        cursor = page["next_cursor"]
    return entries
