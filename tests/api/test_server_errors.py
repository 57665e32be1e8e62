"""A 500 that still happens answers problem+json and logs its real cause, not only
"InternalServerError"."""

from __future__ import annotations

import logging

import orjson

from service.api.observability import JsonLineFormatter
from tests.support.http import PROBLEM_JSON


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonLineFormatter())
        self.lines: list[dict] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(orjson.loads(self.format(record)))


def test_an_unexpected_exception_logs_its_type_message_and_traceback(app, monkeypatch) -> None:
    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("the store's clock divided by zero")

    monkeypatch.setattr(app.extensions["referee"], "get_match", broken)
    lines = Lines()
    logger = logging.getLogger("referee")
    logger.addHandler(lines)
    try:
        response = app.test_client().get("/v1/matches/abcdefghijkl", headers={"X-Request-ID": "req-500"})
    finally:
        logger.removeHandler(lines)
    assert response.status_code == 500 and response.content_type == PROBLEM_JSON
    assert response.get_json()["code"] == "internal_error"
    assert "divided by zero" not in response.get_data(as_text=True), "the cause is logged, never shown"
    [line] = [line for line in lines.lines if line.get("msg") == "unhandled error"]
    assert line["error"] == "builtins.ZeroDivisionError: the store's clock divided by zero"
    assert line["request_id"] == "req-500" and line["path"] == "/v1/matches/abcdefghijkl"
    assert "ZeroDivisionError" in line["exc"] and "in broken" in line["exc"], "the traceback of the cause"
