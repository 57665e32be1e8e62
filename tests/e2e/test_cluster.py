"""Two gunicorn nodes sharing a real three-master Redis Cluster (``REDIS_CLUSTER_URL``), as
the README runs them: every game played to its end with consecutive requests on different
nodes, and races between the nodes for one state token, of which exactly one wins.
"""

from __future__ import annotations

import random
import subprocess
import threading
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

import pytest
import redis

from service.games import games
from tests.support.http import PROBLEM_JSON, MatchClient, WireClient, auth
from tests.support.servers import (
    Server,
    clean_env,
    free_port,
    readme_gunicorn_command,
    running,
)

SECRET = {"REFEREE_SECRET": "cluster-secret", "REFEREE_RATE_LIMIT": "", "WEB_CONCURRENCY": "1"}


@pytest.fixture(scope="module")
def nodes(redis_cluster_url: str) -> Iterator[list[Server]]:
    """Two referee nodes (the README's gunicorn command) on one cluster."""
    ports = [free_port(), free_port()]
    env = [clean_env(REDIS_CLUSTER_URL=redis_cluster_url, REFEREE_BIND=f"127.0.0.1:{port}", **SECRET) for port in ports]
    with (
        running(readme_gunicorn_command(), env[0], ports[0]) as a,
        running(readme_gunicorn_command(), env[1], ports[1]) as b,
    ):
        yield [a, b]


class Alternating:
    """A client whose every request goes to the next node in turn, so that no two
    consecutive requests of a match are served by the same node."""

    def __init__(self, clients: list[WireClient]) -> None:
        self.clients = clients
        self.turn = 0

    def _next(self) -> WireClient:
        self.turn += 1
        return self.clients[self.turn % len(self.clients)]

    def get(self, url: str, headers: dict[str, str] | None = None) -> Any:
        return self._next().get(url, headers)

    def post(self, url: str, json: Any = None, headers: dict[str, str] | None = None) -> Any:
        return self._next().post(url, json, headers)


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_game_plays_to_its_end_across_two_nodes(nodes: list[Server], game_id: str) -> None:
    both = Alternating([node.client for node in nodes])
    match = MatchClient.create(both, game_id, games()[game_id].min_players)
    final = match.play_to_end(random.Random(game_id))
    assert final["status"] == "finished" and final["outcome"] is not None
    assert final["version"] == match.moves
    for node in nodes:
        assert node.client.get(match.url).get_json() == final, "both nodes serve the same match"
        history = node.client.get(f"{match.url}/history?limit=1&cursor={match.moves - 1}").get_json()
        assert history["total"] == match.moves
    assert nodes[0].client.get("/readyz").get_json() == {"status": "ok", "store": "redis-cluster", "games": "ok"}


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls at the same moment from threads; their results in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        barrier.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_one_state_token_raced_on_both_nodes_wins_exactly_once(nodes: list[Server]) -> None:
    """Different actions on one token: one is applied, the other is 409 with the winner's
    version. The same action twice (a client retrying on another node): one move, the
    same answer twice, the second marked as a replay."""
    a, b = (node.client for node in nodes)
    rng = random.Random(7)
    different = same = 0
    for _ in range(12):
        match = MatchClient.create(a, "the-game", 2)
        for _ in range(6):
            seat = match.get()["to_act"][0]
            headers = auth(match.tokens[seat])
            legal = a.get(f"{match.url}/legal-actions", headers).get_json()
            actions = legal["actions"]
            picks = rng.sample(actions, 2) if len(actions) > 1 else [actions[0], actions[0]]
            answers = race(
                [
                    partial(
                        node.post,
                        f"{match.url}/actions",
                        {"state_token": legal["state_token"], "action": pick},
                        headers,
                    )
                    for node, pick in zip((a, b), picks, strict=True)
                ]
            )
            history = a.get(f"{match.url}/history?limit=100", headers).get_json()
            assert history["total"] == match.get()["version"], "one log entry per version"
            if picks[0] != picks[1]:
                different += 1
                assert sorted(r.status_code for r in answers) == [200, 409]
                winner = next(i for i, r in enumerate(answers) if r.status_code == 200)
                loser = answers[1 - winner]
                assert loser.content_type.startswith(PROBLEM_JSON)
                assert loser.get_json()["code"] == "stale_state_token"
                assert history["entries"][-1]["action"] == picks[winner]
            else:
                same += 1
                assert [r.status_code for r in answers] == [200, 200]
                assert answers[0].get_json() == answers[1].get_json()
                assert sorted(r.headers.get("Idempotent-Replayed", "") for r in answers) == ["", "true"]
            if match.get()["status"] != "active":
                break
    assert different > 10 and same > 0, (different, same)


def test_the_readme_recipe_starts_a_local_cluster(tmp_path) -> None:
    """The README's commands as written, on free ports of 7000-7099 and in a scratch folder."""
    from tests.support.cluster import free_block, tools_available
    from tests.support.servers import ROOT

    if not tools_available():
        pytest.skip("redis-server or redis-cli is not installed")
    readme = (ROOT / "README.md").read_text()
    recipe = readme.split("A local cluster of three masters", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    first = free_block(3)
    for i in range(3):
        recipe = recipe.replace(str(7000 + i), str(first + i))
    recipe = recipe.replace("/tmp/cluster", str(tmp_path))
    try:
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", recipe], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stderr
        info = redis.Redis(port=first, socket_timeout=2).cluster("info")
        assert info["cluster_state"] == "ok" and int(info["cluster_known_nodes"]) == 3
    finally:
        for port in range(first, first + 3):
            subprocess.run(
                ["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, timeout=10, check=False
            )


def test_the_ci_helper_starts_and_stops_a_cluster(tmp_path) -> None:
    """``.ci/redis-cluster``, as the README offers it for trying the service by hand."""
    import sys

    from tests.support.cluster import free_block, tools_available
    from tests.support.servers import ROOT

    if not tools_available():
        pytest.skip("redis-server or redis-cli is not installed")
    port = free_block(3)
    helper = [str(ROOT / ".ci" / "redis-cluster")]
    where = ["--port", str(port), "--dir", str(tmp_path)]
    env = {**clean_env(), "PYTHON": sys.executable}
    started = subprocess.run(
        [*helper, "start", *where], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    try:
        assert started.returncode == 0, started.stderr
        assert started.stdout.strip() == f"redis://127.0.0.1:{port}"
        client = redis.RedisCluster.from_url(started.stdout.strip())
        client.set("helper-check", "1")
        assert client.get("helper-check") == b"1"
        client.close()
    finally:
        stopped = subprocess.run(
            [*helper, "stop", *where], capture_output=True, text=True, env=env, timeout=60, check=False
        )
    assert stopped.returncode == 0, stopped.stderr
    with pytest.raises(redis.ConnectionError):
        redis.Redis(port=port, socket_connect_timeout=1).ping()
