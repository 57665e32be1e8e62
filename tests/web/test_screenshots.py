"""docs/screenshots.py draws a board to a PNG (the pictures of the docs come from it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from tests.support.http import WireClient
from tests.support.servers import ROOT, Server

pytestmark = pytest.mark.browser


def load_script() -> Any:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "docs" / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_saves_the_board_as_a_png(browser: Any, web_server: Server, api: WireClient, tmp_path: Path) -> None:
    screenshots = load_script()
    assert "the-game" in screenshots.drawn_games()
    target = tmp_path / "the-game.png"
    screenshots.screenshot(browser, web_server.client.base_url, api, "the-game", target)
    png = target.read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000
