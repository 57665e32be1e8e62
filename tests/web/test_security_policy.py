"""The pages work under their Content-Security-Policy (service/api/headers.py) in a real
browser: the browser reports no violation while they load, draw and follow a match."""

from __future__ import annotations

from typing import Any

from service.api.headers import PAGE_POLICY
from tests.support.browser import WatchPage
from tests.support.http import MatchClient, WireClient

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


def violations(watch: WatchPage) -> list[str]:
    return watch.page.evaluate("window.__violations")


def test_the_landing_page_lists_matches_with_no_policy_violation(watch: WatchPage, api: WireClient) -> None:
    MatchClient.create(api, "esploratore", 2)
    watch.page.add_init_script(RECORD_VIOLATIONS)
    response = watch.page.goto(f"{watch.base_url}/")
    assert response is not None and response.headers["content-security-policy"] == PAGE_POLICY
    watch.page.wait_for_selector("a[href^='/watch/']")
    assert violations(watch) == []


def test_the_watch_page_draws_and_follows_a_match_with_no_policy_violation(watch: WatchPage, api: Any) -> None:
    match = MatchClient.create(api, "halunken-und-spelunken", 2, seed=f"{21:064x}")
    watch.page.add_init_script(RECORD_VIOLATIONS)
    watch.open(match.created["match_id"], match.tokens[0])
    assert watch.count("tavern") == 14
    legal = match.legal(0)
    assert match.act(0, legal["state_token"], legal["actions"][0]).status_code == 200
    watch.wait_for_version(1)
    assert violations(watch) == []
