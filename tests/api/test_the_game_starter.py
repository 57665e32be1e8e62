"""The Game over HTTP: the seats agree on who starts before the first card, in public."""

from __future__ import annotations

from tests.support.http import MatchClient
from tests.support.the_game import agree_over_http


def test_seats_agree_on_the_starter_then_the_starter_plays(client) -> None:
    match = MatchClient.create(client, "the-game", 3)
    assert match.created["to_act"] == [0]
    assert {a["type"] for a in match.legal(0)["actions"]} == {"propose_starter"}
    body = agree_over_http(match, starter=2)
    assert body["to_act"] == [2] and body["version"] == 3 and body["view"]["turn"] == 2
    history = client.get(f"{match.url}/history").get_json()["entries"]
    assert [e["action"] for e in history] == [
        {"type": "propose_starter", "seat": 2},
        {"type": "accept_starter"},
        {"type": "accept_starter"},
    ]
    legal = match.legal(2)
    assert {a["type"] for a in legal["actions"]} == {"play"}
    assert match.act(2, legal["state_token"], legal["actions"][0]).status_code == 200


def test_a_solo_match_starts_at_once(client) -> None:
    match = MatchClient.create(client, "the-game", 1)
    assert {a["type"] for a in match.legal(0)["actions"]} == {"play"}
