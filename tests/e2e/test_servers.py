"""The service as users run it, over real sockets, in every way the README and the Dockerfile
document: ``referee serve`` (embedded store and Redis), the README's gunicorn command and the
Docker image's command line. None of them is given a metrics folder: each must set up its own.
"""

from __future__ import annotations

import http.client
import io
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service.replay import verify as verify_command
from tests.support import stored
from tests.support.http import MatchClient, WireClient
from tests.support.servers import (
    Server,
    clean_env,
    documented_ways,
    free_port,
    running,
    slow_clients,
)

WAYS = ["referee serve", "referee serve on Redis", "README gunicorn", "Docker image"]
SLOW_CONNECTIONS = 50


@pytest.fixture(scope="module", params=WAYS)
def server(request: pytest.FixtureRequest) -> Iterator[Server]:
    port = free_port()
    needs_redis = request.param != "referee serve"
    redis_url = request.getfixturevalue("redis_url") if needs_redis else ""
    way = next(w for w in documented_ways(port, redis_url) if w.name == request.param)
    with running(way.command, clean_env(**way.env), port) as started:
        yield started


def play_matches(client: WireClient, counts: range) -> int:
    """Random legal play of The Game for each player count; the number of moves made."""
    moves = 0
    for players in counts:
        match = MatchClient.create(client, "the-game", players)
        final = match.play_to_end(random.Random(players))
        assert final["status"] == "finished"
        moves += match.moves
    return moves


def moves_counted(client: WireClient) -> float:
    text = client.get("/metrics").data.decode()
    return sum(float(v) for v in re.findall(r'^referee_moves_total\{game="the-game"\} (\S+)$', text, re.M))


def test_other_clients_are_answered_while_50_slow_connections_stay_open(server: Server) -> None:
    port = int(server.client.base_url.rsplit(":", 1)[1])
    prompt = WireClient(server.client.base_url, timeout=3)
    with slow_clients(port, SLOW_CONNECTIONS):
        started = time.monotonic()
        play_matches(prompt, range(1, 3))
        assert prompt.get("/readyz").status_code == 200
        elapsed = time.monotonic() - started
    assert elapsed < 30, f"two matches took {elapsed:.1f} s beside slow clients"


def test_metrics_add_up_over_every_worker(server: Server) -> None:
    before = moves_counted(server.client)
    moves = play_matches(server.client, range(1, 6))
    assert moves_counted(server.client) - before == moves, "every move must be counted once"
    assert "referee_http_requests_total{" in server.client.get("/metrics").data.decode()


def test_moves_answer_alike_whether_the_action_lane_or_flask_reads_them(server: Server) -> None:
    """A move with a Content-Length is answered in front of Flask (service/api/action_lane.py);
    one sent chunked goes through Flask. Over the server's sockets both play, and a refused
    move is the same problem answer with the same headers either way."""
    base = server.client.base_url.removeprefix("http://")
    match = MatchClient.create(server.client, "the-game", 1)
    token = match.tokens[0]

    def post(body: dict, chunked: bool) -> tuple[int, dict[str, str], dict]:
        connection = http.client.HTTPConnection(base, timeout=10)
        data = orjson.dumps(body)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json", "X-Request-ID": "lane-e2e"}
        connection.request(
            "POST", f"{match.url}/actions", iter([data]) if chunked else data, headers, encode_chunked=chunked
        )
        response = connection.getresponse()
        answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, orjson.loads(response.read()))
        connection.close()
        return answer

    legal = match.legal(0)
    for chunked in (False, True):
        status, headers, body = post({"state_token": legal["state_token"], "action": legal["actions"][0]}, chunked)
        assert status == 200, body
        assert (headers["vary"], headers["cache-control"], headers["x-request-id"]) == (
            "Authorization",
            "private, no-store",
            "lane-e2e",
        )
        stale = {"state_token": legal["state_token"], "action": legal["actions"][1]}
        refused = [post(stale, chunked=c) for c in (False, True)]
        for status, headers, _problem in refused:
            assert status == 409 and headers["content-type"].startswith("application/problem+json")
            assert headers["x-request-id"] == "lane-e2e" and headers["cache-control"] == "private, no-store"
        assert refused[0][2]["code"] == refused[1][2]["code"] == "stale_state_token"
        legal = {"state_token": body["state_token"], "actions": body["legal_actions"]}


def test_legal_actions_are_answered_with_a_seats_headers_and_problems(server: Server) -> None:
    """Over the server's sockets a seat's legal actions and a refusal carry the headers of
    every seat answer (the lane's moves carry the same), and a request without a token is a
    401."""
    match = MatchClient.create(server.client, "the-game", 1)
    seat = {"Authorization": f"Bearer {match.tokens[0]}", "X-Request-ID": "legal-e2e"}
    answered = server.client.get(f"{match.url}/legal-actions", headers=seat)
    assert answered.status_code == 200 and answered.get_json()["actions"]
    unknown = server.client.get("/v1/matches/no-such-match/legal-actions", headers=seat)
    assert unknown.status_code == 404 and unknown.content_type.startswith("application/problem+json")
    for answer in (answered, unknown):
        headers = {k.lower(): v for k, v in answer.headers.items()}
        assert (headers["vary"], headers["cache-control"], headers["x-request-id"]) == (
            "Authorization",
            "private, no-store",
            "legal-e2e",
        )
    anonymous = server.client.get(f"{match.url}/legal-actions")
    assert anonymous.status_code == 401 and anonymous.get_json()["code"] == "authentication_required"


def test_every_worker_signs_replays_with_the_one_published_key(server: Server) -> None:
    """The signing key is configured like the state-token secret: whichever worker answers,
    /v1/keys is the same and a replay verifies against it, as ``referee verify URL`` does."""
    assert len({server.client.get("/v1/keys").data for _ in range(12)}) == 1
    match = MatchClient.create(server.client, "the-game", 2)
    assert match.play_to_end(random.Random(2))["status"] == "finished"
    for _ in range(4):
        out = io.StringIO()
        assert verify_command.run(f"{server.client.base_url}{match.url}/replay", [], False, out) == 0, out.getvalue()
        assert "VERIFIED the-game" in out.getvalue()


def test_every_documented_way_runs_the_sweeper(server: Server, request: pytest.FixtureRequest) -> None:
    """A deadline nobody asks about is applied: read from the store itself, since a request
    on the match would apply it on its own."""
    created = server.client.post(
        "/v1/matches", json={"game": "the-game", "players": 2, "clock": {"per_decision_s": 0.3}}
    ).get_json()
    database = server.stderr_path.parent / "referee" / "matches.sqlite3"
    if database.exists():

        def version() -> int:
            return stored.on_file(database, created["match_id"])[0]
    else:
        url = request.getfixturevalue("redis_url")

        def version() -> int:
            return stored.on_redis(url, created["match_id"])[0]

    deadline = time.monotonic() + 10
    while version() == 0:
        assert time.monotonic() < deadline, "no sweeper applied the deadline"
        time.sleep(0.05)


def test_a_bot_plays_a_match_on_one_kept_connection(server: Server) -> None:
    """A bot keeps its HTTP/1.1 connection (docs/connections.md): creating the match, reading
    its legal actions, every move and a refused one are answered on the same socket, none of
    them closing it, and the server still holds it open after a pause shorter than its
    keep-alive timeout."""
    port = int(server.client.base_url.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def exchange(method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, orjson.dumps(body) if body is not None else None, headers)
        answer = conn.getresponse()
        data = answer.read()
        assert (answer.getheader("Connection") or "").lower() != "close", (method, path)
        return answer.status, orjson.loads(data) if data else None

    status, created = exchange("POST", "/v1/matches", {"game": "the-game", "players": 1})
    assert status == 201
    socket_in_use = conn.sock
    match_id, token = created["match_id"], created["seats"][0]["token"]
    status, legal = exchange("GET", f"/v1/matches/{match_id}/legal-actions", token=token)
    state_token, actions = legal["state_token"], legal["actions"]
    for _ in range(6):
        status, answer = exchange(
            "POST", f"/v1/matches/{match_id}/actions", {"state_token": state_token, "action": actions[0]}, token
        )
        assert status == 200
        state_token, actions = answer["state_token"], answer["legal_actions"]
    stale = {"state_token": legal["state_token"], "action": legal["actions"][-1]}  # not the move made then
    assert exchange("POST", f"/v1/matches/{match_id}/actions", stale, token)[0] == 409
    time.sleep(1)
    assert exchange("GET", f"/v1/matches/{match_id}", token=token)[0] == 200
    assert conn.sock is socket_in_use
    conn.close()
