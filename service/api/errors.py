"""Every error as ``application/problem+json`` (RFC 9457), in one place.

The referee refuses with plain domain errors (:mod:`service.errors`); :data:`DOMAIN_PROBLEMS`
is the one table that gives each kind its HTTP status. flask-smorest's own handler drops
werkzeug's headers (a 405 would lose ``Allow``) and answers ``{code, status, message}``;
:class:`ProblemApi` replaces it. Body validation failures, which webargs reports as 422, are
a malformed request to us: 400 ``invalid_body``.
"""

from __future__ import annotations

import http
import logging
from typing import Any

import orjson
from flask import Response, g, request
from flask_smorest import Api
from flask_smorest.spec import prepare_response
from werkzeug.exceptions import HTTPException

from schemas import ProblemSchema
from service import errors as domain
from service.api import problems
from service.api.problems import PROBLEM_TYPE_BASE, Problem
from service.api.spec import header_ref

PROBLEM_JSON = "application/problem+json"
log = logging.getLogger("referee")

_HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    413: "body_too_large",
    415: "unsupported_media_type",
    429: "rate_limited",
    500: "internal_error",
}

_ERROR_HEADERS = {
    401: ("WWW-Authenticate",),
    405: ("Allow",),
    429: ("Retry-After",),
    503: ("Retry-After",),
}
"""The headers an error answer of this status carries besides ``X-Request-ID``."""


def problem_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    response = Response(orjson.dumps(body), status=body["status"], mimetype=PROBLEM_JSON)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


DOMAIN_PROBLEMS: dict[type[domain.RefereeError], type[Problem]] = {
    domain.InvalidRequest: problems.BadRequest,
    domain.NotAuthenticated: problems.Unauthorized,
    domain.NotPermitted: problems.Forbidden,
    domain.NotFound: problems.NotFound,
    domain.Conflict: problems.Conflict,
    domain.Refused: problems.Unprocessable,
    domain.TooMany: problems.TooManyRequests,
    domain.Unavailable: problems.Unavailable,
}
"""The HTTP status (as its problem class) of each kind of refusal."""


def problem_for(error: domain.RefereeError) -> Problem:
    """The problem answer of a refusal: its kind's status, its code, sentence and fields."""
    kind = DOMAIN_PROBLEMS[type(error)]
    if isinstance(error, domain.Unavailable):
        return problems.Unavailable(error.code, error.detail, retry_after=error.retry_after, **error.extra)
    if isinstance(error, domain.TooMany):
        return problems.TooManyRequests(error.code, error.detail, retry_after=error.retry_after, **error.extra)
    return kind(error.code, error.detail, **error.extra)


def rate_limited(error: HTTPException) -> tuple[dict[str, Any], dict[str, str]]:
    """The 429 problem body and ``Retry-After`` of a spent rate limit
    (:class:`service.api.limits.RateLimited`), whichever transport answers it."""
    limit = getattr(error, "limit", str(error.description))
    body = _problem(429, "rate_limited", f"Too many requests: the limit is {limit}; retry after Retry-After seconds.")
    body["limit"] = limit
    return body, {"Retry-After": str(getattr(error, "retry_after", 1))}


def handle_problem(problem: Problem) -> Response:
    return problem_response(problem.body(), problem.headers)


def handle_refusal(error: domain.RefereeError) -> Response:
    return handle_problem(problem_for(error))


class ProblemApi(Api):
    """flask-smorest's Api answering every error as problem+json, headers kept."""

    ERROR_SCHEMA = ProblemSchema  # type: ignore[assignment]  # typed as flask-smorest's ErrorSchema; any schema serves

    def _register_error_handlers(self) -> None:
        super()._register_error_handlers()
        self._app.register_error_handler(Problem, handle_problem)
        self._app.register_error_handler(domain.RefereeError, handle_refusal)

    def _register_responses(self) -> None:
        """Document the error responses with the problem+json media type."""
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                response["headers"] = {
                    name: header_ref(name) for name in ("X-Request-ID", *_ERROR_HEADERS.get(status, ()))
                }
                response["example"] = _example_problem(status)
            prepare_response(response, self.spec, PROBLEM_JSON)
            self.spec.components.response(status.name, response, lazy=True)
        response = {
            "description": "Default error response",
            "schema": self.ERROR_SCHEMA,
            "example": _example_problem(http.HTTPStatus.INTERNAL_SERVER_ERROR),
        }
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response("DEFAULT_ERROR", response, lazy=True)

    def handle_http_exception(self, error: HTTPException) -> Response:
        status = error.code or 500
        data = getattr(error, "data", None) or {}
        headers = dict(error.get_headers())
        headers.pop("Content-Type", None)
        headers.update(data.get("headers") or {})
        if status == 422 and "messages" in data:
            body = _problem(400, "invalid_body", "The request does not match the schema; see errors.")
            body["errors"] = _string_keys(data["messages"])
        elif status == 400 and "messages" in data:
            body = _problem(400, "invalid_json", "The request body is not valid JSON.")
        elif status == 429:
            body, retry_after = rate_limited(error)
            headers.update(retry_after)
        elif status >= 500:
            _log_server_error(error)
            body = _problem(status, "internal_error", _INTERNAL_ERROR)
        else:
            detail = error.description or http.HTTPStatus(status).phrase
            body = _problem(status, _HTTP_CODES.get(status, "http_error"), detail)
        return problem_response(body, headers)


def _string_keys(messages: Any) -> Any:
    """marshmallow's error messages with JSON object keys: it keys a list's errors by index."""
    if isinstance(messages, dict):
        return {str(key): _string_keys(value) for key, value in messages.items()}
    return messages


_EXAMPLE_CODES = {
    400: ("invalid_body", "The request does not match the schema; see errors."),
    401: ("authentication_required", "This operation needs a seat token: 'Authorization: Bearer <token>'."),
    403: ("not_your_turn", "Seat 0 owes no decision now; waiting for seat(s) 1."),
    404: ("unknown_match", "No match 'K8Bf4ufXQNI4uuiUgk7R_A' (matches expire when idle)."),
    409: ("stale_state_token", "The match has moved on: decide on the current state token."),
    422: ("pile_rule", "A card goes higher on an ascending pile, lower on a descending one, or exactly 10 back."),
    503: ("store_unavailable", "The match store cannot be reached; retry after Retry-After seconds."),
}
"""The code shown in the document's example of each error status."""


def _example_problem(status: http.HTTPStatus) -> dict[str, Any]:
    """A typical problem of this status, for the OpenAPI document."""
    code, detail = _EXAMPLE_CODES.get(status, (_HTTP_CODES.get(status, "http_error"), status.description))
    if status >= 500 and status != 503:
        code = "internal_error"
    return _problem(status, code, detail or status.phrase)


_INTERNAL_ERROR = "Something failed on our side; it has been logged."


def internal_error_response() -> Response:
    """The 500 answer of an unexpected failure (logged with :func:`log_unhandled`)."""
    return problem_response(_problem(500, "internal_error", _INTERNAL_ERROR))


def _log_server_error(error: HTTPException) -> None:
    """Log what really failed: Flask wraps an unhandled exception in an InternalServerError
    whose ``original_exception`` is the cause (with its traceback)."""
    cause = getattr(error, "original_exception", None) or error.__cause__ or error
    log_unhandled(cause, request.method, request.path, g.get("request_id"))


def log_unhandled(cause: BaseException, method: str, path: str, request_id: str | None) -> None:
    """One error line with the failure's type, message and traceback, and the request's."""
    log.error(
        {
            "msg": "unhandled error",
            "error": f"{type(cause).__module__}.{type(cause).__qualname__}: {cause}",
            "method": method,
            "path": path,
            "request_id": request_id,
        },
        exc_info=(type(cause), cause, cause.__traceback__),
    )


def _problem(status: int, code: str, detail: str) -> dict[str, Any]:
    return {
        "type": PROBLEM_TYPE_BASE + code,
        "title": http.HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
