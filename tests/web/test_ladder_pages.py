"""A ladder's page and the ladders on a bot's page: the leaderboard, matches being played
with watch links, results with replay links, the rating chart, every bot's words escaped; and
the page in headless Chromium against ``referee serve``."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.test_bots import bearer
from tests.api.test_ladders import ADMIN, forget_ladders, new_ladder, online, resign, started
from tests.support.browser import TIMEOUT_MS
from tests.support.http import WireClient, auth
from tests.support.killable import Server, start_serve
from tests.support.sse import EventStream


@pytest.fixture
def app_config(app_config: dict[str, str]) -> dict[str, str]:
    return {**app_config, "REFEREE_SWEEPER": "0", "REFEREE_ADMIN_TOKEN": ADMIN}


@pytest.fixture
def no_ladders_yet(store_kind: str, request: pytest.FixtureRequest) -> None:
    if store_kind == "redis":
        forget_ladders(request.getfixturevalue("redis_url"))


def test_the_ladder_page_shows_the_board_live_matches_and_results(client, app, no_ladders_yet) -> None:
    new_ladder(client, house=["random"])
    bots = []
    for _ in range(2):
        name = f"bot_{secrets.token_hex(3)}"
        answer = client.post("/v1/bots", json={"name": name, "owner": "<i>o</i>"}, headers=bearer(ADMIN))
        key = answer.get_json()["key"]
        client.post("/v1/ladders/duel/join", headers=bearer(key))
        online(app, name)
        bots.append((name, key))
    app.extensions["ladders"].tick()
    first = started(client, bots[0][1])[-1]
    resign(client, first)
    app.extensions["ladders"].tick()  # the pass applies the end
    playing = started(client, bots[1][1])[-1]
    html = client.get("/ladders/duel").get_data(as_text=True)
    assert f'href="/watch/{playing["match_id"]}"' in html  # live
    assert f'href="/v1/matches/{first["match_id"]}/replay"' in html  # finished
    assert f'href="/bots/{bots[0][0]}"' in html and "house:random" in html and "provisional" in html
    assert playing["seat_token"] not in html and first["seat_token"] not in html
    bot_html = client.get(f"/bots/{bots[0][0]}").get_data(as_text=True)
    assert 'href="/ladders/duel"' in bot_html and '<svg class="rating-chart"' in bot_html
    assert "<polyline" in bot_html and "&lt;i&gt;o&lt;/i&gt;" in bot_html


def test_an_unknown_ladder_page_is_404_and_escaped(client) -> None:
    page = client.get("/ladders/%3Cb%3Ex")
    assert page.status_code == 404 and "<b>x" not in page.get_data(as_text=True)


@pytest.fixture
def ladder_server(tmp_path) -> Iterator[Server]:
    env = {
        "REFEREE_SECRET": "ladder-pages-0123456789abcdef",
        "REFEREE_ADMIN_TOKEN": ADMIN,
        "REFEREE_RATE_LIMIT": "",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_STORE": "file",
        "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3"),
    }
    server = start_serve(env, tmp_path / "serve.log")
    yield server
    server.kill()


def joined_online(api: WireClient, name: str) -> tuple[str, EventStream]:
    key = api.post("/v1/bots", json={"name": name}, headers=auth(ADMIN)).get_json()["key"]
    assert api.post("/v1/ladders/page-test/join", headers=auth(key)).status_code == 200
    stream = EventStream(api.base_url, "/v1/bots/me/events", auth(key))
    assert stream.status == 200
    return key, stream


@pytest.mark.browser
def test_the_ladder_page_in_chromium(browser: Any, ladder_server: Server) -> None:
    api = ladder_server.client
    body = {"id": "page-test", "game": "esploratore", "players": 2, "time_control": {"per_decision_s": 30}}
    assert api.post("/v1/ladders", json=body, headers=auth(ADMIN)).status_code == 201
    name = "ann_" + secrets.token_hex(2)
    _, stream = joined_online(api, name)
    with stream:
        (event,) = stream.events(1, timeout=10)  # the validation match, made by the pairing loop
        match_id = event.data["match_id"]
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(f"{api.base_url}/ladders/page-test")
        assert page.locator(f"#live a[href='/watch/{match_id}']").is_visible()
        assert "validating" in page.locator(f"#leaderboard tr[data-bot='{name}']").inner_text()
        api.post(f"/v1/matches/{match_id}/resign", headers=auth(event.data["seat_token"]))
        finished = page.locator(f"#results a[href='/v1/matches/{match_id}/replay']")
        deadline = time.monotonic() + 10
        while True:  # the next pairing pass (every quarter second) applies the end
            page.goto(f"{api.base_url}/ladders/page-test")
            if finished.count() or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        assert finished.is_visible()
        row = page.locator(f"#leaderboard tr[data-bot='{name}']").inner_text()
        assert "provisional" in row and "\t1\t0\t" in row  # one game, no win
        page.goto(f"{api.base_url}/bots/{name}")
        chart = page.locator("#ladders svg.rating-chart")
        assert chart.is_visible() and chart.bounding_box()["width"] == 240
        context.close()
