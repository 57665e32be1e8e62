"""Request ids, one JSON access-log line per request, and request metrics."""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid

import orjson
from flask import Flask, Response, g, request

from service import metrics

_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
access_log = logging.getLogger("referee.access")


class JsonLineFormatter(logging.Formatter):
    """Each record as one JSON object: its message dict, or the message as ``msg``."""

    def format(self, record: logging.LogRecord) -> str:
        payload = record.msg if isinstance(record.msg, dict) else {"msg": record.getMessage()}
        line = {"ts": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name, **payload}
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(line).decode()


def configure_logging() -> None:
    """JSON lines on stderr for the service's loggers, once per process."""
    root = logging.getLogger("referee")
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    root.propagate = False


def install(app: Flask, log_requests: bool = True) -> None:
    """Give every request an id (``X-Request-ID`` in, or a new one), count it and, unless
    ``log_requests`` is false, log it."""

    @app.before_request
    def start() -> None:
        incoming = request.headers.get("X-Request-ID", "")
        g.request_id = incoming if _REQUEST_ID.match(incoming) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        request_id = g.get("request_id") or uuid.uuid4().hex
        response.headers["X-Request-ID"] = request_id
        endpoint = request.url_rule.rule if request.url_rule else "unmatched"
        metrics.REQUESTS.labels(request.method, endpoint, str(response.status_code)).inc()
        metrics.LATENCY.labels(request.method, endpoint).observe(elapsed)
        if log_requests:
            access_log.info(
                {
                    "request_id": request_id,
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "ms": round(elapsed * 1000, 2),
                    "match_id": (request.view_args or {}).get("match_id"),
                    "remote": request.remote_addr,
                }
            )
        return response
