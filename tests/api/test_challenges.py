"""Challenges and bot events through the WSGI app: the life of a challenge, who may touch it,
the events each bot gets (by long poll and by stream), the match they start and finish."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service import create_app
from tests.api.test_bots import bearer, problem, register


@pytest.fixture(params=["embedded", "redis", "cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def app_config(app_config: dict[str, str]) -> dict[str, str]:
    return {**app_config, "REFEREE_SWEEPER": "0", "REFEREE_STREAM_HEARTBEAT": "0.2"}


def challenge(client: Any, key: str, *opponents: str, **extra: Any) -> dict[str, Any]:
    body = {"game": "the-game", "players": 1 + len(opponents), "opponents": list(opponents), **extra}
    answer = client.post("/v1/challenges", json=body, headers=bearer(key))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def events(client: Any, key: str, after: int = 0) -> list[dict[str, Any]]:
    """Every event of the bot after ``after``, by long poll."""
    found = []
    while (answer := client.get(f"/v1/bots/me/next?wait=0&after={after}", headers=bearer(key))).status_code == 200:
        found.append(answer.get_json())
        after = int(found[-1]["id"])
    assert answer.status_code == 204
    return found


def test_a_challenge_accepted_starts_a_match_and_each_bot_gets_its_seat(client) -> None:
    (alice, a), (bob, b) = register(client), register(client)
    created = challenge(client, a, bob, seats="in_order")
    assert created["status"] == "open" and created["challenger"] == alice and created["opponents"] == [bob]
    assert created["match_id"] is None and created["accepted"] == []
    assert client.get(f"/v1/challenges/{created['id']}", headers=bearer(b)).get_json() == created
    accepted = client.post(f"/v1/challenges/{created['id']}/accept", headers=bearer(b)).get_json()
    assert accepted["status"] == "accepted" and accepted["accepted"] == [bob] and accepted["match_id"]
    seen_a, seen_b = events(client, a), events(client, b)
    assert [e["type"] for e in seen_a] == ["challenge", "challenge_accepted", "match_started"]
    assert [e["type"] for e in seen_b] == ["challenge", "challenge_accepted", "match_started"]
    assert [int(e["id"]) for e in seen_a] == [1, 2, 3]
    started_a, started_b = seen_a[-1], seen_b[-1]
    assert (started_a["seat"], started_b["seat"]) == (0, 1)
    assert started_a["opponents"] == [bob] and started_b["opponents"] == [alice]
    assert started_a["match_id"] == accepted["match_id"] and started_a["watch_url"] == f"/watch/{accepted['match_id']}"
    assert started_a["challenge_id"] == created["id"] and started_a["players"] == 2
    # The seat tokens play their own seat only.
    match_id = accepted["match_id"]
    seat_view = client.get(f"/v1/matches/{match_id}", headers=bearer(started_b["seat_token"])).get_json()
    assert seat_view["seat"] == 1
    assert started_a["seat_token"] != started_b["seat_token"]
    # The match ends: both bots hear it, their profiles count it.
    resigned = client.post(f"/v1/matches/{match_id}/resign", headers=bearer(started_a["seat_token"]))
    assert resigned.status_code == 200
    finished = [events(client, key, 3)[-1] for key in (a, b)]
    assert [f["type"] for f in finished] == ["match_finished", "match_finished"]
    assert [f["seat"] for f in finished] == [0, 1]
    assert finished[0]["outcome"]["detail"]["end_reason"] == "resigned"
    assert finished[0]["replay_url"] == f"/v1/matches/{match_id}/replay"
    assert client.get(f"/v1/bots/{alice}").get_json()["matches_played"] == 1
    assert client.get(f"/v1/bots/{bob}").get_json()["faults"] == {}


def test_a_random_seating_seats_every_bot_once(client) -> None:
    (_, a), (bob, b), (carol, c) = register(client), register(client), register(client)
    created = challenge(client, a, bob, carol, seats="random")
    client.post(f"/v1/challenges/{created['id']}/accept", headers=bearer(b))
    assert client.get(f"/v1/challenges/{created['id']}", headers=bearer(a)).get_json()["status"] == "open"
    client.post(f"/v1/challenges/{created['id']}/accept", headers=bearer(c))
    seats = sorted(events(client, key)[-1]["seat"] for key in (a, b, c))
    assert seats == [0, 1, 2]


def test_decline_cancel_and_the_answers_after_them(client) -> None:
    (_, a), (bob, b), (_, c) = register(client), register(client), register(client)
    first = challenge(client, a, bob)
    declined = client.post(f"/v1/challenges/{first['id']}/decline", headers=bearer(b)).get_json()
    assert declined["status"] == "declined"
    assert events(client, a)[-1] == {"id": "2", "type": "challenge_declined", "challenge": declined, "by": bob}
    closed = problem(client.post(f"/v1/challenges/{first['id']}/accept", headers=bearer(b)), 409, "challenge_closed")
    assert closed["challenge_status"] == "declined"
    second = challenge(client, a, bob)
    problem(client.post(f"/v1/challenges/{second['id']}/cancel", headers=bearer(b)), 403, "not_the_challenger")
    problem(client.post(f"/v1/challenges/{second['id']}/accept", headers=bearer(a)), 403, "not_an_opponent")
    problem(client.post(f"/v1/challenges/{second['id']}/accept", headers=bearer(c)), 404, "unknown_challenge")
    problem(client.get(f"/v1/challenges/{second['id']}", headers=bearer(c)), 404, "unknown_challenge")
    canceled = client.post(f"/v1/challenges/{second['id']}/cancel", headers=bearer(a)).get_json()
    assert canceled["status"] == "canceled"
    assert events(client, b)[-1]["type"] == "challenge_canceled"
    assert [e["type"] for e in events(client, c)] == [], "a bot outside a challenge hears nothing of it"


def test_auto_accept_rules_accept_on_the_bots_behalf(client) -> None:
    (alice, a), (bob, b) = register(client), register(client)
    rules = {"games": ["the-game"], "opponents": [alice.upper()]}
    client.patch("/v1/bots/me", json={"auto_accept": rules}, headers=bearer(b))
    taken = challenge(client, a, bob)
    assert taken["status"] == "accepted" and taken["match_id"]
    timed = challenge(client, a, bob, time_control={"per_decision_s": 30})
    assert timed["status"] == "accepted"
    client.patch("/v1/bots/me", json={"auto_accept": {"time_controls": [{"per_decision_s": 5}]}}, headers=bearer(b))
    assert challenge(client, a, bob, time_control={"per_decision_s": 30})["status"] == "open"
    assert challenge(client, a, bob, time_control={"per_decision_s": 5})["status"] == "accepted"
    assert challenge(client, a, bob)["status"] == "open", "an untimed challenge is no listed time control"


def test_an_unanswered_challenge_expires(app_config) -> None:
    app = create_app({**app_config, "REFEREE_CHALLENGE_EXPIRY": "1"})
    client = app.test_client()
    (_, a), (bob, b) = register(client), register(client)
    created = challenge(client, a, bob)
    time.sleep(1.1)
    assert client.get(f"/v1/challenges/{created['id']}", headers=bearer(a)).get_json()["status"] == "expired"
    assert events(client, b)[-1]["type"] == "challenge_expired"
    problem(client.post(f"/v1/challenges/{created['id']}/accept", headers=bearer(b)), 409, "challenge_closed")


def test_the_sweeper_expires_challenges_nobody_reads(app_config) -> None:
    app = create_app({**app_config, "REFEREE_CHALLENGE_EXPIRY": "1"})
    client = app.test_client()
    (_, a), (bob, b) = register(client), register(client)
    challenge(client, a, bob)
    time.sleep(1.1)
    assert app.extensions["sweeper"] is None  # REFEREE_SWEEPER=0 here: sweep by hand
    from service.live.sweeper import Sweeper

    Sweeper(app.extensions["referee"], challenges=app.extensions["challenges"]).sweep_once()
    assert [e["type"] for e in events(client, b)] == ["challenge", "challenge_expired"]


def test_a_timed_out_seat_is_a_fault_on_its_bots_profile(client) -> None:
    (alice, a), (bob, b) = register(client), register(client)
    control = {"per_decision_s": 0.2}
    started = challenge(client, a, bob, time_control=control, seats="in_order")
    client.post(f"/v1/challenges/{started['id']}/accept", headers=bearer(b))
    match_id = events(client, a)[-1]["match_id"]
    time.sleep(0.5)
    assert client.get(f"/v1/matches/{match_id}").get_json()["status"] == "finished"
    faults = [client.get(f"/v1/bots/{name}").get_json()["faults"] for name in (alice, bob)]
    assert sorted(faults, key=len) == [{}, {"timeout": 1}]
    assert events(client, a)[-1]["type"] == "match_finished"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"game": "the-game", "players": 2}, 400, "invalid_body"),
        ({"game": "the-game", "players": 2, "opponents": []}, 400, "invalid_body"),
        ({"game": "the-game", "players": "2", "opponents": ["{bob}"]}, 400, "invalid_body"),
        ({"game": "the-game", "players": 2, "opponents": ["{bob}"], "seats": "best"}, 400, "invalid_body"),
        ({"game": "the-game", "players": 2, "opponents": ["{bob}"], "time_control": {"x": 1}}, 400, "invalid_body"),
        ({"game": "chess", "players": 2, "opponents": ["{bob}"]}, 404, "unknown_game"),
        ({"game": "the-game", "players": 2, "opponents": ["{nobody}"]}, 404, "unknown_bot"),
        ({"game": "the-game", "players": 3, "opponents": ["{bob}"]}, 422, "players_mismatch"),
        ({"game": "the-game", "players": 3, "opponents": ["{bob}", "{BOB}"]}, 422, "invalid_opponents"),
        ({"game": "the-game", "players": 2, "opponents": ["{alice}"]}, 422, "invalid_opponents"),
        ({"game": "the-game", "players": 2, "opponents": ["{bob}"], "options": {"nope": 1}}, 422, "unknown_option"),
    ],
)
def test_bad_challenges_are_refused(client, body: dict[str, Any], status: int, code: str) -> None:
    (alice, a), (bob, _) = register(client), register(client)
    text = orjson.dumps(body).decode().replace("{bob}", bob).replace("{BOB}", bob.upper())
    text = text.replace("{alice}", alice).replace("{nobody}", "nobody_" + secrets.token_hex(6))
    answer = client.post("/v1/challenges", data=text, content_type="application/json", headers=bearer(a))
    problem(answer, status, code)


def test_challenges_need_a_bot_key_and_a_cap_holds(app_config) -> None:
    client = create_app({**app_config, "REFEREE_BOT_CHALLENGE_LIMIT": "2"}).test_client()
    (_, a), (bob, _) = register(client), register(client)
    problem(client.post("/v1/challenges", json={}), 401, "authentication_required")
    problem(client.get("/v1/challenges/whatever", headers=bearer("rbk_nope")), 401, "unknown_bot_key")
    first = challenge(client, a, bob)
    challenge(client, a, bob)
    body = {"game": "the-game", "players": 2, "opponents": [bob]}
    refused = problem(client.post("/v1/challenges", json=body, headers=bearer(a)), 429, "too_many_challenges")
    assert refused["limit"] == "2 open challenges per bot"
    client.post(f"/v1/challenges/{first['id']}/cancel", headers=bearer(a))
    challenge(client, a, bob)


def test_next_waits_then_answers_204_and_refuses_bad_queries(client) -> None:
    (_, a), (bob, b) = register(client), register(client)
    started = time.monotonic()
    assert client.get("/v1/bots/me/next?wait=0.3", headers=bearer(b)).status_code == 204
    assert 0.25 <= time.monotonic() - started < 2
    for query in ("wait=61", "wait=-1", "wait=x", "after=-1", "after=x", "after=1e3"):
        problem(client.get(f"/v1/bots/me/next?{query}", headers=bearer(b)), 400, "invalid_body")
    challenge(client, a, bob)
    pending = client.get("/v1/bots/me/next?wait=1", headers=bearer(b)).get_json()
    assert pending["type"] == "challenge" and pending["id"] == "1"


def read_sse(response: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` events (comments skipped) of a streamed answer."""
    found: list[dict[str, Any]] = []
    chunks: Iterator[bytes] = iter(response.response)
    while len(found) < count:
        chunk = next(chunks)
        for block in chunk.decode().split("\n\n"):
            lines = dict(line.split(": ", 1) for line in block.splitlines() if not line.startswith(":"))
            if lines:
                found.append({"id": lines["id"], "event": lines["event"], "data": orjson.loads(lines["data"])})
    return found


def test_the_stream_starts_with_the_pending_state_then_goes_live(client) -> None:
    (alice, a), (bob, b), (_, c) = register(client), register(client), register(client)
    open_one = challenge(client, a, bob)
    played = challenge(client, c, bob)
    client.post(f"/v1/challenges/{played['id']}/accept", headers=bearer(b))
    client.post(f"/v1/challenges/{challenge(client, a, bob)['id']}/decline", headers=bearer(b))
    stream = client.get("/v1/bots/me/events", headers=bearer(b), buffered=False)
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    assert stream.headers["Cache-Control"] == "no-store"
    pending = read_sse(stream, 2)
    assert [e["event"] for e in pending] == ["challenge", "match_started"]
    assert pending[0]["data"]["challenge"]["id"] == open_one["id"]
    assert pending[1]["data"]["challenge_id"] == played["id"]
    assert int(pending[0]["id"]) < int(pending[1]["id"])
    assert client.get(f"/v1/bots/{bob}").get_json()["online"] is True
    assert bob in [p["name"] for p in client.get("/v1/bots?online=true").get_json()["bots"]]
    live = challenge(client, a, bob)
    (event,) = read_sse(stream, 1)
    assert event["event"] == "challenge" and event["data"]["challenge"]["id"] == live["id"]
    assert event["id"] == event["data"]["id"]
    stream.close()
    assert client.get(f"/v1/bots/{bob}").get_json()["online"] is False
    # Resumed: what came after Last-Event-ID, and nothing before it.
    client.post(f"/v1/challenges/{live['id']}/cancel", headers=bearer(a))
    resumed = client.get("/v1/bots/me/events", headers={**bearer(b), "Last-Event-ID": event["id"]}, buffered=False)
    (after,) = read_sse(resumed, 1)
    assert after["event"] == "challenge_canceled" and int(after["id"]) == int(event["id"]) + 1
    resumed.close()
    assert alice


def test_stream_refusals_come_first_as_problems(app_config) -> None:
    client = create_app({**app_config, "REFEREE_BOT_STREAM_LIMIT": "1"}).test_client()
    _, key = register(client)
    problem(client.get("/v1/bots/me/events"), 401, "authentication_required")
    bad_resume = client.get("/v1/bots/me/events", headers={**bearer(key), "Last-Event-ID": "x"})
    problem(bad_resume, 400, "invalid_last_event_id")
    held = client.get("/v1/bots/me/events", headers=bearer(key), buffered=False)
    read_sse_opened = next(iter(held.response))
    assert read_sse_opened.startswith(b": open")
    refused = problem(client.get("/v1/bots/me/events", headers=bearer(key)), 429, "too_many_bot_streams")
    assert refused["limit"] == "1 event streams per bot"
    held.close()


def test_no_key_or_seat_token_reaches_the_log_the_metrics_or_a_page(app_config, capsys) -> None:
    """A bot's whole life, with the access log on: its key and its seat token appear in the
    answers that carry them and nowhere else."""
    client = create_app({**app_config, "REFEREE_ACCESS_LOG": "1"}).test_client()
    capsys.readouterr()
    (alice, a), (bob, b) = register(client), register(client)
    created = challenge(client, a, bob)
    client.post(f"/v1/challenges/{created['id']}/accept", headers=bearer(b))
    started = events(client, b)[-1]
    client.post(f"/v1/matches/{started['match_id']}/resign", headers=bearer(started["seat_token"]))
    rotated = client.post("/v1/bots/me/key", headers=bearer(a)).get_json()["key"]
    seen = capsys.readouterr()
    shown = [
        seen.out,
        seen.err,
        client.get("/metrics").get_data(as_text=True),
        client.get(f"/bots/{alice}").get_data(as_text=True),
        client.get(f"/bots/{bob}").get_data(as_text=True),
        client.get("/").get_data(as_text=True),
        client.get(f"/v1/bots/{bob}").get_data(as_text=True),
    ]
    assert '"referee.access"' in seen.err
    for secret in (a, b, rotated, started["seat_token"]):
        assert not any(secret in text for text in shown)
