"""Bad Redis days: Redis going away, refusing writes, evicting keys, losing replies.

Each test runs its own redis-server on a free port, so the shared one is never disturbed: paused
with SIGSTOP (requests time out), killed and started again, out of memory under
``noeviction``, a read-only replica, an evicting ``maxmemory-policy``, and behind a proxy that
drops the reply to a commit after Redis ran it. Every failure is a 503 with ``Retry-After``
(never a 500), and no applied move is answered with a failure once the client retries.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest
import redis

from tests.support.http import PROBLEM_JSON, MatchClient


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisProcess:
    def __init__(self, port: int, *options: str) -> None:
        self.port = port
        self.options = options
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port)

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_connect_timeout=0.2)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
            self.proc.wait(5)


def _require_redis_server() -> None:
    if shutil.which("redis-server") is None:
        if os.environ.get("REFEREE_REQUIRE_REDIS") == "1":
            pytest.fail("REFEREE_REQUIRE_REDIS=1 but redis-server is not installed")
        pytest.skip("redis-server is not installed")


@pytest.fixture
def private_redis() -> Iterator[RedisProcess]:
    _require_redis_server()
    server = RedisProcess(_free_port())
    server.start()
    yield server
    server.stop()


@pytest.fixture
def evicting_redis() -> Iterator[RedisProcess]:
    _require_redis_server()
    server = RedisProcess(_free_port(), "--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru")
    server.start()
    yield server
    server.stop()


def app_on(redis_url: str, **extra: str):
    from service import create_app

    return create_app(
        {
            "REDIS_URL": redis_url,
            "REFEREE_SECRET": "s",
            "REFEREE_STORE_TIMEOUT": "0.5",
            "REFEREE_ACCESS_LOG": "0",
            "REFEREE_RATE_LIMIT": "",
            **extra,
        }
    )


def assert_unavailable(response) -> None:
    assert response.status_code == 503, response.get_json()
    assert response.content_type == PROBLEM_JSON
    assert response.get_json()["code"] == "store_unavailable"
    assert int(response.headers["Retry-After"]) >= 1


def test_503_while_redis_is_down_then_recovery(private_redis: RedisProcess) -> None:
    from service import create_app

    app = create_app(
        {
            "REDIS_URL": f"redis://127.0.0.1:{private_redis.port}/0",
            "REFEREE_SECRET": "s",
            "REFEREE_STORE_TIMEOUT": "0.3",
            "REFEREE_ACCESS_LOG": "0",
        }
    )
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)

    os.kill(private_redis.proc.pid, signal.SIGSTOP)
    assert_unavailable(client.get(match.url))
    assert_unavailable(match.act(seat, legal["state_token"], legal["actions"][0]))
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200
    os.kill(private_redis.proc.pid, signal.SIGCONT)

    assert match.get()["version"] == 0, "the refused move was not applied"
    assert match.act(seat, legal["state_token"], legal["actions"][0]).status_code == 200

    private_redis.stop()
    assert_unavailable(client.get(match.url))
    assert_unavailable(client.post("/v1/matches", json={"game": "the-game", "players": 1}))
    private_redis.start()
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/matches", json={"game": "the-game", "players": 1}).status_code == 201


def test_out_of_memory_under_noeviction_is_a_503_and_not_ready(private_redis: RedisProcess) -> None:
    client = app_on(private_redis.url).test_client()
    match = MatchClient.create(client, "the-game", 1)
    legal = match.legal(0)
    admin = private_redis.client()
    admin.config_set("maxmemory-policy", "noeviction")
    admin.config_set("maxmemory", 1)  # every write is now over the limit
    try:
        assert_unavailable(match.act(0, legal["state_token"], legal["actions"][0]))
        assert_unavailable(client.post("/v1/matches", json={"game": "the-game", "players": 1}))
        assert client.get("/readyz").status_code == 503, "readiness must fail while writes cannot succeed"
        assert match.get()["version"] == 0, "reads still work, and nothing was half-written"
    finally:
        admin.config_set("maxmemory", 0)
    assert client.get("/readyz").status_code == 200
    assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200


def test_a_read_only_replica_is_a_503_and_not_ready(private_redis: RedisProcess) -> None:
    client = app_on(private_redis.url).test_client()
    match = MatchClient.create(client, "the-game", 1)
    legal = match.legal(0)
    admin = private_redis.client()
    admin.replicaof("127.0.0.1", _free_port())  # a failover made this node a replica
    try:
        assert_unavailable(match.act(0, legal["state_token"], legal["actions"][0]))
        assert client.get("/readyz").status_code == 503
        assert match.get()["version"] == 0
    finally:
        admin.replicaof("NO", "ONE")
    assert client.get("/readyz").status_code == 200
    assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200


def test_an_evicting_redis_is_refused_at_start(evicting_redis: RedisProcess) -> None:
    from service.store import StoreMisconfigured

    with pytest.raises(StoreMisconfigured, match="maxmemory-policy is 'allkeys-lru'"):
        app_on(evicting_redis.url)
    app = app_on(evicting_redis.url, REFEREE_REDIS_POLICY_CHECK="0")  # the documented override
    assert app.test_client().get("/readyz").status_code == 200


def test_a_match_whose_log_was_evicted_is_never_served(private_redis: RedisProcess) -> None:
    """What allkeys-lru did to 15 of 400 matches: the record kept, part of the log gone."""
    client = app_on(private_redis.url).test_client()
    match = MatchClient.create(client, "the-game", 1)
    for _ in range(2):
        legal = match.legal(0)
        assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200
    legal = match.legal(0)
    match_id = match.created["match_id"]
    private_redis.client().delete(f"m:{{{match_id}}}:log")
    for response in (
        client.get(match.url),
        client.get(f"{match.url}/history"),
        match.act(0, legal["state_token"], legal["actions"][0]),
    ):
        assert response.status_code == 404, response.get_json()
        assert response.content_type == PROBLEM_JSON
        assert response.get_json()["code"] == "match_damaged"


def test_the_commit_script_refuses_to_extend_a_damaged_log(private_redis: RedisProcess) -> None:
    """The check also holds inside the compare-and-set, for a log lost between load and commit."""
    from service.store import MatchDamaged, RedisStore

    store = RedisStore.from_url(private_redis.url)
    store.create("damaged-1", b"v0", 60)
    store.commit("damaged-1", 0, b"v1", b"e1", 60)
    private_redis.client().delete("m:{damaged-1}:log")
    with pytest.raises(MatchDamaged):
        store.commit("damaged-1", 1, b"v2", b"e2", 60)
    with pytest.raises(MatchDamaged, match="version 1"):  # a refusal answers for a load: it refuses too
        store.commit("damaged-1", 0, b"v1'", b"e1'", 60)
    assert private_redis.client().hget("m:{damaged-1}", "v") == b"1", "nothing was written"


def test_lost_commit_replies_over_http(private_redis: RedisProcess, tmp_path) -> None:
    """``referee serve`` on Redis behind a proxy that drops the reply to the commit script
    after Redis ran it: once (the store client resends it) the client still gets its 200;
    twice (the client gets a 503) the client's retry gets the original answer."""
    from importlib.resources import files

    from tests.support.killable import start_serve
    from tests.support.proxy import lossy_proxy

    commit_sha = hashlib.sha1(files("service.store").joinpath("commit.lua").read_bytes()).hexdigest().encode()
    with lossy_proxy(private_redis.port) as proxy:
        server = start_serve(
            {
                "REDIS_URL": f"redis://127.0.0.1:{proxy.port}/0",
                "REFEREE_SECRET": "s",
                "REFEREE_ACCESS_LOG": "0",
                "REFEREE_RATE_LIMIT": "",
                "REFEREE_STORE_TIMEOUT": "1",
            },
            tmp_path / "serve.log",
            workers=1,
        )
        try:
            http = server.client
            match = MatchClient.create(http, "the-game", 1, seed="b1" * 32)
            legal = match.legal(0)
            assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200  # script loaded

            legal = match.legal(0)
            proxy.drop_replies(commit_sha, 1)
            resent = match.act(0, legal["state_token"], legal["actions"][0])
            assert proxy.dropped == 1
            assert resent.status_code == 200, resent.get_json()
            assert resent.get_json()["version"] == 2

            for key in (None, "lost-2"):
                legal = match.legal(0)
                headers = {"Idempotency-Key": key} if key else {}
                proxy.drop_replies(commit_sha, 2)
                lost = match.act(0, legal["state_token"], legal["actions"][0], **headers)
                assert_unavailable(lost)
                retried = match.act(0, legal["state_token"], legal["actions"][0], **headers)
                assert retried.status_code == 200, retried.get_json()
                assert retried.get_json()["version"] == legal["version"] + 1
                assert retried.get_json()["view"] == match.get(0)["view"]
            assert proxy.dropped == 5
            history = http.get(f"{match.url}/history").get_json()
            assert [e["version"] for e in history["entries"]] == [1, 2, 3, 4], "each move applied once"
        finally:
            server.stop()


def test_referee_serve_refuses_an_evicting_redis(evicting_redis: RedisProcess, tmp_path) -> None:
    from tests.support.killable import start_serve

    server = start_serve({"REDIS_URL": evicting_redis.url, "REFEREE_SECRET": "s"}, tmp_path / "serve.log", workers=1)
    try:
        assert server.proc.wait(30) != 0
    finally:
        server.stop()
    assert "maxmemory-policy is 'allkeys-lru'" in server.printed()
    assert "maxmemory-policy noeviction" in server.printed()


def test_bot_calls_answer_503_while_redis_is_down(private_redis: RedisProcess) -> None:
    """Every bot call that reaches the store answers 503 ``store_unavailable`` while Redis does
    not answer, never a 500; the accounts and challenges are all there once it does."""
    client = app_on(private_redis.url, REFEREE_REGISTER_LIMIT="").test_client()
    alice = client.post("/v1/bots", json={"name": "alice"}).get_json()["key"]
    bob = client.post("/v1/bots", json={"name": "bob"}).get_json()["key"]
    body = {"game": "the-game", "players": 2, "opponents": ["bob"]}
    challenge = client.post("/v1/challenges", json=body, headers={"Authorization": f"Bearer {alice}"}).get_json()
    as_bob = {"Authorization": f"Bearer {bob}"}

    os.kill(private_redis.proc.pid, signal.SIGSTOP)
    try:
        assert_unavailable(client.post("/v1/bots", json={"name": "carol"}))
        assert_unavailable(client.get("/v1/bots/alice"))
        assert_unavailable(client.get("/v1/bots"))
        assert_unavailable(client.get("/v1/bots/me", headers=as_bob))
        assert_unavailable(client.post(f"/v1/challenges/{challenge['id']}/accept", headers=as_bob))
        assert_unavailable(client.get("/v1/bots/me/next?wait=0", headers=as_bob))
        assert_unavailable(client.get("/v1/bots/me/events", headers=as_bob))
    finally:
        os.kill(private_redis.proc.pid, signal.SIGCONT)
    accepted = client.post(f"/v1/challenges/{challenge['id']}/accept", headers=as_bob)
    assert accepted.status_code == 200 and accepted.get_json()["status"] == "accepted"
