"""The per-process match cache: one round trip per move, and never a stale state applied.

Two apps over one store stand for two nodes (each has its own cache), on the SQLite file store
and on Redis; ``tests/e2e/test_two_nodes.py`` does the same with two server processes.
"""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from service import create_app
from service.cache.process import MatchCache
from service.store import FileStore, StoreUnavailable
from tests.support.http import MatchClient
from tests.support.stored import disagreement_with_log


class CountingStore:
    """A store that counts the calls made to it and can lose the reply of its next commit
    (the commit runs; the referee hears :class:`StoreUnavailable`)."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self.calls: list[str] = []
        self.lose_next_commit = False

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute):
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(name)
            result = attribute(*args, **kwargs)
            if name == "commit" and self.lose_next_commit:
                self.lose_next_commit = False
                raise StoreUnavailable("reply lost after the commit ran")
            return result

        return counted


@pytest.fixture
def nodes(app_config: dict[str, str]) -> tuple[Any, Any]:
    """Two apps sharing one store and secret, each with its own cache: two nodes."""
    return create_app(app_config), create_app(app_config)


def counting(app: Any) -> CountingStore:
    referee = app.extensions["referee"]
    referee.store = CountingStore(referee.store)
    return referee.store


def cache_of(app: Any) -> MatchCache:
    return app.extensions["referee"].cache


def on(client: Any, match: MatchClient) -> MatchClient:
    """The same match (same seat tokens) through another node."""
    return MatchClient(client, match.created)


def test_a_move_on_the_version_this_node_knows_is_one_store_call(client, app) -> None:
    match = MatchClient.create(client, "the-game", 1, seed="c1" * 32)
    token = match.created["state_token"]
    calls = counting(app)
    legal_actions = match.legal(0)["actions"]
    for _ in range(10):
        calls.calls.clear()
        response = match.act(0, token, legal_actions[0])
        assert response.status_code == 200, response.get_json()
        assert calls.calls == ["commit"], "the move read the match first"
        token, legal_actions = response.get_json()["state_token"], response.get_json()["legal_actions"]


def test_moves_alternating_between_nodes_match_one_node_playing_alone(nodes) -> None:
    """Every move lands on the other node than the one before: each node's cache is always
    behind, so nothing may be applied to what it cached. The match must be the one a single
    node plays with the same choices, version for version."""
    seed = "c2" * 32

    def play(clients: list[Any]) -> list[dict[str, Any]]:
        rng = random.Random(7)
        match = MatchClient.create(clients[0], "halunken-und-spelunken", 3, seed=seed)
        answers = []
        for turn in range(60):
            node = on(clients[turn % len(clients)], match)
            current = node.get()
            if current["status"] != "active":
                break
            seat = rng.choice(current["to_act"])
            legal = node.legal(seat)
            response = node.act(seat, legal["state_token"], rng.choice(legal["actions"]))
            assert response.status_code == 200, response.get_json()
            body = response.get_json()
            answers.append({k: body[k] for k in ("version", "view", "events", "to_act", "outcome")})
        return answers

    first, second = (app.test_client() for app in nodes)
    assert play([first, second]) == play([first])


def test_a_stale_hit_is_checked_again_on_the_current_record(nodes) -> None:
    """Node A caches version v; the seat moves on node B; a different move on A with the old
    token commits on A's stale record, the store refuses it and answers the current record,
    and A answers what a read would have: 409, with nothing applied."""
    node_a, node_b = (app.test_client() for app in nodes)
    match = MatchClient.create(node_a, "the-game", 1, seed="c3" * 32)
    legal = match.legal(0)  # A caches version 0
    on_b = on(node_b, match)
    assert on_b.act(0, legal["state_token"], legal["actions"][0]).status_code == 200

    other = match.act(0, legal["state_token"], legal["actions"][1])
    assert other.status_code == 409, other.get_json()
    assert other.get_json()["code"] == "stale_state_token"
    assert other.get_json()["current_version"] == 1
    assert match.get()["version"] == 1
    assert cache_of(nodes[0]).record(match.created["match_id"], 1) is not None, "A learnt version 1 from the refusal"


@pytest.mark.parametrize("key", [None, "cache-retry"], ids=["no-key", "idempotency-key"])
def test_a_retry_landing_on_a_node_with_a_stale_cache_gets_the_first_answer(nodes, key: str | None) -> None:
    node_a, node_b = (app.test_client() for app in nodes)
    match = MatchClient.create(node_a, "the-game", 2, seed="c4" * 32)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)  # A caches version 0
    headers = {"Idempotency-Key": key} if key else {}
    first = on(node_b, match).act(seat, legal["state_token"], legal["actions"][0], **headers)
    assert first.status_code == 200

    again = match.act(seat, legal["state_token"], legal["actions"][0], **headers)
    assert again.status_code == 200, again.get_json()
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert match.get()["version"] == 1, "applied once"


def test_a_refusal_is_decided_on_the_store_not_on_a_stale_cache(nodes) -> None:
    """An action that is illegal on A's stale record is not refused as illegal: a read shows
    the token is stale, which is what the client must hear (409, as without a cache)."""
    node_a, node_b = (app.test_client() for app in nodes)
    match = MatchClient.create(node_a, "the-game", 1, seed="c5" * 32)
    legal = match.legal(0)
    assert on(node_b, match).act(0, legal["state_token"], legal["actions"][0]).status_code == 200

    illegal = match.act(0, legal["state_token"], {"type": "play", "card": 1, "pile": 0})
    assert illegal.status_code == 409, illegal.get_json()
    assert illegal.get_json()["code"] == "stale_state_token"


def test_an_idempotency_key_reused_on_a_cache_hit_is_still_a_422(client, app) -> None:
    """The cached record says nothing about keys: the compare-and-set refuses a used key and
    answers the version it produced, so reuse is caught without a read."""
    match = MatchClient.create(client, "the-game", 1, seed="c6" * 32)
    legal = match.legal(0)
    first = match.act(0, legal["state_token"], legal["actions"][0], **{"Idempotency-Key": "k"})
    assert first.status_code == 200
    calls = counting(app)
    now = first.get_json()
    reused = match.act(0, now["state_token"], now["legal_actions"][0], **{"Idempotency-Key": "k"})
    assert reused.status_code == 422, reused.get_json()
    assert reused.get_json()["code"] == "idempotency_key_reused"
    assert calls.calls[0] == "commit", "the move was tried on the cached record"
    assert match.get()["version"] == 1


def test_simultaneous_decisions_on_two_nodes_both_count(nodes) -> None:
    """Halunken's secret cards: both seats decide on one version, each on its own node. The
    second commit is refused (the first moved the match on), checked again on the current
    record, where its token is still accepted, and committed: both decisions are kept."""
    node_a, node_b = (app.test_client() for app in nodes)
    match = MatchClient.create(node_a, "halunken-und-spelunken", 2, seed="11" * 32)
    rng = random.Random(1)
    for _ in range(50):
        current = match.get()
        if len(current["to_act"]) > 1:
            break
        seat = rng.choice(current["to_act"])
        legal = match.legal(seat)
        assert match.act(seat, legal["state_token"], rng.choice(legal["actions"])).status_code == 200
    else:
        pytest.fail("no simultaneous decision in 50 moves")
    first_seat, second_seat = current["to_act"][:2]
    on_b = on(node_b, match)
    decided_a, decided_b = match.legal(first_seat), on_b.legal(second_seat)  # both nodes cache version v
    version = current["version"]
    assert match.act(first_seat, decided_a["state_token"], rng.choice(decided_a["actions"])).status_code == 200
    stale_commits = _stale_count()
    second = on_b.act(second_seat, decided_b["state_token"], rng.choice(decided_b["actions"]))
    assert second.status_code == 200, second.get_json()
    assert second.get_json()["version"] == version + 2
    assert _stale_count() == stale_commits + 1, "B's hit was refuted and checked again"
    seats = [entry["seat"] for entry in on_b.client.get(f"{match.url}/history?cursor={version}").get_json()["entries"]]
    assert seats == [first_seat, second_seat]


def _stale_count() -> float:
    from service.api import metrics

    return metrics.MATCH_CACHE.labels("stale")._value.get()


def test_a_commit_whose_outcome_is_unknown_leaves_nothing_cached(client, app) -> None:
    match = MatchClient.create(client, "the-game", 1, seed="c7" * 32)
    match_id = match.created["match_id"]
    legal = match.legal(0)
    counting(app).lose_next_commit = True
    lost = match.act(0, legal["state_token"], legal["actions"][0])
    assert lost.status_code == 503
    cache = cache_of(app)
    assert cache.record(match_id, 0) is None and cache.record(match_id, 1) is None
    again = match.act(0, legal["state_token"], legal["actions"][0])
    assert again.status_code == 200 and again.get_json()["version"] == 1


def test_matches_never_share_an_entry(client, app) -> None:
    """Two matches at the same version: each move commits on its own match's record."""
    first = MatchClient.create(client, "the-game", 1, seed="c8" * 32)
    second = MatchClient.create(client, "the-game", 1, seed="c9" * 32)
    for match in (first, second, first, second):
        legal = match.legal(0)
        response = match.act(0, legal["state_token"], legal["actions"][0])
        assert response.status_code == 200
        assert response.get_json()["view"] == match.get(0)["view"]
    assert first.get(0)["view"] != second.get(0)["view"]


def test_the_cache_can_be_turned_off(app_config: dict[str, str]) -> None:
    app = create_app({**app_config, "REFEREE_MATCH_CACHE_SIZE": "0"})
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 1, seed="ca" * 32)
    legal = match.legal(0)
    calls = counting(app)
    assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200
    assert calls.calls == ["load", "commit"]
    assert len(cache_of(app)) == 0


@pytest.mark.parametrize("store_kind", ["embedded"])
def test_a_record_the_store_lost_is_never_continued(nodes, app_config: dict[str, str], tmp_path) -> None:
    """The SQLite file put back from a backup while both nodes serve: the match is back at
    version 1, and node B plays it on to version 3 with other moves. Node A still caches the
    version 3 it committed before, and its client holds that version's state token: the move
    it sends is tried on A's lost record, which the store refuses (another record holds
    version 3), and decided on the store's. The match's state stays the one its log gives."""
    node_a, node_b = (app.test_client() for app in nodes)
    match = MatchClient.create(node_a, "the-game", 1, seed="cb" * 32)
    rng = random.Random(3)
    match.play(rng, 1)
    live, backup = Path(app_config["REFEREE_DB_PATH"]), tmp_path / "backup.sqlite3"
    _copy_sqlite(live, backup)
    lost = match.play(rng, 2)  # versions 2 and 3, which A caches
    assert lost["version"] == 3
    pending = match.legal(0)
    _copy_sqlite(backup, live)
    on_b = on(node_b, match)
    assert on_b.get()["version"] == 1
    legal = on_b.legal(0)
    other = [a for a in legal["actions"] if a not in pending["actions"]] or legal["actions"][::-1]
    assert on_b.act(0, legal["state_token"], other[0]).status_code == 200
    on_b.play(rng, 1)
    assert on_b.get()["version"] == 3
    stale_commits = _stale_count()
    answer = match.act(0, pending["state_token"], pending["actions"][0])  # through A
    assert answer.status_code in (200, 422), answer.get_json()
    assert _stale_count() == stale_commits + 1, "A's lost record was tried and refused by the store"
    store = FileStore(live)
    assert disagreement_with_log(store, match.created["match_id"]) is None
    store.close()


def _copy_sqlite(source: Path, target: Path) -> None:
    """Copy a SQLite database into another, live or not, in one transaction (SQLite's backup)."""
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
