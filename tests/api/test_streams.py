"""The stream endpoint in process (file store and Redis): what is answered before a stream
starts, and the events of an ended match, replayed from its log. Live delivery across
processes and nodes is tested against real servers in tests/e2e/test_streams.py."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

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
def test_resuming_replays_every_missed_version_as_the_history_shows_it(client, how: str) -> None:
    match = play_finished(client, "the-game", seed=12)
    final = match.get(0)
    after = 3
    url = f"{match.url}/stream" + (f"?last_event_id={after}" if how == "query" else "")
    headers = {**auth(match.tokens[0]), **({"Last-Event-ID": str(after)} if how == "header" else {})}
    events = parse(client.get(url, headers=headers).data)
    assert [e["data"]["version"] for e in events] == list(range(after + 1, final["version"] + 1))
    history = client.get(f"{match.url}/history?cursor={after}&limit=200", headers=auth(match.tokens[0])).get_json()
    assert [e["data"]["events"] for e in events] == [entry["events"] for entry in history["entries"]]
    assert all(e["data"]["kind"] == "move" for e in events)
    assert events[-1]["data"]["view"] == final["view"]
    assert events[-1]["data"]["state_token"] == final["state_token"]


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


def test_streams_beyond_the_cap_are_refused_until_one_closes(tmp_path) -> None:
    from service import create_app

    app = create_app(
        {
            "REFEREE_STORE": "file",
            "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"),
            "REFEREE_SECRET": "s",
            "REFEREE_RATE_LIMIT": "",
            "REFEREE_ACCESS_LOG": "0",
            "REFEREE_STREAM_LIMIT": "2",
        }
    )
    client = app.test_client()
    match = MatchClient.create(client, "esploratore", 2)
    held = [client.get(f"{match.url}/stream", buffered=False) for _ in range(2)]
    assert [r.status_code for r in held] == [200, 200]
    refused = client.get(f"{match.url}/stream")
    assert (refused.status_code, refused.mimetype, refused.get_json()["code"]) == (
        503,
        PROBLEM_JSON,
        "too_many_streams",
    )
    assert refused.headers["Retry-After"] == "5"
    held.pop().close()
    again = client.get(f"{match.url}/stream", buffered=False)
    assert again.status_code == 200
    for response in (*held, again):
        response.close()
    assert client.get("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA/stream").status_code == 404, "a refusal frees its slot"
    assert client.get("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA/stream").status_code == 404
    assert client.get(f"{match.url}/stream", buffered=False).status_code == 200
