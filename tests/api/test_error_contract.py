"""Every status code of the API provoked on purpose, each as problem+json with its code,
and nothing stored changed by a refused request."""

from __future__ import annotations

import secrets

import pytest

from tests.support.http import PROBLEM_JSON, MatchClient, auth, clear_of_minute_end

GAME = "the-game"


def problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_json()
    assert response.content_type == PROBLEM_JSON
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"].endswith(code) and body["title"] and body["detail"]
    return body


@pytest.fixture
def match(client) -> MatchClient:
    # the HTTP error contract, not The Game's talk about who starts: seat 0 starts at once
    return MatchClient.create(client, GAME, 2, options={"first_seat": 0})


def unchanged(match: MatchClient, before: dict) -> None:
    after = match.get(0)
    assert (after["version"], after["view"]) == (before["version"], before["view"])


# -- 400 ------------------------------------------------------------------------------------


def test_400_body_not_json(client) -> None:
    response = client.post("/v1/matches", data="{nope", content_type="application/json")
    problem(response, 400, "invalid_json")


def test_400_body_against_the_schema(client) -> None:
    body = problem(client.post("/v1/matches", json={"game": GAME, "players": "two"}), 400, "invalid_body")
    assert "players" in body["errors"]["json"]
    problem(client.post("/v1/matches", json={"game": GAME, "players": 2, "extra": 1}), 400, "invalid_body")
    problem(client.post("/v1/matches", json={"game": GAME, "players": 2, "seed": "xyz"}), 400, "invalid_body")


def test_400_forged_or_foreign_state_token(client, match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    before = match.get(0)
    token = match.created["state_token"]
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    problem(match.act(seat, forged, {"type": "end_turn"}), 400, "invalid_state_token")
    problem(match.act(seat, "garbage", {"type": "end_turn"}), 400, "invalid_state_token")
    other = MatchClient.create(client, GAME, 2)
    problem(match.act(seat, other.created["state_token"], {"type": "end_turn"}), 400, "state_token_mismatch")
    unchanged(match, before)


def test_400_bad_idempotency_key(match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    response = match.act(seat, legal["state_token"], legal["actions"][0], **{"Idempotency-Key": "has space"})
    problem(response, 400, "invalid_idempotency_key")


# -- 401 / 403 / 404 ------------------------------------------------------------------------


def test_401_unknown_or_malformed_credentials(client, match: MatchClient) -> None:
    problem(client.get(match.url, headers=auth("not-a-seat")), 401, "bad_credentials")
    problem(client.get(match.url, headers={"Authorization": "Basic abc"}), 401, "bad_credentials")
    response = client.get(f"{match.url}/legal-actions")
    problem(response, 401, "authentication_required")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    token = match.created["state_token"]
    problem(
        client.post(f"{match.url}/actions", json={"state_token": token, "action": {"type": "x"}}),
        401,
        "authentication_required",
    )


def test_403_a_seat_that_owes_no_decision(match: MatchClient) -> None:
    waiting = next(s for s in range(2) if s not in match.created["to_act"])
    before = match.get(0)
    body = problem(match.act(waiting, match.created["state_token"], {"type": "end_turn"}), 403, "not_your_turn")
    assert body["rule"]
    unchanged(match, before)


def test_404_unknown_match_and_game(client) -> None:
    problem(client.get("/v1/matches/abcdefghijklmnop"), 404, "unknown_match")
    problem(client.get("/v1/matches/x"), 404, "unknown_match")
    problem(client.post("/v1/matches", json={"game": "chess", "players": 2}), 404, "unknown_game")
    problem(client.get("/v1/nothing-here"), 404, "not_found")


def test_405_keeps_the_allow_header(client) -> None:
    response = client.delete("/v1/games")
    problem(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


# -- 409 ------------------------------------------------------------------------------------


def test_409_stale_token_carries_the_current_one(match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    first = match.act(seat, legal["state_token"], legal["actions"][0])
    assert first.status_code == 200
    again = match.legal(seat)
    body = problem(match.act(seat, legal["state_token"], again["actions"][0]), 409, "stale_state_token")
    assert body["current_state_token"] == first.get_json()["state_token"]
    assert body["current_version"] == 1
    assert match.act(seat, body["current_state_token"], again["actions"][0]).status_code == 200


# -- 413 ------------------------------------------------------------------------------------


def test_413_body_too_large(match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    huge = {"type": "play", "padding": "x" * 100_000}
    problem(match.act(seat, match.created["state_token"], huge), 413, "body_too_large")


# -- 422 ------------------------------------------------------------------------------------


def test_422_illegal_actions_name_the_rule_and_change_nothing(match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    token = match.created["state_token"]
    before = match.get(0)
    problem(match.act(seat, token, {"type": "teleport"}), 422, "unknown_action_type")
    legal = match.legal(seat)["actions"][0]
    problem(match.act(seat, token, {**legal, "extra": 1}), 422, "bad_action")
    early = problem(match.act(seat, token, {"type": "end_turn"}), 422, "minimum_not_met")
    assert early["rule"] == "minimum cards per turn" and "at least 2" in early["detail"]
    hand = match.get(seat)["view"]["hand"]
    missing = next(card for card in range(2, 100) if card not in hand)
    not_held = problem(match.act(seat, token, {"type": "play", "card": missing, "pile": 0}), 422, "card_not_in_hand")
    assert not_held["rule"] == "own hand"
    unchanged(match, before)


def test_422_bad_options_and_player_counts(client) -> None:
    problem(client.post("/v1/matches", json={"game": GAME, "players": 9}), 422, "invalid_player_count")
    problem(
        client.post("/v1/matches", json={"game": GAME, "players": 2, "options": {"nope": 1}}), 422, "unknown_option"
    )


# -- idempotency ----------------------------------------------------------------------------


def test_idempotent_retry_gets_the_first_answer_and_applies_once(match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    action = legal["actions"][0]
    first = match.act(seat, legal["state_token"], action, **{"Idempotency-Key": "move-1"})
    retry = match.act(seat, legal["state_token"], action, **{"Idempotency-Key": "move-1"})
    assert first.status_code == retry.status_code == 200
    assert retry.get_json() == first.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert match.get()["version"] == 1
    other = match.legal(seat)["actions"][-1]
    reused = match.act(seat, legal["state_token"], other, **{"Idempotency-Key": "move-1"})
    problem(reused, 422, "idempotency_key_reused")


# -- validate -------------------------------------------------------------------------------


def test_validate_answers_without_changing_anything(client, match: MatchClient) -> None:
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    url = f"{match.url}/actions/validate"
    ok = client.post(
        url, json={"state_token": legal["state_token"], "action": legal["actions"][0]}, headers=auth(match.tokens[seat])
    ).get_json()
    assert ok["legal"] is True
    bad = client.post(
        url,
        json={"state_token": legal["state_token"], "action": {"type": "teleport"}},
        headers=auth(match.tokens[seat]),
    ).get_json()
    assert bad["legal"] is False and bad["code"] == "unknown_action_type" and bad["detail"]
    assert match.get()["version"] == 0


# -- 429 ------------------------------------------------------------------------------------


def test_429_rate_limited_per_seat_token_and_per_address(app_config) -> None:
    from service import create_app

    client = create_app({**app_config, "REFEREE_RATE_LIMIT": "3 per minute"}).test_client()
    clear_of_minute_end(5)
    client.environ_base["REMOTE_ADDR"] = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.7"  # fresh counters
    created = client.post("/v1/matches", json={"game": GAME, "players": 2}).get_json()
    for _ in range(2):
        assert client.get(f"/v1/games/{GAME}").status_code == 200
    limited = client.get(f"/v1/games/{GAME}")
    problem(limited, 429, "rate_limited")
    assert int(limited.headers["Retry-After"]) > 0
    seat = auth(created["seats"][0]["token"])
    assert client.get(f"/v1/matches/{created['match_id']}", headers=seat).status_code == 200, (
        "a seat token has its own budget"
    )
    assert client.get("/healthz").status_code == 200, "health checks are never limited"


@pytest.mark.parametrize("store_kind", ["redis", "cluster"])
def test_429_budget_is_shared_between_nodes_on_redis(app_config, store_kind) -> None:
    """Two apps on one Redis or one Redis Cluster (two gunicorn workers or hosts) share one
    budget."""
    from service import create_app

    config = {**app_config, "REFEREE_RATE_LIMIT": "4 per minute"}
    nodes = [create_app(config).test_client() for _ in range(2)]
    clear_of_minute_end(5)
    address = f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.8"
    for node in nodes:
        node.environ_base["REMOTE_ADDR"] = address
    for node in (nodes[0], nodes[1], nodes[0], nodes[1]):
        assert node.get(f"/v1/games/{GAME}").status_code == 200
    problem(nodes[0].get(f"/v1/games/{GAME}"), 429, "rate_limited")
    problem(nodes[1].get(f"/v1/games/{GAME}"), 429, "rate_limited")
