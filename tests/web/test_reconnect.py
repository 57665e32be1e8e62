"""The watch page outlives its server: the referee restarts (a deploy) while a spectator and a
seat watch a match; the pages say they are reconnecting, come back by themselves without a
reload, and show every move made after the restart, with no version missing from the move
list."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.support.browser import WatchPage
from tests.support.http import MatchClient
from tests.support.servers import BIN, clean_env, free_port, running

pytestmark = pytest.mark.browser


def test_the_page_reconnects_after_a_restart_and_misses_no_version(browser, tmp_path: Path) -> None:
    port = free_port()
    command = [str(BIN / "referee"), "serve", "--port", str(port)]
    env = clean_env(
        REFEREE_ACCESS_LOG="0",
        REFEREE_RATE_LIMIT="",
        REFEREE_SECRET="reconnect",
        REFEREE_DB_PATH=str(tmp_path / "matches.sqlite3"),
    )
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pages = [WatchPage(context.new_page(), f"http://127.0.0.1:{port}") for _ in range(2)]
    try:
        with running(command, env, port) as server:
            match = MatchClient.create(server.client, "the-game", 2, seed="7a" * 32)
            before = match.play(random.Random(3), 3)
            pages[0].open(match.created["match_id"])
            pages[1].open(match.created["match_id"], match.tokens[0])
            for page in pages:
                page.wait_for_version(before["version"])
                page.page.evaluate("window.notReloaded = true")
                page.page.wait_for_selector("#live[data-state='stream']")
        for page in pages:  # the server is gone
            page.page.wait_for_selector("#live[data-state='reconnecting']")
        with running(command, env, port) as server:
            match.client = server.client
            after = match.play(random.Random(4), 5)
            assert after["version"] > before["version"]
            for page in pages:
                page.wait_for_version(after["version"])
                page.page.wait_for_selector("#live[data-state='stream']")
                assert page.page.evaluate("window.notReloaded === true")
                page.moves(after["version"])
    finally:
        context.close()
    for page in pages:
        assert not page.errors, f"script errors on the page: {page.errors}"
