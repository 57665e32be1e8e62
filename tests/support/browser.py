"""Driving the web pages as a person would: Debian's Chromium (``/usr/bin/chromium``) through
Playwright for Python, with the system browser's executable (``playwright install`` is never
needed), against a real ``referee serve``.

``WatchPage`` reads what the watch page drew through the ``data-kind`` attributes that every
drawing module puts on the things a test may count (contract §8), so a game's test compares
the drawing with the view the API answers, not with pixels.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("REFEREE_TEST_CHROMIUM", "/usr/bin/chromium"))
TIMEOUT_MS = 10_000


def chromium() -> Path:
    """The browser's executable; skips where it is missing, except in CI (``CI`` set), where
    ``.ci/run`` installs it and a missing one must fail the run."""
    if CHROMIUM.exists() or shutil.which(str(CHROMIUM)):
        return CHROMIUM
    if os.environ.get("CI"):
        pytest.fail(f"CI but no Chromium at {CHROMIUM} (.ci/run installs Debian's chromium)")
    pytest.skip(f"no Chromium at {CHROMIUM}")


@contextmanager
def launched() -> Iterator[Any]:
    """A headless Chromium for the session, closed after."""
    from playwright.sync_api import sync_playwright

    executable = chromium()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(executable), args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class WatchPage:
    """One browser tab on the server at ``base_url``; uncaught script errors are collected
    (``errors``) so a fixture can fail the test that caused them."""

    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.page.set_default_timeout(TIMEOUT_MS)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, match_id: str, seat_token: str | None = None) -> WatchPage:
        """The watch page of a match, in seat mode with a token; waits for the first drawing."""
        fragment = f"#seat={seat_token}" if seat_token else ""
        self.page.goto(f"{self.base_url}/watch/{match_id}{fragment}")
        self.page.wait_for_selector("#board[data-version]")
        return self

    def wait_for_version(self, version: int) -> None:
        """Until the page has drawn ``version`` (or a later one)."""
        self.page.wait_for_function("v => Number(document.querySelector('#board').dataset.version) >= v", arg=version)

    def wait_for_status(self, status: str) -> None:
        self.page.wait_for_selector(f"body[data-status='{status}']")

    @property
    def version(self) -> int:
        return int(self.page.get_attribute("#board", "data-version"))

    def drawn(self, kind: str) -> list[dict[str, Any]]:
        """Every drawn thing of this ``data-kind``: its ``data-*`` attributes, values parsed as
        JSON where they are JSON (numbers, partial actions), else kept as text."""
        rows = self.page.eval_on_selector_all(
            f"#board [data-kind='{kind}']", "nodes => nodes.map(n => ({...n.dataset}))"
        )
        return [{key: _value(text) for key, text in row.items()} for row in rows]

    def count(self, kind: str) -> int:
        return len(self.drawn(kind))

    def click(self, kind: str, **data: Any) -> None:
        """Click the drawn thing of ``kind`` whose ``data-*`` attributes have these values."""
        selector = f"#board [data-kind='{kind}']" + "".join(f"[data-{k}='{v}']" for k, v in data.items())
        self.page.click(selector)

    def choices(self) -> list[dict[str, Any]]:
        """The legal actions offered as buttons, as the actions they submit."""
        return [
            json.loads(a)
            for a in self.page.eval_on_selector_all(
                "#choices button.choice", "nodes => nodes.map(n => n.dataset.action)"
            )
        ]

    def choose(self, action: dict[str, Any]) -> None:
        """Press the button of this action (its ``data-action`` is the action's JSON)."""
        for button in self.page.query_selector_all("#choices button.choice"):
            if json.loads(button.get_attribute("data-action")) == action:
                button.click()
                return
        raise AssertionError(f"no button for {action}: {self.choices()}")

    def moves(self, count: int) -> list[str]:
        """The move list once it holds ``count`` entries: the page reads the history after it
        has drawn the board, so the list can lag the drawing by a request."""
        self.page.wait_for_function("n => document.querySelectorAll('#moves li').length === n", arg=count)
        return self.page.eval_on_selector_all("#moves li", "nodes => nodes.map(n => n.textContent)")

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)


def _value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
