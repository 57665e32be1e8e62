"""Every answer carries the headers a security scanner looks for (service/api/headers.py):
API answers, problems, the action lane's answers, streams, static files, the pages and /docs.
Pages run under the one page policy; everything else under the answer policy."""

from __future__ import annotations

from typing import Any

import pytest

from service.api.headers import ANSWER_POLICY, PAGE_POLICY, STRICT_PAGE_POLICY, secured
from tests.support.http import MatchClient, auth

ALWAYS = {"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer"}


def assert_secured(response: Any, where: str) -> None:
    for name, value in ALWAYS.items():
        assert response.headers.get(name) == value, (where, name, dict(response.headers))
    policy = response.headers.get("Content-Security-Policy")
    if response.content_type.startswith("text/html"):
        assert policy == (STRICT_PAGE_POLICY if where == "docs page" else PAGE_POLICY), (where, policy)
        assert "camera=()" in response.headers.get("Permissions-Policy", ""), where
    else:
        assert policy == ANSWER_POLICY, (where, response.content_type, policy)


def test_every_kind_of_answer_is_secured(client) -> None:
    match = MatchClient.create(client, "the-game", 2, seed="0a" * 32)
    legal = match.legal(0)
    seat = auth(match.tokens[0])
    answers = {
        "catalogue": client.get("/v1/games"),
        "created": client.post("/v1/matches", json={"game": "the-game", "players": 2}),
        "match": client.get(match.url),
        "legal actions": client.get(f"{match.url}/legal-actions", headers=seat),
        "move (lane)": client.post(
            f"{match.url}/actions",
            json={"state_token": legal["state_token"], "action": legal["actions"][0]},
            headers=seat,
        ),
        "stale move (lane problem)": client.post(
            f"{match.url}/actions",
            json={"state_token": legal["state_token"], "action": legal["actions"][-1]},
            headers=seat,
        ),
        "bad body (Flask problem)": client.post(f"{match.url}/actions", json={"x": 1}, headers=seat),
        "unknown match": client.get("/v1/matches/AAAAAAAAAAAAAAAAAAAAAA"),
        "unknown path": client.get("/nowhere"),
        "method not allowed": client.delete("/v1/games"),
        "too large": client.post("/v1/matches", data=b"{" + b" " * 200_000 + b"}", content_type="application/json"),
        "history": client.get(f"{match.url}/history"),
        "stream": client.get(f"{match.url}/stream", buffered=False),
        "keys": client.get("/v1/keys"),
        "spec": client.get("/openapi.json"),
        "health": client.get("/healthz"),
        "metrics": client.get("/metrics"),
        "landing page": client.get("/"),
        "watch page": client.get(f"/watch/{match.created['match_id']}"),
        "docs page": client.get("/docs"),
        "static script": client.get("/static/watch.js"),
        "static style": client.get("/static/site.css"),
        "game data": client.get("/seeds/the-game/deck.json"),
    }
    assert answers["move (lane)"].status_code == 200 and answers["stale move (lane problem)"].status_code == 409
    assert answers["stream"].content_type.startswith("text/event-stream")
    assert answers["docs page"].content_type.startswith("text/html")
    for where, response in answers.items():
        assert_secured(response, where)
        response.close()


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        (
            [("Content-Type", "text/html"), ("Content-Security-Policy", "script-src 'self';")],
            "script-src 'self'; frame-ancestors 'none'",
        ),
        (
            [("Content-Type", "text/html"), ("Content-Security-Policy", "frame-ancestors 'self'")],
            "frame-ancestors 'self'",
        ),
        ([("Content-Type", "text/html; charset=utf-8")], PAGE_POLICY),
        ([("Content-Type", "application/json")], ANSWER_POLICY),
        ([], ANSWER_POLICY),
    ],
)
def test_an_answer_keeps_what_it_set_and_always_forbids_framing(headers: list, expected: str) -> None:
    result = dict(secured(list(headers)))
    assert result["Content-Security-Policy"] == expected
    assert result["X-Content-Type-Options"] == "nosniff" and result["X-Frame-Options"] == "DENY"
    own = dict(secured([("X-Frame-Options", "SAMEORIGIN")]))
    assert own["X-Frame-Options"] == "SAMEORIGIN"
