"""Replays and the signing key over HTTP, on the embedded store and on Redis."""

from __future__ import annotations

import random

import orjson
import pytest

from service import create_app
from service.games import games
from service.replay.document import ReplaySigner, TrustedKeys, verify
from tests.support.http import PROBLEM_JSON, MatchClient, auth
from tests.support.replays import TEST_REPLAY_KEY, fetch_replay, play_finished


def all_history(client, match: MatchClient, headers: dict[str, str] | None = None) -> list[dict]:
    entries, cursor = [], 0
    while cursor is not None:
        page = client.get(f"{match.url}/history?cursor={cursor}&limit=200", headers=headers or {}).get_json()
        entries.extend(page["entries"])
        cursor = page["next_cursor"]
    return entries


# A whole match per game; on the cluster tests/e2e/test_cluster.py plays every game.
@pytest.mark.parametrize("store_kind", ["embedded", "redis"])
@pytest.mark.parametrize("game_id", sorted(games()))
def test_anyone_downloads_a_replay_that_verifies_against_the_published_key(client, game_id: str) -> None:
    match = play_finished(client, game_id, seed=7)
    replay = fetch_replay(client, match)
    keys = client.get("/v1/keys").get_json()
    verified = verify(replay, TrustedKeys.parse(orjson.dumps(keys).decode()))
    assert verified.key_id == keys["keys"][0]["kid"] == replay["signature"]["key_id"]
    final = match.get()
    assert replay["match_id"] == final["match_id"] and replay["outcome"] == final["outcome"]
    assert replay["seed"] == final["seed"] and replay["version"] == final["version"]
    assert replay["options"] == final["options"] and replay["players"] == final["players"]
    seat_view = client.get(f"{match.url}/replay", headers=auth(match.tokens[0]))
    assert seat_view.get_json() == replay, "the replay is the same document for everyone"


def test_before_the_end_there_is_no_replay(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    response = client.get(f"{match.url}/replay")
    assert response.status_code == 409 and response.content_type == PROBLEM_JSON
    body = response.get_json()
    assert body["code"] == "match_not_finished" and body["current_version"] == 0
    assert "seed" not in str(body)
    missing = client.get("/v1/matches/nosuchmatch0/replay")
    assert missing.status_code == 404 and missing.get_json()["code"] == "unknown_match"


def test_the_history_is_unredacted_once_finished_and_equals_the_replay(client) -> None:
    """Halunken's secret movement cards are hidden from others while the match runs and
    turned over at the end, in the history as in the replay."""
    match = MatchClient.create(client, "halunken-und-spelunken", 2, seed="11" * 32)
    rng = random.Random(3)
    while True:
        hidden = [e for e in all_history(client, match) if e["action"].get("card", 0) is None]
        if hidden:
            break
        state = match.get()
        seat = rng.choice(state["to_act"])
        legal = match.legal(seat)
        assert match.act(seat, legal["state_token"], rng.choice(legal["actions"])).status_code == 200
    assert match.get()["status"] == "active"
    match.play_to_end(rng)
    spectator = all_history(client, match)
    assert not [e for e in spectator if e["action"].get("card", 0) is None]
    replay = fetch_replay(client, match)
    assert [{k: e[k] for k in ("version", "seat", "kind", "action", "events", "at")} for e in spectator] == replay[
        "actions"
    ]


def test_the_signing_key_is_the_same_on_every_node_and_can_be_set() -> None:
    base = {"REDIS_URL": "", "REFEREE_ACCESS_LOG": "0", "REFEREE_RATE_LIMIT": ""}

    def published(**config: str) -> dict:
        return create_app(base | config).test_client().get("/v1/keys").get_json()["keys"][0]

    node_a, node_b = published(REFEREE_SECRET="s1"), published(REFEREE_SECRET="s1")
    assert node_a == node_b and node_a != published(REFEREE_SECRET="s2")
    explicit = published(REFEREE_SECRET="s1", REFEREE_REPLAY_KEY=TEST_REPLAY_KEY)
    assert explicit["kid"] == ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY)).key_id
    assert explicit == published(REFEREE_SECRET="s2", REFEREE_REPLAY_KEY=TEST_REPLAY_KEY)
    assert {explicit["kty"], explicit["crv"], explicit["alg"], explicit["use"]} == {
        "OKP",
        "Ed25519",
        "EdDSA",
        "sig",
    }
    with pytest.raises(ValueError, match="REFEREE_REPLAY_KEY"):
        create_app(base | {"REFEREE_SECRET": "s1", "REFEREE_REPLAY_KEY": "not hex"})
