"""Whatever a client sends: a 400/422 problem+json, never a 500, and nothing malformed stored.

Each case is one the service once answered with a 500 or accepted as if it were well formed.
"""

from __future__ import annotations

import orjson
import pytest

from schemas.matches import MAX_CURSOR
from service.games import games
from tests.support.http import PROBLEM_JSON, MatchClient, auth


def problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.get_data()[:300]
    assert response.content_type == PROBLEM_JSON
    body = response.get_json()
    assert body["code"] == code, body
    return body


def post_raw(client, url: str, raw: bytes, token: str | None = None):
    headers = auth(token) if token else {}
    return client.post(url, data=raw, content_type="application/json", headers=headers)


def act_raw(match: MatchClient, seat: int, action_json: bytes):
    token = match.get()["state_token"]
    raw = b'{"state_token": "%s", "action": %s}' % (token.encode(), action_json)
    return post_raw(match.client, f"{match.url}/actions", raw, match.tokens[seat])


def nothing_stored(match: MatchClient) -> None:
    assert match.get()["version"] == 0
    history = match.client.get(f"{match.url}/history").get_json()
    assert history["total"] == 0 and history["entries"] == []


def test_booleans_and_floats_are_not_integers(client) -> None:
    """`{"card": 17.0, "pile": false}` was accepted as card 17 on pile 0, and 17.0 stored."""
    match = MatchClient.create(client, "the-game", 2, options={"first_seat": 0})
    seat = match.created["to_act"][0]
    legal = next(a for a in match.legal(seat)["actions"] if a["type"] == "play")
    for card, pile in [
        (float(legal["card"]), False),
        (legal["card"], float(legal["pile"])),
        (legal["card"], legal["pile"] == 1),
        (str(legal["card"]), legal["pile"]),
    ]:
        body = problem(
            match.act(seat, match.created["state_token"], {**legal, "card": card, "pile": pile}), 422, "bad_action"
        )
        assert "schema" in body["detail"]
    nothing_stored(match)


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_type_that_is_not_a_string_is_an_unknown_action_type(client, game_id: str) -> None:
    game = games()[game_id]
    match = MatchClient.create(client, game_id, game.min_players)
    seat = match.created["to_act"][0]
    for kind in [["play"], {"a": 1}, None, 1, True]:
        problem(match.act(seat, match.created["state_token"], {"type": kind}), 422, "unknown_action_type")
    checked = client.post(
        f"{match.url}/actions/validate",
        headers=auth(match.tokens[seat]),
        json={"state_token": match.created["state_token"], "action": {"type": ["play"]}},
    )
    assert checked.status_code == 200
    assert checked.get_json()["code"] == "unknown_action_type"
    nothing_stored(match)


@pytest.mark.parametrize(
    ("game_id", "action"),
    [
        ("esploratore", {"type": "build", "line": 1.0}),
        ("esploratore", {"type": "move", "vehicle": 0, "position": "earth", "line": True}),
        ("isola-dei-vulcani", {"type": "erect", "geyser": 0.0}),
        ("halunken-und-spelunken", {"type": "play", "card": 1.0}),
        ("halunken-und-spelunken", {"type": "place_captain", "space": False}),
        ("viaggio-al-centro-della-terra", {"type": "discover", "stars": [], "lamp": 0, "flexible": None}),
        ("the-game", {"type": "end_turn", "extra": 1}),
        ("the-game", {"type": "play", "card": 17}),
    ],
)
def test_fields_are_checked_against_the_action_schema_in_every_game(client, game_id: str, action: dict) -> None:
    match = MatchClient.create(client, game_id, 2)
    problem(match.act(match.created["to_act"][0], match.created["state_token"], action), 422, "bad_action")
    nothing_stored(match)


@pytest.mark.parametrize(
    "number",
    [
        b"18446744073709551616",
        b"1180591620717411303424",
        b"-18446744073709551617",
        b"18446744073709551615",
        b"1e300",
        b"-0.0",
    ],
)
def test_integers_beyond_64_bits_are_refused(client, number: bytes) -> None:
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    problem(act_raw(match, seat, b'{"type": "play", "card": %s, "pile": 0}' % number), 422, "bad_action")
    problem(post_raw(client, "/v1/matches", b'{"game": "the-game", "players": %s}' % number), 400, "invalid_body")
    options = b'{"game": "the-game", "players": 2, "options": {"first_seat": %s}}' % number
    problem(post_raw(client, "/v1/matches", options), 422, "invalid_option")
    nothing_stored(match)


def test_lone_surrogates_are_not_json(client) -> None:
    match = MatchClient.create(client, "esploratore", 2)
    seat = match.created["to_act"][0]
    problem(
        act_raw(match, seat, b'{"type": "play", "card": "\\ud800", "position": "earth", "flip": false}'),
        400,
        "invalid_json",
    )
    problem(act_raw(match, seat, b'{"type": "skip_play", "\\udfff": 1}'), 400, "invalid_json")
    problem(
        post_raw(client, "/v1/matches", b'{"game": "the-game", "players": 2, "options": {"\\ud800": 1}}'),
        400,
        "invalid_json",
    )
    problem(post_raw(client, "/v1/matches", b'{"game": "\\ud800", "players": 2}'), 400, "invalid_json")
    nothing_stored(match)


@pytest.mark.parametrize("depth", [33, 255, 256, 1_000, 5_000])
def test_deep_nesting_is_refused(client, depth: int) -> None:
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    nested = b"[" * depth + b"]" * depth
    problem(act_raw(match, seat, b'{"type": "end_turn", "x": %s}' % nested), 400, "invalid_json")
    problem(
        post_raw(client, "/v1/matches", b'{"game": "the-game", "players": 2, "options": {"x": %s}}' % nested),
        400,
        "invalid_json",
    )
    nothing_stored(match)


def test_shallow_nesting_still_reaches_the_schema(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    nested = b"[" * 20 + b"]" * 20
    problem(act_raw(match, match.created["to_act"][0], b'{"type": "end_turn", "x": %s}' % nested), 422, "bad_action")


@pytest.mark.parametrize("version", ["\u00b2", "\u0662", "01", "+0", "0 ", "0\n", "9" * 5_000, "-1", "0_0"])
def test_state_token_versions_must_be_canonical_ascii(client, version: str) -> None:
    match = MatchClient.create(client, "the-game", 2)
    seat = match.created["to_act"][0]
    match_id, _, mac = match.created["state_token"].split(".")
    body = orjson.dumps({"state_token": f"{match_id}.{version}.{mac}", "action": {"type": "end_turn"}})
    response = post_raw(client, f"{match.url}/actions", body, match.tokens[seat])
    # 5,000 digits are over the field's length limit (invalid_body) before the token is read.
    problem(response, 400, "invalid_body" if len(version) > 200 else "invalid_state_token")


@pytest.mark.parametrize("players", [2.5, 2.0, True, "2", 1e300])
def test_player_counts_are_integers_never_rounded(client, players) -> None:
    problem(client.post("/v1/matches", json={"game": "the-game", "players": players}), 400, "invalid_body")


@pytest.mark.parametrize("cursor", [str(2**63), str(2**64), str(MAX_CURSOR + 1), "-1", "1.0", "\u00b2"])
def test_history_cursors_are_bounded(client, cursor: str) -> None:
    """A cursor from 2^63 on was a 500 on Redis (LRANGE refuses it)."""
    match = MatchClient.create(client, "the-game", 2)
    problem(client.get(f"{match.url}/history", query_string={"cursor": cursor}), 400, "invalid_body")
    last = client.get(f"{match.url}/history", query_string={"cursor": str(MAX_CURSOR)})
    assert last.status_code == 200 and last.get_json()["entries"] == []


def test_a_missing_seat_token_is_named_before_a_bad_body(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    deep = b'{"state_token": "x", "action": {"type": "end_turn", "x": %s}}' % (b"[" * 100 + b"]" * 100)
    for path in ("/actions", "/actions/validate"):
        problem(post_raw(client, match.url + path, deep), 401, "authentication_required")
        problem(post_raw(client, match.url + path, b"{nope"), 401, "authentication_required")
