"""Ladders through the WSGI app: operators create and run them with the admin token, bots
join and leave, the pairing pass (called here by hand, as each node's sweeper calls it) pairs
online bots, every finished match is rated once, faults suspend, and every bad input is a
problem answer that changes nothing."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
import redis

from service.clock import wall_ms
from tests.api.test_bots import bearer, problem
from tests.api.test_challenges import events

ADMIN = "admin-secret-for-ladders"
GAME = "viaggio-al-centro-della-terra"


@pytest.fixture(params=["embedded", "redis"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def app_config(app_config: dict[str, str]) -> dict[str, str]:
    return {**app_config, "REFEREE_SWEEPER": "0", "REFEREE_ADMIN_TOKEN": ADMIN}


@pytest.fixture(autouse=True)
def no_ladders_yet(store_kind: str, request: pytest.FixtureRequest) -> None:
    """Ladders and the pairing lease are per store: a shared Redis starts without those of
    earlier tests (whose apps, gone now, would hold the lease for seconds)."""
    if store_kind == "redis":
        forget_ladders(request.getfixturevalue("redis_url"))


def forget_ladders(redis_url: str) -> None:
    """Drop every ladder document, queue and lease of the Redis at ``redis_url``."""
    client = redis.Redis.from_url(redis_url)
    client.delete(*client.scan_iter("ld:*"), *client.scan_iter("ldq:*"), *client.scan_iter("lease:*"), "ldk")


def _register(client: Any, owner: str) -> tuple[str, str]:
    name = "bot_" + secrets.token_hex(4)
    answer = client.post("/v1/bots", json={"name": name, "owner": owner or name}, headers=bearer(ADMIN))
    assert answer.status_code == 201, answer.get_json()
    return name, answer.get_json()["key"]


def new_ladder(client: Any, ladder_id: str = "duel", **extra: Any) -> dict[str, Any]:
    body = {"id": ladder_id, "game": GAME, "players": 2, "time_control": {"per_decision_s": 30}, **extra}
    answer = client.post("/v1/ladders", json=body, headers=bearer(ADMIN))
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def online(app: Any, name: str) -> None:
    """The bot holds an event stream open (as far as pairing can tell)."""
    app.extensions["accounts"].store.touch_presence(name.lower(), "test", wall_ms() + 600_000)


def offline(app: Any, name: str) -> None:
    app.extensions["accounts"].store.drop_presence(name.lower(), "test")


def started(client: Any, key: str) -> list[dict[str, Any]]:
    return [e for e in events(client, key) if e["type"] == "match_started"]


def resign(client: Any, event: dict[str, Any]) -> None:
    answer = client.post(f"/v1/matches/{event['match_id']}/resign", headers=bearer(event["seat_token"]))
    assert answer.status_code == 200, answer.get_json()


def test_operators_create_pause_resume_and_close_a_ladder(client) -> None:
    created = new_ladder(client, house=["random", "heuristic"], max_concurrent=2)
    assert created["status"] == "open" and created["members"] == 2 and created["max_concurrent"] == 2
    assert client.get("/v1/ladders/duel").get_json() == created
    assert client.get("/v1/ladders").get_json()["ladders"] == [created]
    assert client.post("/v1/ladders/duel/pause", headers=bearer(ADMIN)).get_json()["status"] == "paused"
    assert client.post("/v1/ladders/duel/resume", headers=bearer(ADMIN)).get_json()["status"] == "open"
    assert client.post("/v1/ladders/duel/close", headers=bearer(ADMIN)).get_json()["status"] == "closed"
    problem(client.post("/v1/ladders/duel/resume", headers=bearer(ADMIN)), 409, "ladder_closed")
    name, key = _register(client, "")
    problem(client.post("/v1/ladders/duel/join", headers=bearer(key)), 409, "ladder_closed")


def test_bad_operator_calls_are_problems_that_change_nothing(client) -> None:
    body = {"id": "duel", "game": GAME, "players": 2, "time_control": {"per_decision_s": 30}}
    problem(client.post("/v1/ladders", json=body), 401, "admin_token_required")
    problem(client.post("/v1/ladders", json=body, headers=bearer("wrong")), 401, "admin_token_required")
    problem(client.post("/v1/ladders", json={**body, "id": "-x"}, headers=bearer(ADMIN)), 422, "invalid_ladder_id")
    problem(client.post("/v1/ladders", json={**body, "game": "chess"}, headers=bearer(ADMIN)), 404, "unknown_game")
    problem(
        client.post("/v1/ladders", json={**body, "house": ["deep-blue"]}, headers=bearer(ADMIN)),
        422,
        "unknown_house_bot",
    )
    untimed = {k: v for k, v in body.items() if k != "time_control"}
    problem(client.post("/v1/ladders", json=untimed, headers=bearer(ADMIN)), 400, "invalid_body")
    assert client.get("/v1/ladders").get_json() == {"ladders": []}
    new_ladder(client)
    problem(client.post("/v1/ladders", json=body, headers=bearer(ADMIN)), 409, "ladder_exists")
    problem(client.post("/v1/ladders/duel/pause"), 401, "admin_token_required")
    problem(client.get("/v1/ladders/nope"), 404, "unknown_ladder")
    assert client.get("/v1/ladders/duel").get_json()["status"] == "open"


def test_joining_and_leaving_with_the_bot_key(client, app) -> None:
    new_ladder(client)
    name, key = _register(client, "")
    problem(client.post("/v1/ladders/duel/join"), 401, "authentication_required")
    joined = client.post("/v1/ladders/duel/join", headers=bearer(key)).get_json()
    assert joined == {
        "ladder": "duel",
        "bot": name,
        "active": True,
        "validated": False,
        "suspended": None,
        "playing": [],
    }
    problem(client.post("/v1/ladders/duel/join", headers=bearer(key)), 409, "already_joined")
    assert client.post("/v1/ladders/duel/leave", headers=bearer(key)).get_json()["active"] is False
    problem(client.post("/v1/ladders/duel/leave", headers=bearer(key)), 409, "not_joined")
    picky, picky_key = _register(client, "")
    client.patch("/v1/bots/me", json={"auto_accept": {"games": ["the-game"]}}, headers=bearer(picky_key))
    problem(client.post("/v1/ladders/duel/join", headers=bearer(picky_key)), 422, "game_not_accepted")
    assert client.get("/v1/ladders/duel").get_json()["members"] == 0


def test_a_new_bot_plays_a_validation_match_against_the_house_random_bot_first(client, app) -> None:
    new_ladder(client)
    name, key = _register(client, "")
    client.post("/v1/ladders/duel/join", headers=bearer(key))
    app.extensions["ladders"].tick()
    assert started(client, key) == []  # offline: not paired
    online(app, name)
    app.extensions["ladders"].tick()
    (event,) = started(client, key)
    assert event["validation"] is True and event["ladder"] == "duel" and event["opponents"] == ["house"]
    app.extensions["ladders"].tick()
    assert len(started(client, key)) == 1  # busy: not paired again
    match = client.get(f"/v1/matches/{event['match_id']}").get_json()
    assert match["house"] == [{"seat": 1 - event["seat"], "bot": "random"}]
    resign(client, event)
    assert app.extensions["ladders"].ladder("duel").live, "the end waits for the next pass"
    app.extensions["ladders"].tick()
    board = client.get("/v1/ladders/duel/leaderboard").get_json()
    (row,) = board["rows"]
    assert row["bot"] == name and row["games"] == 1 and row["wins"] == 0 and row["validated"] is True
    assert row["provisional"] is True and row["rating"] < 0
    finished = client.get("/v1/ladders/duel/matches").get_json()
    assert [m["match_id"] for m in finished["matches"]] == [event["match_id"]] and finished["live"] == []
    assert finished["matches"][0]["replay_url"] == f"/v1/matches/{event['match_id']}/replay"


def validated_bots(client: Any, app: Any, owners: list[str], **ladder: Any) -> list[tuple[str, str]]:
    """Bots of ``owners`` that joined a new ladder and passed their validation match (each
    resigned it: a result, not a fault), free and online, not yet paired with each other (the
    pass that applied the validations' ends ran while they were offline)."""
    new_ladder(client, **ladder)
    bots = [_register(client, owner) for owner in owners]
    for name, key in bots:
        client.post("/v1/ladders/duel/join", headers=bearer(key))
        online(app, name)
    app.extensions["ladders"].tick()
    for _, key in bots:
        (event,) = started(client, key)
        assert event["validation"] is True
        resign(client, event)
    for name, _ in bots:
        offline(app, name)
    app.extensions["ladders"].tick()
    for name, _ in bots:
        online(app, name)
    assert all(m.validated for m in app.extensions["ladders"].ladder("duel").members.values())
    return bots


def test_validated_bots_are_paired_and_each_match_is_rated_once(client, app) -> None:
    (a, a_key), (b, b_key) = validated_bots(client, app, ["", ""])
    ladders = app.extensions["ladders"]
    assert ladders.tick() == 1
    (match_id,) = ladders.ladder("duel").live
    event_a, event_b = started(client, a_key)[-1], started(client, b_key)[-1]
    assert event_a["match_id"] == event_b["match_id"] == match_id and event_a["validation"] is False
    assert event_a["opponents"] == [b] and event_b["opponents"] == [a] and {event_a["seat"], event_b["seat"]} == {0, 1}
    assert ladders.tick() == 0  # both busy (max_concurrent 1)
    resign(client, event_b)
    match, game = app.extensions["referee"].current(match_id)
    from service.match import Snapshot

    ladders.match_finished(match, Snapshot.of_match(game, match))  # heard twice: rated once
    ladders.tick()
    board = client.get("/v1/ladders/duel/leaderboard").get_json()
    assert [r["bot"] for r in board["rows"]] == [a, b] and board["ranked_by"] == "rating"
    top, bottom = board["rows"]
    assert (top["games"], top["wins"], bottom["games"], bottom["wins"]) == (2, 1, 2, 0)
    assert top["rating"] > bottom["rating"] and top["last_match"] == match_id and top["rank"] == 1
    mine = client.get(f"/v1/ladders/duel/matches?bot={b}").get_json()["matches"]
    assert len(mine) == 2 and mine[0]["match_id"] == match_id and mine[0]["bots"][event_b["seat"]] == b
    profile = client.get(f"/v1/bots/{a}").get_json()
    (rating,) = profile["ratings"]
    assert rating["ladder"] == "duel" and len(rating["history"]) == 2 and rating["games"] == 2


@pytest.mark.parametrize("same_owner", [False, True])
def test_two_bots_of_one_owner_meet_only_if_the_ladder_allows_it(client, app, same_owner: bool) -> None:
    validated_bots(client, app, ["ann", "ann"], same_owner=same_owner)
    assert app.extensions["ladders"].tick() == (1 if same_owner else 0)


def test_illegal_actions_count_once_and_suspend_past_the_threshold(client, app) -> None:
    (a, a_key), (b, b_key) = validated_bots(client, app, ["", ""], fault_threshold=1, cool_down_s=0)
    ladders = app.extensions["ladders"]
    ladders.tick()
    events_by_bot = {a: started(client, a_key)[-1], b: started(client, b_key)[-1]}
    match_id = events_by_bot[a]["match_id"]
    to_act = client.get(f"/v1/matches/{match_id}").get_json()["to_act"]
    cheat, fair = (a, b) if events_by_bot[a]["seat"] in to_act else (b, a)
    event = events_by_bot[cheat]
    match = client.get(f"/v1/matches/{match_id}", headers=bearer(event["seat_token"])).get_json()
    for _ in range(3):
        answer = client.post(
            f"/v1/matches/{match_id}/actions",
            json={"state_token": match["state_token"], "action": {"type": "take_all_the_gold"}},
            headers=bearer(event["seat_token"]),
        )
        assert answer.status_code == 422, answer.get_json()
    resign(client, event)
    ladders.tick()
    rows = {r["bot"]: r for r in client.get("/v1/ladders/duel/leaderboard").get_json()["rows"]}
    assert rows[cheat]["faults"] == {"illegal_action": 1} and rows[fair]["faults"] == {}
    assert rows[cheat]["suspended"] == "1 faults (illegal_action) in its last 10 matches"
    assert rows[fair]["suspended"] is None
    assert ladders.tick() == 0  # the cheat is suspended: the other waits alone
    cheat_key = a_key if cheat == a else b_key
    rejoined = client.post("/v1/ladders/duel/join", headers=bearer(cheat_key)).get_json()
    assert rejoined["suspended"] is None and rejoined["active"] is True
    ladders.now_ms = lambda: wall_ms() + 60_000  # a minute on, the window spans the winner and the loser
    assert ladders.tick() == 1


def test_a_suspended_bot_rejoins_only_after_the_cool_down(client, app) -> None:
    (a, a_key), (b, b_key) = validated_bots(client, app, ["", ""], fault_threshold=1, cool_down_s=3600)
    ladders = app.extensions["ladders"]
    ladders.tick()
    event = started(client, a_key)[-1]
    offline(app, a)
    match_id = event["match_id"]
    ladders.note_illegal(match_id, event["seat"])
    resign(client, event)
    ladders.tick()
    body = problem(client.post("/v1/ladders/duel/join", headers=bearer(a_key)), 409, "suspended")
    assert 3590 <= body["retry_after"] <= 3600
    profile = client.get(f"/v1/bots/{a}").get_json()
    assert profile["ratings"][0]["suspended"].startswith("1 faults (illegal_action)")


def test_a_match_whose_end_was_never_heard_is_rated_by_the_pairing_pass(client, app) -> None:
    (a, a_key), (b, b_key) = validated_bots(client, app, ["", ""])
    ladders, referee = app.extensions["ladders"], app.extensions["referee"]
    assert ladders.tick() == 1
    event = started(client, a_key)[-1]
    heard = referee.on_finished
    referee.on_finished = lambda match, snapshot: None  # the node that ended it died before its hook ran
    resign(client, event)
    referee.on_finished = heard
    assert ladders.ladder("duel").live, "nobody heard the end yet"
    ladders.now_ms = lambda: wall_ms() + 10_000
    ladders.tick()
    assert event["match_id"] not in ladders.ladder("duel").live
    rows = {r["bot"]: r for r in client.get("/v1/ladders/duel/leaderboard").get_json()["rows"]}
    assert rows[a]["games"] == rows[b]["games"] == 2 and rows[b]["wins"] == 1
    ladders.tick()  # looked at again: nothing counted twice
    assert client.get("/v1/ladders/duel/leaderboard").get_json()["rows"] == list(rows.values())


def test_the_game_is_ranked_by_mean_score_with_an_interval(client, app) -> None:
    new_ladder(client, game="the-game")
    name, key = _register(client, "")
    client.post("/v1/ladders/duel/join", headers=bearer(key))
    online(app, name)
    app.extensions["ladders"].tick()
    resign(client, started(client, key)[-1])
    app.extensions["ladders"].tick()
    board = client.get("/v1/ladders/duel/leaderboard").get_json()
    (row,) = board["rows"]
    assert board["ranked_by"] == "mean_score" and row["games"] == 1
    assert row["mean_score"] == 0 and row["interval"] == [0, 0] and "rating" not in row
