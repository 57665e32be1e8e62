"""The pages in headless Chromium: what they show with JavaScript off, that the script's first
drawing says what the server's first paint said, headings that stand out from the text, and
Viaggio's crater label clear of the explorers at the start."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import TIMEOUT_MS, WatchPage
from tests.support.http import WireClient
from tests.support.servers import Server

pytestmark = pytest.mark.browser


@pytest.fixture
def no_script(browser: Any, web_server: Server) -> Iterator[Any]:
    """A tab with JavaScript off."""
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    yield page
    context.close()


def create(api: WireClient, game: str, players: int, **extra: Any) -> dict[str, Any]:
    created = api.post("/v1/matches", json={"game": game, "players": players, **extra})
    assert created.status_code == 201, created.get_json()
    return created.get_json()


def test_without_javascript_the_landing_page_lists_matches(api: WireClient, no_script: Any, web_server: Server) -> None:
    match = create(api, "isola-dei-vulcani", 2)
    no_script.goto(f"{web_server.client.base_url}/")
    row = no_script.locator(f"#matches tr[data-match-id='{match['match_id']}']")
    assert row.is_visible()
    to_act = f"active (Seat {match['to_act'][0]} to act)"
    assert row.inner_text().split("\t")[:3] == ["L'Isola dei Vulcani", "2", to_act]
    assert "JavaScript is off" in no_script.inner_text("body")
    assert no_script.is_disabled("#start button[type=submit]")  # the form needs the script


def test_without_javascript_the_watch_page_summarises_the_match(
    api: WireClient, no_script: Any, web_server: Server
) -> None:
    # Halunken's captains are placed from seat 0 on: the house seat waits its turn.
    match = create(api, "halunken-und-spelunken", 3, house=[{"seat": 2, "bot": "random"}])
    no_script.goto(f"{web_server.client.base_url}/watch/{match['match_id']}")
    assert no_script.inner_text("#turn") == "To act: Seat 0."
    assert no_script.inner_text("#title") == f"Halunken und Spelunken · match {match['match_id']} · version 0"
    rows = no_script.locator("#seats tr")
    assert rows.count() == 3 and "house bot: random" in rows.nth(2).inner_text()
    assert "JavaScript is off" in no_script.inner_text("body")


def test_the_script_draws_the_same_words_as_the_first_paint(api: WireClient, watch: WatchPage, no_script: Any) -> None:
    match = create(api, "viaggio-al-centro-della-terra", 2)
    no_script.goto(f"{watch.base_url}/watch/{match['match_id']}")
    painted = {part: no_script.inner_text(part) for part in ("#title", "#turn", "#seats")}
    watch.open(match["match_id"])
    watch.page.wait_for_function("t => document.querySelector('#title').textContent === t", arg=painted["#title"])
    assert {part: watch.text(part) for part in painted} == painted


def font_px(page: Any, selector: str) -> float:
    return float(page.eval_on_selector(selector, "n => parseFloat(getComputedStyle(n).fontSize)"))


def test_headings_are_larger_than_the_text(api: WireClient, watch: WatchPage) -> None:
    page = watch.page
    page.goto(f"{watch.base_url}/")
    body = font_px(page, "body > p")
    assert font_px(page, "h1") > font_px(page, "h2") > body * 1.2
    match = create(api, "the-game", 2)
    watch.open(match["match_id"])
    assert font_px(page, "#history h2") > max(font_px(page, "#turn"), font_px(page, "#moves")) * 1.1


def boxes_overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_viaggio_draws_the_crater_label_clear_of_the_explorers_at_the_start(
    api: WireClient, watch: WatchPage, players: int
) -> None:
    match = create(api, "viaggio-al-centro-della-terra", players)
    watch.open(match["match_id"])
    label = watch.page.locator("#board [data-kind='label'][data-id='crater']").bounding_box()
    explorers = watch.page.locator("#board [data-kind='explorer'][data-at='start']")
    assert label is not None and explorers.count() == 3  # the three colours wait at the start
    for i in range(explorers.count()):
        assert not boxes_overlap(label, explorers.nth(i).bounding_box()), (label, explorers.nth(i).bounding_box())
