"""A move whose answer was lost is answered again, never refused: retries after a 503, after
a dropped connection, after the match moved on, during simultaneous decisions, with and
without an ``Idempotency-Key``, on the file store and on Redis.

Faults are injected between the store running the commit and the referee hearing of it
(:class:`LostReply`); ``tests/api/test_redis_outage.py`` does the same over HTTP with a proxy
that drops Redis's reply on the wire.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.store import StoreUnavailable
from tests.support.http import MatchClient

KEY_OR_NOT = pytest.mark.parametrize("key", [None, "retry-key-1"], ids=["no-key", "idempotency-key"])


class LostReply:
    """A store whose next commits run but whose replies are lost.

    ``drop`` commits answer :class:`StoreUnavailable` after they were applied (a reply lost
    for good: the client sees a 503); with ``resend`` the commit is also sent a second time,
    as a store client does after a dropped connection, and that second reply is returned.
    """

    def __init__(self, store: Any) -> None:
        self._store = store
        self.drop = 0
        self.resend = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def commit(self, *args: Any, **kwargs: Any) -> Any:
        result = self._store.commit(*args, **kwargs)
        if self.resend:
            self.resend -= 1
            return self._store.commit(*args, **kwargs)
        if self.drop:
            self.drop -= 1
            raise StoreUnavailable("reply lost after the commit ran")
        return result


@pytest.fixture
def lossy(app) -> LostReply:
    referee = app.extensions["referee"]
    referee.store = LostReply(referee.store)
    return referee.store


def headers_for(key: str | None) -> dict[str, str]:
    return {"Idempotency-Key": key} if key else {}


def play_some(match: MatchClient, rng: random.Random, moves: int) -> None:
    """``moves`` random legal moves by whichever seats owe one."""
    for _ in range(moves):
        current = match.get()
        if current["status"] != "active":
            return
        seat = rng.choice(current["to_act"])
        legal = match.legal(seat)
        assert match.act(seat, legal["state_token"], rng.choice(legal["actions"])).status_code == 200


@KEY_OR_NOT
def test_a_retry_after_a_503_whose_commit_ran_gets_the_answer(client, lossy: LostReply, key: str | None) -> None:
    match = MatchClient.create(client, "the-game", 2, seed="a1" * 32)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    action = legal["actions"][0]

    lossy.drop = 1
    lost = match.act(seat, legal["state_token"], action, **headers_for(key))
    assert lost.status_code == 503, "the referee cannot know the move was applied"

    retried = match.act(seat, legal["state_token"], action, **headers_for(key))
    assert retried.status_code == 200, retried.get_json()
    assert retried.headers["Idempotent-Replayed"] == "true"
    body = retried.get_json()
    now = match.get(seat)
    assert body["version"] == now["version"] == 1
    assert body["state_token"] == now["state_token"]
    assert body["view"] == now["view"]
    assert body["legal_actions"] == match.legal(seat)["actions"]
    assert client.get(f"{match.url}/history").get_json()["total"] == 1, "the move was applied once"


@KEY_OR_NOT
def test_a_commit_resent_by_the_store_client_is_not_a_409(client, lossy: LostReply, key: str | None) -> None:
    match = MatchClient.create(client, "the-game", 1, seed="a2" * 32)
    legal = match.legal(0)
    lossy.resend = 1
    response = match.act(0, legal["state_token"], legal["actions"][0], **headers_for(key))
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["version"] == 1
    assert match.get()["version"] == 1


@KEY_OR_NOT
def test_a_retry_after_the_match_moved_on_gets_the_original_answer(client, key: str | None) -> None:
    """The first answer was lost on the way back (the client saw the connection drop); by
    the time it retries, other moves were made: the answer is rebuilt by replaying the log."""
    match = MatchClient.create(client, "the-game", 2, seed="a3" * 32)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    action = legal["actions"][-1]
    first = match.act(seat, legal["state_token"], action, **headers_for(key))
    assert first.status_code == 200
    play_some(match, random.Random(3), 6)
    assert match.get()["version"] >= 4

    again = match.act(seat, legal["state_token"], action, **headers_for(key))
    assert again.status_code == 200, again.get_json()
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"


def test_a_retry_during_simultaneous_decisions_is_found_past_other_seats_moves(client) -> None:
    """Halunken's secret movement cards: both seats decide on the same version; the first
    seat's retry comes after the second seat's move, so its token is two versions old."""
    match = MatchClient.create(client, "halunken-und-spelunken", 2, seed="11" * 32)
    rng = random.Random(1)
    for _ in range(50):
        current = match.get()
        if len(current["to_act"]) > 1:
            break
        play_some(match, rng, 1)
    else:
        pytest.fail("no simultaneous decision in 50 moves")
    first_seat, second_seat = current["to_act"][:2]
    decided = match.legal(first_seat)
    action = rng.choice(decided["actions"])
    first = match.act(first_seat, decided["state_token"], action)
    assert first.status_code == 200
    other = match.legal(second_seat)
    assert match.act(second_seat, decided["state_token"], rng.choice(other["actions"])).status_code == 200

    again = match.act(first_seat, decided["state_token"], action)
    assert again.status_code == 200, again.get_json()
    assert again.get_json() == first.get_json()


def test_a_different_request_on_a_stale_token_is_still_a_409(client) -> None:
    match = MatchClient.create(client, "the-game", 1, seed="a4" * 32)
    legal = match.legal(0)
    assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200
    other = match.act(0, legal["state_token"], legal["actions"][1])
    assert other.status_code == 409
    assert other.get_json()["code"] == "stale_state_token"


def test_another_seat_sending_the_same_request_is_not_answered_for_it(client) -> None:
    """The log entry names the seat: seat 1 repeating seat 0's request is refused, and never
    sees seat 0's answer (its hand)."""
    match = MatchClient.create(client, "the-game", 2, seed="a5" * 32)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    assert match.act(seat, legal["state_token"], legal["actions"][0]).status_code == 200
    intruder = match.act(1 - seat, legal["state_token"], legal["actions"][0])
    assert intruder.status_code in (403, 409)
    assert "view" not in intruder.get_json()


def test_an_idempotency_key_reused_for_another_request_is_a_422(client) -> None:
    match = MatchClient.create(client, "the-game", 1, seed="a6" * 32)
    legal = match.legal(0)
    assert match.act(0, legal["state_token"], legal["actions"][0], **{"Idempotency-Key": "k"}).status_code == 200
    now = match.legal(0)
    reused = match.act(0, now["state_token"], now["actions"][0], **{"Idempotency-Key": "k"})
    assert reused.status_code == 422
    assert reused.get_json()["code"] == "idempotency_key_reused"


@pytest.mark.parametrize("store_kind", ["redis"])
def test_kept_idempotency_keys_are_small_beside_the_log(client, redis_url: str) -> None:
    """Keyed moves keep key -> version, not their answers: on Redis the match's idempotency
    keys take about 24 bytes per keyed move, key overhead included (they took 5-30 times the
    log when whole answers were kept), and they expire with the match."""
    import redis as redis_py

    match = MatchClient.create(client, "the-game", 1, seed="a7" * 32)
    keyed = 0
    for i in range(30):
        legal = match.legal(0)
        if not legal["actions"]:
            break
        response = match.act(0, legal["state_token"], legal["actions"][0], **{"Idempotency-Key": f"move-{i}"})
        assert response.status_code == 200
        keyed += 1
        if response.get_json()["status"] != "active":
            break
    raw = redis_py.Redis.from_url(redis_url)
    match_id = match.created["match_id"]
    keys = [k.decode() for k in raw.scan_iter(f"m:{{{match_id}}}*")]
    log_key = f"m:{{{match_id}}}:log"
    idempotency = sum(raw.memory_usage(k, samples=0) for k in keys if k not in (log_key, f"m:{{{match_id}}}"))
    assert idempotency < 32 * keyed, (idempotency, keyed)
    match_ttl = raw.ttl(f"m:{{{match_id}}}")
    assert all(abs(raw.ttl(k) - match_ttl) <= 1 for k in keys)
