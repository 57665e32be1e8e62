"""The move endpoint's lane in front of Flask (service/api/action_lane.py) answers exactly what
the Flask route answers, counts a request once, and hands Flask every request it does not
serve with the body intact.

The rest of the API suite goes through the lane too (every app has it), so every move test
there, refusals included, is also a test of it.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest
from marshmallow.validate import Length
from werkzeug.test import Client

from schemas.matches import ActionRequestSchema
from service import create_app
from service.api.action_lane import ActionLane
from service.api.headers import SecurityHeaders
from service.api.sockets import SocketLane

SEED = "ab" * 32


def configured_app(tmp_path: Any, access_log: str = "0", rate_limit: str = "") -> Any:
    """An app on the memory store; its rate limit, if any, counts in one window for the whole
    test (its clock stands still)."""
    app = create_app(
        {
            "REFEREE_STORE": "memory",
            "REFEREE_SECRET": "lane",
            "REFEREE_ACCESS_LOG": access_log,
            "REFEREE_RATE_LIMIT": rate_limit,
            "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"),
        }
    )
    if rate_limit:
        app.extensions["rate_limiter"].now = lambda: 7200.0
    return app


@pytest.fixture
def app(tmp_path) -> Any:
    return configured_app(tmp_path)


def lane_of(app: Any) -> ActionLane:
    secured = app.wsgi_app
    assert isinstance(secured, SecurityHeaders)
    channels = secured.app  # the seats' sockets (service/api/sockets.py), then the lane
    assert isinstance(channels, SocketLane)
    lane = channels.lane
    assert isinstance(lane, ActionLane)
    return lane


def flask_of(app: Any) -> SecurityHeaders:
    """The app without its lane: Flask, with the security headers every answer gets."""
    return SecurityHeaders(lane_of(app).inner)


def start(client: Client, game: str, players: int) -> dict[str, Any]:
    response = client.post("/v1/matches", json={"game": game, "players": players, "seed": SEED})
    assert response.status_code == 201
    return response.get_json()


def move(client: Client, match: dict[str, Any], seat: int, body: Any, **headers: str) -> Any:
    return client.post(
        f"/v1/matches/{match['match_id']}/actions",
        data=body if isinstance(body, bytes) else orjson.dumps(body),
        headers={
            "Authorization": f"Bearer {match['seats'][seat]['token']}",
            "Content-Type": "application/json",
            "X-Request-ID": "same-id",
            **headers,
        },
    )


def comparable(response: Any, match: dict[str, Any]) -> tuple[int, list[tuple[str, str]], str]:
    """Status, headers and body, with what differs between two matches of one seed (their
    ids and tokens) written the same way."""
    body = response.get_data(as_text=True).replace(match["match_id"], "<match>")
    body = re.sub(r'"(current_)?state_token":"[^"]+"', r'"\1state_token":"<token>"', body)
    headers = sorted((k, v) for k, v in response.headers.items() if k != "Content-Length")
    return response.status_code, headers, body


@pytest.mark.parametrize(
    ("game", "players"),
    [
        ("the-game", 2),
        ("halunken-und-spelunken", 3),
        ("viaggio-al-centro-della-terra", 2),
        ("isola-dei-vulcani", 2),
        ("esploratore", 3),
    ],
)
def test_a_match_played_through_the_lane_gets_the_answers_the_flask_route_gives(app, game, players) -> None:
    through_lane, through_flask = Client(app), Client(flask_of(app))
    ours, theirs = start(through_lane, game, players), start(through_flask, game, players)
    for _ in range(12):
        state = through_lane.get(f"/v1/matches/{ours['match_id']}").get_json()
        if state["status"] != "active":
            break
        seat = state["to_act"][0]
        answers = []
        for client, match in ((through_lane, ours), (through_flask, theirs)):
            legal = client.get(
                f"/v1/matches/{match['match_id']}/legal-actions",
                headers={"Authorization": f"Bearer {match['seats'][seat]['token']}"},
            ).get_json()
            answers.append(
                comparable(
                    move(client, match, seat, {"state_token": legal["state_token"], "action": legal["actions"][-1]}),
                    match,
                )
            )
        assert answers[0][0] == 200
        assert answers[0] == answers[1]


def test_a_retried_move_is_replayed_with_the_flask_routes_header(app) -> None:
    client = Client(app)
    match = start(client, "the-game", 1)
    legal = client.get(
        f"/v1/matches/{match['match_id']}/legal-actions",
        headers={"Authorization": f"Bearer {match['seats'][0]['token']}"},
    ).get_json()
    body = {"state_token": legal["state_token"], "action": legal["actions"][0]}
    first = move(client, match, 0, body, **{"Idempotency-Key": "k-1"})
    again = move(client, match, 0, body, **{"Idempotency-Key": "k-1"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()


@pytest.mark.parametrize(
    ("body", "headers", "status", "code"),
    [
        (b'{"state_token": "t", "action": {"type": "end_turn"}, "extra": 1}', {}, 400, None),
        (b'{"state_token": "t", "action": []}', {}, 400, None),
        (b'{"state_token": "' + b"t" * 201 + b'", "action": {}}', {}, 400, None),  # over the schema's 200
        (b'{"state_token": "t", "action"', {}, 400, None),
        (b'{"state_token": "not-a-token", "action": {"type": "end_turn"}}', {}, 400, None),
        (b'{"state_token": "t", "action": {}}', {"Idempotency-Key": "bad key"}, 400, "invalid_idempotency_key"),
        (b'{"state_token": "t", "action": {}}', {"Content-Type": "text/plain"}, None, None),
    ],
)
def test_a_request_the_lane_does_not_serve_gets_the_flask_routes_answer(app, body, headers, status, code) -> None:
    through_lane, through_flask = Client(app), Client(flask_of(app))
    ours, theirs = start(through_lane, "the-game", 1), start(through_flask, "the-game", 1)
    answer = move(through_lane, ours, 0, body, **headers)
    assert comparable(answer, ours) == comparable(move(through_flask, theirs, 0, body, **headers), theirs)
    assert answer.status_code >= 400 and answer.content_type.startswith("application/problem+json")
    if status is not None:
        assert answer.status_code == status
    if code is not None:
        assert answer.get_json()["code"] == code


def _stale(legal: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    return {"state_token": legal["state_token"], "action": legal["actions"][1]}


def _illegal(legal: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    return {"state_token": answer["state_token"], "action": {"type": "play", "card": 1000, "pile": 0}}


def _unknown_type(legal: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    return {"state_token": answer["state_token"], "action": {"type": "fly"}}


@pytest.mark.parametrize("refused", [_stale, _illegal, _unknown_type])
def test_a_move_the_referee_refuses_gets_the_flask_routes_problem_answer(app, refused) -> None:
    through_lane, through_flask = Client(app), Client(flask_of(app))
    answers = []
    for client in (through_lane, through_flask):
        match = start(client, "the-game", 1)
        token = match["seats"][0]["token"]
        legal = client.get(
            f"/v1/matches/{match['match_id']}/legal-actions", headers={"Authorization": f"Bearer {token}"}
        ).get_json()
        answer = move(client, match, 0, {"state_token": legal["state_token"], "action": legal["actions"][0]}).get_json()
        answers.append(comparable(move(client, match, 0, refused(legal, answer)), match))
    assert 400 <= answers[0][0] < 500 and answers[0] == answers[1]


def test_an_unexpected_failure_in_the_lane_is_a_logged_problem_500_like_flasks(app, monkeypatch, caplog) -> None:
    through_lane, through_flask = Client(app), Client(flask_of(app))
    matches = [start(client, "the-game", 1) for client in (through_lane, through_flask)]

    def broken(*_args: Any, **_kwargs: Any) -> None:
        raise ZeroDivisionError("the rules divided by zero")

    monkeypatch.setattr(app.extensions["referee"], "act", broken)
    body = {"state_token": matches[0]["state_token"], "action": {"type": "end_turn"}}
    ours = move(through_lane, matches[0], 0, body)
    theirs = move(through_flask, matches[1], 0, {**body, "state_token": matches[1]["state_token"]})
    assert comparable(ours, matches[0]) == comparable(theirs, matches[1])
    assert ours.status_code == 500 and ours.get_json()["code"] == "internal_error"
    assert "divided by zero" not in ours.get_data(as_text=True)


@pytest.mark.parametrize("match_id", ["caf%C3%A9", "x%2Fy", "no-such-match", "a" * 80])
def test_a_move_on_a_path_that_names_no_match_is_answered_as_flask_answers_it(app, match_id) -> None:
    through_lane, through_flask = Client(app), Client(flask_of(app))
    match = start(through_lane, "the-game", 1)
    body = orjson.dumps({"state_token": match["state_token"], "action": {"type": "end_turn"}})
    headers = {
        "Authorization": f"Bearer {match['seats'][0]['token']}",
        "Content-Type": "application/json",
        "X-Request-ID": "same-id",
    }
    answers = [
        client.post(f"/v1/matches/{match_id}/actions", data=body, headers=headers)
        for client in (through_lane, through_flask)
    ]
    assert answers[0].status_code >= 400
    assert comparable(answers[0], match) == comparable(answers[1], match)


def test_a_request_handed_to_flask_is_rate_limited_once(tmp_path) -> None:
    app = configured_app(tmp_path, rate_limit="4 per minute")
    client = Client(app)
    match = start(client, "the-game", 1)  # counted against the address, not the seat
    token = match["seats"][0]["token"]
    legal = client.get(
        f"/v1/matches/{match['match_id']}/legal-actions", headers={"Authorization": f"Bearer {token}"}
    ).get_json()
    played = move(client, match, 0, {"state_token": legal["state_token"], "action": legal["actions"][0]})
    assert played.status_code == 200  # the seat's 2nd request (legal-actions was the 1st)
    stale = move(client, match, 0, {"state_token": legal["state_token"], "action": legal["actions"][1]})
    assert stale.status_code == 409  # refused by the referee, answered by Flask: the 3rd, once
    fresh = played.get_json()
    assert (
        move(client, match, 0, {"state_token": fresh["state_token"], "action": fresh["legal_actions"][0]}).status_code
        == 200
    )
    refused = move(client, match, 0, {"state_token": fresh["state_token"], "action": fresh["legal_actions"][0]})
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"


def test_a_move_through_the_lane_is_counted_and_logged_like_any_request(tmp_path, capsys) -> None:
    app = configured_app(tmp_path, access_log="1")
    client = Client(app)
    match = start(client, "the-game", 1)
    legal = client.get(
        f"/v1/matches/{match['match_id']}/legal-actions",
        headers={"Authorization": f"Bearer {match['seats'][0]['token']}"},
    ).get_json()
    before = counts(client)
    capsys.readouterr()
    assert (
        move(client, match, 0, {"state_token": legal["state_token"], "action": legal["actions"][0]}).status_code == 200
    )
    (line,) = [orjson.loads(text) for text in capsys.readouterr().err.splitlines() if '"referee.access"' in text]
    assert line["request_id"] == "same-id" and line["status"] == 200 and line["method"] == "POST"
    assert line["path"] == f"/v1/matches/{match['match_id']}/actions" and line["match_id"] == match["match_id"]
    after = counts(client)
    assert {name: after[name] - before.get(name, 0.0) for name in after} == {"moves": 1.0, "requests": 1.0}


def counts(client: Client) -> dict[str, float]:
    """The move counter of The Game and the request counter of accepted moves, from /metrics."""
    text = client.get("/metrics").get_data(as_text=True)
    patterns = {
        "moves": r'^referee_moves_total\{game="the-game"\} (\S+)$',
        "requests": (
            r'^referee_http_requests_total\{endpoint="/v1/matches/<match_id>/actions",method="POST",status="200"\} '
            r"(\S+)$"
        ),
    }
    found = {name: re.search(pattern, text, re.M) for name, pattern in patterns.items()}
    return {name: float(m.group(1)) for name, m in found.items() if m}


def legal_actions(client: Client, match_id: str, bearer: str | None, method: str = "GET", **headers: str) -> Any:
    if bearer is not None:
        headers["Authorization"] = f"Bearer {bearer}"
    return client.open(
        f"/v1/matches/{match_id}/legal-actions", method=method, headers={"X-Request-ID": "same-id", **headers}
    )


def test_a_seats_moves_are_answered_without_flask(app) -> None:
    client = Client(app)
    match = start(client, "the-game", 1)
    legal = legal_actions(client, match["match_id"], match["seats"][0]["token"])
    assert legal.status_code == 200
    lane = lane_of(app)

    def flask(*_args: Any) -> Any:
        raise AssertionError("handed to Flask")

    lane.inner = flask
    played = move(
        client, match, 0, {"state_token": legal.get_json()["state_token"], "action": legal.get_json()["actions"][0]}
    )
    assert played.status_code == 200


def test_the_lane_serves_the_state_tokens_the_routes_schema_allows_and_hands_on_the_rest(app) -> None:
    """The lane's bound on a state token is the route schema's own: a token of its greatest
    length is answered here (refused: it names no version), one character longer goes to
    Flask, whose schema refuses it."""
    (length,) = [v for v in ActionRequestSchema._declared_fields["state_token"].validators if isinstance(v, Length)]
    assert length.max is not None
    client = Client(app)
    match = start(client, "the-game", 1)
    lane = lane_of(app)
    flask = lane.inner
    handed_on: list[str] = []

    def counting(environ: dict[str, Any], start_response: Any) -> Any:
        handed_on.append(environ["PATH_INFO"])
        return flask(environ, start_response)

    lane.inner = counting
    for size, served_here in ((length.max, True), (length.max + 1, False)):
        handed_on.clear()
        answer = move(client, match, 0, {"state_token": "t" * size, "action": {"type": "end_turn"}})
        assert answer.status_code == 400 and answer.content_type.startswith("application/problem+json")
        assert (not handed_on) is served_here, size
