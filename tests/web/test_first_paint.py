"""The pages as the server renders them, before any script runs (and all a browser without
JavaScript shows): the landing page lists the matches, the watch page says what the match is,
who plays, whose turn it is and how it ended; only what a spectator may read, escaped."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest

from service.bots.registry import levels_of
from service.games import games


@pytest.fixture
def store_kind() -> str:
    """The pages read what the API reads; one store is enough (and the embedded one lists
    only this test's matches)."""
    return "embedded"


def create(client: Any, game: str = "the-game", players: int = 2, **extra: Any) -> dict[str, Any]:
    created = client.post("/v1/matches", json={"game": game, "players": players, **extra})
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def text_of(page: str, element_id: str) -> str:
    """The text inside the element with this id (tags dropped, entities decoded, spaces joined)."""
    found = re.search(rf'<(\w+)[^>]* id="{element_id}"[^>]*>(.*?)</\1>', page, re.S)
    assert found, element_id
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(2))).split())


def test_the_landing_page_lists_the_matches_without_a_script(client: Any) -> None:
    solo = create(client, "the-game", 1, house=[])
    duel = create(client, "halunken-und-spelunken", 2, house=[{"seat": 1, "bot": "random"}])
    page = client.get("/").get_data(as_text=True)
    rows = text_of(page, "matches")
    assert "Halunken und Spelunken 2 (1 house) active (Seat 0 to act) 0" in rows
    assert "The Game 1 active (Seat 0 to act) 0" in rows
    assert f'href="/watch/{duel["match_id"]}"' in page and f'href="/watch/{solo["match_id"]}"' in page
    assert re.search(r'<p id="listing-state" hidden>', page)
    assert '<table id="matches">' in page  # shown
    assert "<noscript>" in page


def test_an_empty_listing_says_so(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    assert text_of(page, "listing-state") == "No matches yet: start one below."
    assert '<table id="matches" hidden>' in page


def test_older_matches_are_a_link_to_the_next_page(client: Any) -> None:
    made = [create(client)["match_id"] for _ in range(21)]
    first = client.get("/").get_data(as_text=True)
    (cursor,) = [html.unescape(found) for found in re.findall(r'<a id="more" href="/\?cursor=([^"]+)"', first)]
    second = client.get(f"/?cursor={cursor}").get_data(as_text=True)
    rows = re.compile(r'<tr data-match-id="([^"]+)"')
    assert len(rows.findall(first)) == 20 and rows.findall(second) == [made[0]]  # the oldest, alone on page two
    assert re.search(r'<a id="more" href="[^"]*" hidden>', second)


def test_the_house_bots_offered_are_the_registrys_for_each_game(client: Any) -> None:
    page = client.get("/").get_data(as_text=True)
    offered = json.loads(html.unescape(re.search(r"data-bots='([^']*)'", page).group(1)))
    assert offered == {game_id: list(levels_of(game_id)) for game_id in games()}


def test_the_watch_page_says_whose_turn_it_is_without_a_script(client: Any) -> None:
    match = create(client, "halunken-und-spelunken", 3, house=[{"seat": 2, "bot": "heuristic"}])
    page = client.get(f"/watch/{match['match_id']}").get_data(as_text=True)
    assert text_of(page, "title") == f"Halunken und Spelunken · match {match['match_id']} · version 0"
    assert text_of(page, "turn") == "To act: Seat 0."
    assert text_of(page, "seats") == "Seat 0 Seat 1 Seat 2 house bot: heuristic"
    assert '<tr data-seat="0" class="to-act">' in page
    assert '<section id="outcome" hidden' in page
    assert "<noscript>" in page


def test_the_watch_page_of_an_ended_match_shows_its_outcome(client: Any) -> None:
    match = create(client, "the-game", 2)
    token = match["seats"][1]["token"]
    assert (
        client.post(f"/v1/matches/{match['match_id']}/resign", headers={"Authorization": f"Bearer {token}"}).status_code
        == 200
    )
    body = client.get(f"/v1/matches/{match['match_id']}").get_json()
    page = client.get(f"/watch/{match['match_id']}").get_data(as_text=True)
    assert text_of(page, "turn") == "The match is over."
    outcome = text_of(page, "outcome")
    assert "Winners: nobody." in outcome  # cooperative: a resignation loses the table
    assert "How it ended: resigned." in outcome
    assert f"Seed, revealed: {body['seed']}" in outcome and body["seed_sha256"] in outcome
    assert text_of(page, "seats") == "Seat 0 0 · rank 1 Seat 1 0 · rank 2"


def test_the_watch_page_never_carries_a_seats_secrets(client: Any) -> None:
    match = create(client, "the-game", 2)
    page = client.get(f"/watch/{match['match_id']}").get_data(as_text=True)
    for seat in match["seats"]:
        assert seat["token"] not in page
    assert match["state_token"] not in page
    assert "hand" not in text_of(page, "side").lower()


def test_an_unknown_match_is_a_404_page_that_says_so(client: Any) -> None:
    response = client.get("/watch/AAAAAAAAAAAAAAAAAAAAAA")
    assert response.status_code == 404 and response.content_type.startswith("text/html")
    page = response.get_data(as_text=True)
    assert "(unknown_match)" in text_of(page, "problem")
    assert '<div id="problem" role="alert">' in page  # shown


@pytest.mark.parametrize("where", ["/", "/watch/{match_id}"])
def test_names_are_escaped(client: Any, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    match = create(client, "the-game", 2)
    monkeypatch.setattr(type(games()["the-game"]), "title", '<img src=x onerror="alert(1)">The Game')
    page = client.get(where.format(match_id=match["match_id"])).get_data(as_text=True)
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;The Game" in page
