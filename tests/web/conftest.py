"""Fixtures for the browser tests: one real ``referee serve`` and one headless Chromium for
the session, a fresh tab per test (``watch``), and an API client on the same server
(``api``) to create and move matches the way a bot or another person would.

The drawing modules of every game use these: a game's test creates a match over ``api``,
opens ``watch.open(match_id)`` and compares ``watch.drawn("<kind>")`` with the view.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.browser import WatchPage, launched
from tests.support.http import WireClient
from tests.support.servers import BIN, Server, clean_env, free_port, running


@pytest.fixture(scope="session")
def web_server() -> Iterator[Server]:
    """``referee serve`` as a user starts it (embedded store), without rate limits."""
    port = free_port()
    command = [str(BIN / "referee"), "serve", "--port", str(port)]
    env = clean_env(REFEREE_ACCESS_LOG="0", REFEREE_RATE_LIMIT="", REFEREE_SECRET="browser-tests")
    with running(command, env, port) as server:
        yield server


@pytest.fixture
def api(web_server: Server) -> WireClient:
    return web_server.client


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    with launched() as browser:
        yield browser


@pytest.fixture
def watch(browser: Any, web_server: Server) -> Iterator[WatchPage]:
    """A fresh tab; the test fails if a script on the page threw."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = WatchPage(context.new_page(), web_server.client.base_url)
    yield page
    context.close()
    assert not page.errors, f"script errors on the page: {page.errors}"
