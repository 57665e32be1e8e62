"""The stream endpoint in process (file store and Redis): what is answered before a stream
starts, and the events of an ended match, replayed from its log. Live delivery across
processes and nodes is tested against real servers in tests/e2e/test_streams.py."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.api.test_bots import register
from tests.support.http import PROBLEM_JSON, MatchClient, auth
from tests.support.replays import play_finished


def parse(body: bytes) -> list[dict[str, Any]]:
    """The events of an SSE body, each ``{"id", "event", "data"}``."""
    events = []
    for block in body.decode().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if fields:
            events.append({**fields, "data": orjson.loads(fields["data"])})
    return events


def test_a_finished_match_streams_its_final_version_then_ends(client) -> None:
    match = play_finished(client, "the-game", seed=11)
    final = match.get()
    response = client.get(f"{match.url}/stream")
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    assert response.headers["Cache-Control"] == "no-store"
    (event,) = parse(response.data)
    assert (event["id"], event["event"]) == (str(final["version"]), "version")
    assert event["data"]["status"] == "finished" and event["data"]["seed"] == final["seed"]
    assert event["data"]["view"] == final["view"] and event["data"]["outcome"] == final["outcome"]


@pytest.mark.parametrize("how", ["header", "query"])
def test_a_resume_gets_the_current_version_and_how_many_it_skipped(client, how: str) -> None:
    """Nothing of the match is kept in this process (no stream of it is open here): the
    missed versions would have to be replayed from the seed, so only the current one comes."""
    match = play_finished(client, "the-game", seed=12)
    final = match.get(0)
    after = 3
    url = f"{match.url}/stream" + (f"?last_event_id={after}" if how == "query" else "")
    headers = {**auth(match.tokens[0]), **({"Last-Event-ID": str(after)} if how == "header" else {})}
    (event,) = parse(client.get(url, headers=headers).data)
    assert event["data"]["version"] == final["version"] and event["data"]["skipped"] == final["version"] - after - 1
    history = client.get(f"{match.url}/history?cursor={after}&limit=200", headers=auth(match.tokens[0])).get_json()
    assert event["data"]["events"] == history["entries"][-1]["events"], "the events of the move that made it"
    assert event["data"]["kind"] == "move"
    assert event["data"]["view"] == final["view"]
    assert event["data"]["state_token"] == final["state_token"]


def test_a_resume_one_version_behind_gets_that_version_and_skips_none(client) -> None:
    match = play_finished(client, "the-game", seed=12)
    final = match.get()
    (event,) = parse(client.get(f"{match.url}/stream", headers={"Last-Event-ID": str(final["version"] - 1)}).data)
    assert event["data"]["version"] == final["version"] and "skipped" not in event["data"]


def test_a_new_stream_opens_with_the_events_of_the_move_that_made_the_current_version(client) -> None:
    match = play_finished(client, "the-game", seed=12)
    (event,) = parse(client.get(f"{match.url}/stream").data)
    history = client.get(f"{match.url}/history?cursor={event['data']['version'] - 1}").get_json()
    assert event["data"]["events"] == history["entries"][0]["events"] and event["data"]["kind"] == "move"


def test_a_resumed_ended_stream_is_204(client) -> None:
    match = play_finished(client, "the-game", seed=13)
    response = client.get(f"{match.url}/stream", headers={"Last-Event-ID": str(match.get()["version"])})
    assert response.status_code == 204 and response.data == b""


@pytest.mark.parametrize(
    ("path", "headers", "status", "code"),
    [
        ("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA/stream", {}, 404, "unknown_match"),
        ("/v1/matches/no!such/stream", {}, 404, "unknown_match"),
        ("{url}/stream", {"Authorization": "Bearer not-a-seat"}, 401, "bad_credentials"),
        ("{url}/stream", {"Authorization": "Basic eDp5"}, 401, "bad_credentials"),
        ("{url}/stream", {"Last-Event-ID": "one"}, 400, "invalid_last_event_id"),
        ("{url}/stream", {"Last-Event-ID": "-1"}, 400, "invalid_last_event_id"),
        ("{url}/stream", {"Last-Event-ID": "1"}, 400, "invalid_last_event_id"),  # the match is at 0
        ("{url}/stream?last_event_id=1e3", {}, 400, "invalid_last_event_id"),
    ],
)
def test_refusals_come_before_the_stream_as_problems(client, path: str, headers: dict, status: int, code: str) -> None:
    match = MatchClient.create(client, "esploratore", 2)
    response = client.get(path.format(url=match.url), headers=headers)
    assert (response.status_code, response.mimetype) == (status, PROBLEM_JSON)
    assert response.get_json()["code"] == code


def capped_client(tmp_path, limit: int) -> Any:
    from service import create_app

    app = create_app(
        {
            "REFEREE_STORE": "file",
            "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"),
            "REFEREE_SECRET": "s",
            "REFEREE_RATE_LIMIT": "",
            "REFEREE_ACCESS_LOG": "0",
            "REFEREE_STREAM_LIMIT": str(limit),
        }
    )
    return app.test_client()


def open_stream(client, match: MatchClient, address: str, **headers: str) -> Any:
    return client.get(f"{match.url}/stream", buffered=False, headers=headers, environ_base={"REMOTE_ADDR": address})


def test_streams_beyond_the_cap_are_refused_until_one_closes(tmp_path) -> None:
    client = capped_client(tmp_path, 2)
    match = MatchClient.create(client, "esploratore", 2)
    held = [open_stream(client, match, f"10.0.0.{i}") for i in (1, 2)]
    assert [r.status_code for r in held] == [200, 200]
    refused = open_stream(client, match, "10.0.0.3")
    assert (refused.status_code, refused.mimetype, refused.get_json()["code"]) == (
        503,
        PROBLEM_JSON,
        "too_many_streams",
    )
    assert refused.headers["Retry-After"] == "5"
    held.pop().close()
    again = open_stream(client, match, "10.0.0.3")
    assert again.status_code == 200
    for response in (*held, again):
        response.close()
    assert client.get("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA/stream").status_code == 404, "a refusal frees its slot"
    assert client.get("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA/stream").status_code == 404
    assert client.get(f"{match.url}/stream", buffered=False).status_code == 200


def test_a_client_holds_fewer_streams_than_are_free_by_address_and_by_token(tmp_path) -> None:
    client = capped_client(tmp_path, 8)
    match = MatchClient.create(client, "esploratore", 2)
    greedy = [open_stream(client, match, "10.0.0.1") for _ in range(8)]
    assert [r.status_code for r in greedy] == [200] * 4 + [503] * 4, "one address: half the slots"
    token = auth(match.tokens[0])
    seat = [open_stream(client, match, f"10.0.1.{i}", **token) for i in range(4)]
    assert [r.status_code for r in seat] == [200, 200, 503, 503], "one token from many addresses: half of the rest"
    others = [open_stream(client, match, f"10.0.2.{i}") for i in range(3)]
    assert [r.status_code for r in others] == [200, 200, 503], "newcomers take the last slots; then it is full"
    assert open_stream(client, match, "10.0.0.1").status_code == 503
    for response in greedy + seat + others:
        response.close()
    assert [open_stream(client, match, "10.0.0.1").status_code for _ in range(2)] == [200, 200]


def test_a_stopping_worker_opens_no_stream_or_long_poll(client, app) -> None:
    """Once the worker is told to stop, a stream or long poll it opened would be ended at once
    and its client would come straight back: they are refused with a 503 to retry shortly."""
    match = MatchClient.create(client, "the-game", 2)
    _, key = register(client)
    app.extensions["waiting_requests"].end_all()
    for path in (f"{match.url}/stream", "/v1/bots/me/events", "/v1/bots/me/next?wait=5"):
        answer = client.get(path, headers=auth(key) if "/bots/" in path else {})
        assert answer.status_code == 503 and answer.mimetype == PROBLEM_JSON, path
        assert answer.get_json()["code"] == "server_stopping" and answer.headers["Retry-After"] == "1", path
    assert client.get(match.url).status_code == 200, "other requests are still answered"
