"""The replay of every kind of finished match fits the committed OpenAPI document's ``Replay``
schema, and verifies from its bytes: ended by its rules, by a resignation, by a forfeit on
time, after moves the referee played on time (``auto``), and with house seats."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from jsonschema_rs import Draft202012Validator

from service import create_app
from service.replay.document import ReplaySigner, TrustedKeys, load, verify
from tests.support.http import MatchClient
from tests.support.replays import TEST_REPLAY_KEY, play_finished

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
TRUSTED = TrustedKeys([ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY)).public_key])
T0 = 1_800_000_000_000


class FakeNow:
    def __init__(self) -> None:
        self.ms = T0

    def __call__(self) -> int:
        return self.ms


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    """jsonschema-rs, not jsonschema. Neither reads OpenAPI's ``discriminator``, so every entry of
    a long match is checked against all five games' variants of ``Replay``'s ``oneOf``: 18 s for
    a Viaggio replay with the pure-Python validator, about 2 s with this one."""
    spec = orjson.loads(COMMITTED.read_bytes())
    return Draft202012Validator({"$ref": "#/components/schemas/Replay", "components": spec["components"]})


@pytest.fixture
def served() -> tuple[Any, FakeNow]:
    """A client of an app on the embedded store whose clock the test moves, playing house
    turns before it answers."""
    app = create_app(
        {
            "REDIS_URL": "",
            "REFEREE_SECRET": "test-secret",
            "REFEREE_RATE_LIMIT": "",
            "REFEREE_ACCESS_LOG": "0",
            "REFEREE_REPLAY_KEY": TEST_REPLAY_KEY,
            "REFEREE_SWEEPER": "0",
        }
    )
    now = FakeNow()
    referee = app.extensions["referee"]
    referee.now_ms = now
    referee.house.spawn = lambda work: work()
    return app.test_client(), now


def by_rules(client: Any, now: FakeNow) -> MatchClient:
    return play_finished(client, "viaggio-al-centro-della-terra", seed=2)


def resigned(client: Any, now: FakeNow) -> MatchClient:
    match = MatchClient.create(client, "halunken-und-spelunken", 3)
    match.play(random.Random(1), 5)
    assert match.post("resign", 2).status_code == 200
    return match


def forfeited(client: Any, now: FakeNow) -> MatchClient:
    match = MatchClient.create(client, "isola-dei-vulcani", 2, clock={"per_decision_s": 5})
    match.play(random.Random(1), 3)
    now.ms += 60_000
    return match


def auto_then_forfeited(client: Any, now: FakeNow) -> MatchClient:
    clock = {"initial_s": 2, "increment_s": 1, "on_timeout": "auto", "max_consecutive_timeouts": 2}
    match = MatchClient.create(client, "esploratore", 2, clock=clock)
    now.ms += 600_000
    return match


def exhibition(client: Any, now: FakeNow) -> MatchClient:
    house = [{"seat": 0, "bot": "heuristic"}, {"seat": 1, "bot": "random"}]
    return MatchClient.create(client, "the-game", 2, house=house)


def house_and_a_person(client: Any, now: FakeNow) -> MatchClient:
    match = MatchClient.create(client, "halunken-und-spelunken", 2, house=[{"seat": 1, "bot": "heuristic"}])
    rng = random.Random(3)
    while match.get()["status"] == "active":
        legal = match.legal(0)
        assert match.act(0, legal["state_token"], rng.choice(legal["actions"])).status_code == 200
    return match


KINDS: dict[str, Callable[[Any, FakeNow], MatchClient]] = {
    "rules": by_rules,
    "resign": resigned,
    "timeout": forfeited,
    "auto": auto_then_forfeited,
    "house": exhibition,
    "house-and-move": house_and_a_person,
}


@pytest.mark.parametrize("ending", sorted(KINDS))
def test_every_kind_of_finished_match_has_a_replay_that_fits_the_committed_schema(
    served, validator: Draft202012Validator, ending: str
) -> None:
    client, now = served
    match = KINDS[ending](client, now)
    assert match.get()["status"] == "finished"
    response = client.get(f"{match.url}/replay")
    assert response.status_code == 200, response.get_json()
    errors = sorted(validator.iter_errors(response.get_json()), key=lambda e: e.instance_path)
    assert not errors, [f"{e.instance_path}: {e.message[:200]}" for e in errors[:3]]
    document = load(response.data)
    verified = verify(document, TRUSTED)
    assert verified.warnings == ()
    kinds = {entry["kind"] for entry in document["actions"]}
    expected = {
        "rules": {"move"},
        "resign": {"resign"},
        "timeout": {"timeout"},
        "auto": {"auto", "timeout"},
        "house": {"house"},
        "house-and-move": {"house", "move"},
    }[ending]
    assert expected <= kinds, kinds


def test_an_aborted_match_has_no_replay(served) -> None:
    client, _ = served
    match = MatchClient.create(client, "the-game", 2)
    assert match.post("abort", 0).status_code == 200
    response = client.get(f"{match.url}/replay")
    assert response.status_code == 409 and response.get_json()["code"] == "match_aborted"
