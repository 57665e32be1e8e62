"""``GET /v1/matches``: the listing of recent matches, on the file store and on Redis."""

from __future__ import annotations

from typing import Any

import pytest

from service.clock import wall_ms
from tests.support.http import PROBLEM_JSON, MatchClient
from tests.support.replays import play_finished


class FakeNow:
    """The referee's and the listing's "now" in epoch ms, moved by the test."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def now(app: Any) -> FakeNow:
    """One clock for the moves (their ``updated_at``) and the listing (its window), starting a
    second behind the wall clock, so the matches of this test are recent matches like any
    other (Redis reads its index from the wall clock's hour back)."""
    fake = FakeNow(wall_ms() - 1000)
    app.extensions["referee"].now_ms = fake
    app.extensions["listing"].now_ms = fake
    return fake


def listing(client, until: set[str], **query: object) -> list[dict]:
    """The pages of the listing of ``query``, following ``next_cursor`` until every match of
    ``until`` was listed (the store may hold many older matches of other tests) or the end."""
    pages, cursor, missing = [], None, set(until)
    while True:
        response = client.get("/v1/matches", query_string={**query, **({"cursor": cursor} if cursor else {})})
        assert response.status_code == 200, response.get_json()
        body = response.get_json()
        assert len(body["matches"]) <= query.get("limit", 20)
        pages.append(body["matches"])
        missing -= {m["match_id"] for m in body["matches"]}
        cursor = body["next_cursor"]
        if cursor is None or not missing:
            return pages


def created_apart(client, now: FakeNow, game: str, players: int, count: int) -> list[MatchClient]:
    """``count`` matches, each created a millisecond after the one before: the listing orders
    matches updated in the same millisecond by id, not by creation."""
    created = []
    for _ in range(count):
        now.ms += 1
        created.append(MatchClient.create(client, game, players))
    return created


def test_matches_are_listed_newest_first_across_pages(client, now: FakeNow) -> None:
    created = created_apart(client, now, "esploratore", 2, 5)
    moved = created[1]
    now.ms += 1  # the move, too, a millisecond after the last creation
    legal = moved.legal(moved.created["to_act"][0])
    assert moved.act(legal["seat"], legal["state_token"], legal["actions"][0]).status_code == 200

    ours = {m.created["match_id"] for m in created}
    entries = [m for page in listing(client, ours, game="esploratore", limit=2) for m in page]
    ids = [m["match_id"] for m in entries if m["match_id"] in ours]
    assert ids == [created[i].created["match_id"] for i in (1, 4, 3, 2, 0)], "a move lists a match first again"
    assert len({m["match_id"] for m in entries}) == len(entries), "no match on two pages"
    first = entries[[m["match_id"] for m in entries].index(moved.created["match_id"])]
    assert first == {
        "match_id": moved.created["match_id"],
        "game": "esploratore",
        "players": 2,
        "status": "active",
        "version": 1,
        "to_act": first["to_act"],
        "created_at": moved.created["created_at"],
        "updated_at": first["updated_at"],
        "winners": None,
        "clock": None,
        "house": [],
    }
    assert first["updated_at"] > first["created_at"]
    stamps = [m["updated_at"] for m in entries]
    assert stamps == sorted(stamps, reverse=True)


def test_a_match_leaves_the_listing_a_window_after_its_last_move(app, client, now: FakeNow) -> None:
    """README: a match stays listed for ``REFEREE_LISTING_WINDOW`` (a day) after its last move,
    then leaves the listing; it can still be read by its id."""
    match = MatchClient.create(client, "the-game", 1)
    match_id = match.created["match_id"]

    def listed() -> bool:
        return any(match_id == m["match_id"] for page in listing(client, {match_id}, game="the-game") for m in page)

    now.ms += app.extensions["listing"].window_seconds * 1000
    assert listed(), "a whole window after its last move it is still listed"
    now.ms += 1
    assert not listed(), "a millisecond later it has left the listing"
    assert match.get()["match_id"] == match_id


def test_filters_by_game_and_status(client) -> None:
    finished = play_finished(client, "the-game", seed=7)
    running = MatchClient.create(client, "the-game", 1)
    other = MatchClient.create(client, "esploratore", 2)

    pages = listing(client, {finished.created["match_id"]}, game="the-game", status="finished")
    done = [m for page in pages for m in page]
    assert finished.created["match_id"] in {m["match_id"] for m in done}
    assert {m["status"] for m in done} == {"finished"} and {m["game"] for m in done} == {"the-game"}
    entry = next(m for m in done if m["match_id"] == finished.created["match_id"])
    assert entry["winners"] == finished.get()["outcome"]["winners"] and entry["to_act"] == []

    pages = listing(client, {running.created["match_id"]}, game="the-game", status="active")
    active = {m["match_id"] for page in pages for m in page}
    assert running.created["match_id"] in active and finished.created["match_id"] not in active
    assert other.created["match_id"] not in active
    ours = {finished.created["match_id"], running.created["match_id"], other.created["match_id"]}
    everything = {m["match_id"] for page in listing(client, ours, limit=100) for m in page}
    assert ours <= everything


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"status": "over"}, "status"),
        ({"limit": 0}, "limit"),
        ({"limit": 101}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
        ({"cursor": "MTIzLg"}, "cursor"),  # "123." : no match id
        ({"cursor": "é"}, "cursor"),
    ],
)
def test_bad_query_values_are_problems(client, query: dict, field: str) -> None:
    response = client.get("/v1/matches", query_string=query)
    assert response.status_code == 400
    assert response.mimetype == PROBLEM_JSON
    assert response.get_json()["code"] == "invalid_body"
    assert field in response.get_json()["errors"]["query"]


def test_an_unknown_game_is_not_found(client) -> None:
    response = client.get("/v1/matches", query_string={"game": "chess"})
    assert (response.status_code, response.mimetype, response.get_json()["code"]) == (404, PROBLEM_JSON, "unknown_game")


def test_a_match_whose_state_its_game_cannot_place_is_skipped_not_a_500(app, client, now: FakeNow) -> None:
    """A record that decodes but whose state the game cannot read (written by another
    version, or damaged) leaves the listing; the other matches are still listed."""
    from service.match import Match

    store = app.extensions["referee"].store
    kept, broken = created_apart(client, now, "isola-dei-vulcani", 2, 2)
    broken_id = broken.created["match_id"]
    loaded = store.load(broken_id)
    match = Match.decode(loaded.version, loaded.record, loaded.base)
    match.state = {"not": "an isola state"}
    assert store.commit(broken_id, loaded.version, match.encode(), b"{}", 600).committed

    ours = {kept.created["match_id"], broken_id}
    listed = {m["match_id"] for page in listing(client, ours, game="isola-dei-vulcani") for m in page}
    assert kept.created["match_id"] in listed and broken_id not in listed
