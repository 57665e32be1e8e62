"""Request ids, one JSON access-log line per request, and request metrics."""

from __future__ import annotations

import logging
import re
import secrets
import sys
import time
from typing import Any, TextIO

import orjson
from flask import Flask, Response, g, request

from service.api import metrics

REQUEST_ID_HEADER = "X-Request-ID"
"""The header that carries a request's id, in and out."""
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


class AccessLog:
    """One JSON line per request on stderr, in the shape of the service's other log lines
    (:class:`JsonLineFormatter`, logger ``referee.access``).

    Written straight to the stream rather than through :mod:`logging`: a record, the caller
    lookup, the handler's lock (a Python lock under gevent) and a flush cost about fifteen
    times the line itself, a tenth of a whole move (bench/README.md). One ``write`` per line,
    so greenlets never interleave lines. A stream that fails (closed, a broken pipe) loses the
    line, not the request, as a logging handler would.
    """

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream

    def write(self, fields: dict[str, Any]) -> None:
        line = {"ts": round(time.time(), 3), "level": "info", "logger": access_log.name, **fields}
        try:
            (self._stream or sys.stderr).write(orjson.dumps(line).decode() + "\n")
        except (OSError, ValueError):
            pass


class RequestRecorder:
    """What every request leaves behind: its id, a metrics sample and an access-log line."""

    def __init__(self, log_requests: bool) -> None:
        self._lines = AccessLog() if log_requests else None

    def request_id(self, incoming: str | None) -> str:
        """The client's ``X-Request-ID`` when it is a sane one, else 16 new random bytes in
        hex (unique in every process, forked workers included)."""
        if incoming and _REQUEST_ID.match(incoming):
            return incoming
        return secrets.token_hex(16)

    def finish(
        self,
        request_id: str,
        method: str,
        endpoint: str,
        path: str,
        status: int,
        elapsed: float,
        match_id: str | None,
        remote: str | None,
    ) -> None:
        metrics.sample(metrics.REQUESTS, method, endpoint, str(status)).inc()
        metrics.sample(metrics.LATENCY, method, endpoint).observe(elapsed)
        if self._lines is not None:
            self._lines.write(
                {
                    "request_id": request_id,
                    "method": method,
                    "path": path,
                    "status": status,
                    "ms": round(elapsed * 1000, 2),
                    "match_id": match_id,
                    "remote": remote,
                }
            )


def install(app: Flask, log_requests: bool = True) -> RequestRecorder:
    """Give every request an id (``X-Request-ID`` in, or a new one), count it and, unless
    ``log_requests`` is false, log it."""
    recorder = RequestRecorder(log_requests)

    @app.before_request
    def start() -> None:
        g.request_id = recorder.request_id(request.headers.get(REQUEST_ID_HEADER))
        g.started = time.perf_counter()

    @app.after_request
    def finish(response: Response) -> Response:
        elapsed = time.perf_counter() - g.get("started", time.perf_counter())
        request_id = g.get("request_id") or secrets.token_hex(16)
        response.headers[REQUEST_ID_HEADER] = request_id
        recorder.finish(
            request_id,
            request.method,
            request.url_rule.rule if request.url_rule else "unmatched",
            request.path,
            response.status_code,
            elapsed,
            (request.view_args or {}).get("match_id"),
            request.remote_addr,
        )
        return response

    return recorder
