"""The landing page: its links, and the start form, which opens the watch page in seat mode."""

from __future__ import annotations

import pytest

from tests.support.browser import WatchPage
from tests.support.http import WireClient

pytestmark = pytest.mark.browser


def test_the_start_form_opens_the_new_match_in_seat_mode(api: WireClient, watch: WatchPage) -> None:
    page = watch.page
    page.goto(f"{watch.base_url}/")
    page.wait_for_selector("#start[data-ready]")
    page.select_option("#start select[name=game]", "the-game")
    page.fill("#start input[name=players]", "1")
    page.dispatch_event("#start input[name=players]", "change")
    page.check("#start input[data-option=professional]")
    page.select_option("#start select[data-seat='0']", "")
    page.click("#start button[type=submit]")

    page.wait_for_url("**/watch/*#seat=*")
    page.wait_for_selector("#board[data-version]")
    match_id = page.url.split("/watch/")[1].split("#")[0]
    match = api.get(f"/v1/matches/{match_id}").get_json()
    assert (match["game"], match["players"], match["options"]["professional"]) == ("the-game", 1, True)
    assert watch.count("card") == 8  # the solo hand, shown because the page holds seat 0's token
    assert page.inner_text("#turn") == "Your turn."


def test_the_start_form_offers_every_level_for_a_house_seat(api: WireClient, watch: WatchPage) -> None:
    page = watch.page
    page.goto(f"{watch.base_url}/")
    page.wait_for_selector("#start[data-ready]")
    page.select_option("#start select[name=game]", "the-game")
    page.fill("#start input[name=players]", "2")
    page.press("#start input[name=players]", "Tab")  # the browser's own change event redraws the seats
    offered = page.eval_on_selector_all("#start select[data-seat='1'] option", "options => options.map(o => o.value)")
    assert offered == ["", "level1", "level2", "level3", "level4", "level5"]
    page.select_option("#start select[data-seat='1']", "level3")
    page.click("#start button[type=submit]")

    page.wait_for_url("**/watch/*#seat=*")
    match_id = page.url.split("/watch/")[1].split("#")[0]
    assert api.get(f"/v1/matches/{match_id}").get_json()["house"] == [{"seat": 1, "bot": "level3"}]
