"""``/docs``: Swagger UI renders the OpenAPI 3.1 document, from this server alone, under a
Content-Security-Policy without inline scripts or styles; "Try it out" creates a match."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest

from service.web.docs import DOCS_HEADERS, swagger_ui_version
from tests.support.servers import Server

VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
"""Collects what the page's Content-Security-Policy blocked, from before any script runs."""


def test_the_page_ships_a_swagger_ui_that_reads_openapi_3_1(client) -> None:
    major, minor, _ = (int(part) for part in swagger_ui_version().split("."))
    assert (major, minor) >= (5, 0), "Swagger UI renders OpenAPI 3.1 from 5.0 on"
    page = client.get("/docs")
    assert page.status_code == 200 and page.content_type.startswith("text/html")
    html = page.get_data(as_text=True)
    assert swagger_ui_version() in html
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S)
    assert scripts and all("src=" in attributes and not body.strip() for attributes, body in scripts), scripts
    assert client.get("/docs/assets/swagger-ui-bundle.js").status_code == 200
    assert "Apache License" in client.get("/docs/assets/LICENSE").get_data(as_text=True)


def test_the_page_s_policy_allows_nothing_inline_and_nothing_from_elsewhere(client) -> None:
    headers = client.get("/docs").headers
    policy = headers["Content-Security-Policy"]
    assert policy == DOCS_HEADERS["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert "unsafe" not in policy
    assert directives["frame-ancestors"] == "'none'"
    assert headers["X-Content-Type-Options"] == "nosniff"


def open_docs(browser: Any, web_server: Server) -> tuple[Any, list[str], list[str]]:
    """A tab on ``/docs`` once Swagger UI has drawn the operations, with what it requested
    and the errors its scripts threw."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    requested: list[str] = []
    errors: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{web_server.client.base_url}/docs")
    page.wait_for_selector(".opblock", timeout=20_000)
    return page, requested, errors


@pytest.mark.browser
def test_every_operation_is_listed_and_nothing_is_fetched_from_elsewhere(browser: Any, web_server: Server) -> None:
    page, requested, errors = open_docs(browser, web_server)
    try:
        spec = web_server.client.get("/openapi.json").get_json()
        for item in spec["paths"].values():
            for operation in (value for key, value in item.items() if key != "parameters"):
                tag = operation["tags"][0]
                assert page.locator(f"#operations-{tag}-{operation['operationId']}").count() == 1, operation
        assert "OAS 3.1" in page.inner_text(".info")
        assert "valid version field" not in page.content()
        origin = urlsplit(web_server.client.base_url).netloc
        assert {urlsplit(url).netloc for url in requested if not url.startswith("data:")} == {origin}
        assert page.evaluate("window.__violations") == []
        assert not errors
    finally:
        page.context.close()


@pytest.mark.browser
def test_try_it_out_creates_a_match(browser: Any, web_server: Server) -> None:
    page, _, errors = open_docs(browser, web_server)
    try:
        create = page.locator("#operations-matches-createMatch")
        create.locator(".opblock-summary").click()
        create.locator(".try-out__btn").click()
        body = orjson.loads(create.locator("textarea.body-param__text").input_value())
        assert body["game"] == "the-game"
        create.locator(".execute").click()
        status = create.locator(".live-responses-table .response .response-col_status").first
        status.wait_for()
        assert status.inner_text().strip() == "201"
        answer = orjson.loads(create.locator(".live-responses-table .response-col_description pre").first.inner_text())
        match = web_server.client.get(f"/v1/matches/{answer['match_id']}")
        assert match.status_code == 200 and match.get_json()["game"] == "the-game"
        assert page.evaluate("window.__violations") == []
        assert not errors
    finally:
        page.context.close()
