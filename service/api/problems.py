"""Errors the service answers with, as RFC 9457 problem details.

Every error a client can cause is a :class:`Problem` with an HTTP status and a stable
``code``; the API layer turns it into ``application/problem+json``. The tree::

    Problem
    ├── BadRequest          400  malformed body, token or parameter
    ├── Unauthorized        401  missing or unknown seat token
    ├── Forbidden           403  a seat acting when it owes no decision
    ├── NotFound            404  unknown game or match
    ├── Conflict            409  stale state token (carries the current one)
    ├── Unprocessable       422  illegal under the rules, bad options, reused idempotency key
    ├── TooManyRequests     429  over a per-bot cap (with Retry-After and the ``limit``)
    └── Unavailable         503  the store cannot be reached (with Retry-After)
"""

from __future__ import annotations

from typing import Any

PROBLEM_TYPE_BASE = "https://referee.invalid/problems/"


class Problem(Exception):
    status = 500
    title = "Internal error"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers: dict[str, str] = {}

    def body(self) -> dict[str, Any]:
        return {
            "type": PROBLEM_TYPE_BASE + self.code,
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
            **self.extra,
        }


class BadRequest(Problem):
    status = 400
    title = "Bad request"


class Unauthorized(Problem):
    status = 401
    title = "Unauthorized"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.headers["WWW-Authenticate"] = 'Bearer realm="referee"'


class Forbidden(Problem):
    status = 403
    title = "Forbidden"


class NotFound(Problem):
    status = 404
    title = "Not found"


class Conflict(Problem):
    status = 409
    title = "Conflict"


class Unprocessable(Problem):
    status = 422
    title = "Unprocessable"


class TooManyRequests(Problem):
    status = 429
    title = "Too many requests"

    def __init__(self, code: str, detail: str, retry_after: int = 1, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.headers["Retry-After"] = str(retry_after)


class UpgradeRequired(Problem):
    status = 426
    title = "Upgrade required"

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.headers["Upgrade"] = "websocket"


class Unavailable(Problem):
    status = 503
    title = "Service unavailable"

    def __init__(self, code: str, detail: str, retry_after: int = 1, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.headers["Retry-After"] = str(retry_after)
