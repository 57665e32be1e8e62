"""Matches stored before an engine renamed its state keys are still served: read, played on
to their end over HTTP, and replayed into documents that verify, on the file store and on
Redis.

Each game whose state keys changed keeps a frozen fixture beside its tests
(``tests/games/<game>/matches_stored_with_old_keys.json``): one match stopped mid-play, with
decisions open and follow-up steps queued, and one finished match, both written by the referee
before the rename. ``tests/games/<game>/test_state_upgrade.py`` checks the upgrade itself.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import redis

from service import create_app
from service.replay.document import TrustedKeys, verify
from tests.support.frozen import SECRET, FrozenMatch, frozen_matches
from tests.support.http import MatchClient
from tests.support.replays import fetch_replay

GAMES = Path(__file__).resolve().parents[1] / "games"
FROZEN = [m for path in sorted(GAMES.glob("*/matches_stored_with_old_keys.json")) for m in frozen_matches(path)]


@pytest.fixture(params=FROZEN, ids=[f"{m.game}-{m.status}" for m in FROZEN])
def frozen(request: pytest.FixtureRequest) -> FrozenMatch:
    return request.param


@pytest.fixture
def restored_client(app_config: dict[str, str], frozen: FrozenMatch) -> Iterator[MatchClient]:
    """A client of an app whose store holds the frozen match, as its earlier referee wrote it."""
    assert app_config["REFEREE_SECRET"] == SECRET, "the frozen seat tokens were minted with this secret"
    app = create_app(app_config)
    raw = redis.Redis.from_url(app_config["REDIS_URL"]) if app_config["REDIS_URL"] else None

    def forget() -> None:
        if raw is not None:
            for key in raw.scan_iter(f"m:{{{frozen.match_id}}}*"):
                raw.delete(key)

    forget()
    frozen.restore(app.extensions["referee"].store)
    seats = [{"seat": seat, "token": token} for seat, token in enumerate(frozen.seat_tokens)]
    yield MatchClient(app.test_client(), {"match_id": frozen.match_id, "seats": seats})
    forget()


@pytest.mark.parametrize("store_kind", ["embedded", "redis"])
def test_a_match_stored_with_old_keys_plays_to_its_end_and_its_replay_verifies(
    restored_client: MatchClient, frozen: FrozenMatch
) -> None:
    match = restored_client
    body = match.get()
    assert (body["game"], body["version"], body["status"]) == (frozen.game, frozen.version, frozen.status)
    for seat in body["to_act"]:
        assert match.legal(seat)["actions"], "a seat that owes a decision has legal actions"
    final = match.play_to_end(random.Random(frozen.match_id))
    assert final["status"] == "finished" and final["version"] >= frozen.version
    replay = fetch_replay(match.client, match)
    keys = match.client.get("/v1/keys").get_json()
    verified = verify(replay, TrustedKeys.parse(orjson.dumps(keys).decode()))
    assert verified.outcome == final["outcome"] and replay["version"] == final["version"]
    history = match.client.get(f"{match.url}/history?limit=5").get_json()
    assert [e["version"] for e in history["entries"]] == [1, 2, 3, 4, 5], "the old moves are still in the log"
