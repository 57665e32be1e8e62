"""The move endpoint's ordinary requests, answered in front of Flask.

``POST /v1/matches/{id}/actions`` is most of an arena's traffic, and through Flask half of a
move's CPU time went to the framework, not the move: werkzeug's request and response objects,
routing, the context proxies looked up some forty times, and the seventeen decorator and hook
layers of flask-smorest, webargs and marshmallow (bench/README.md, "One round trip per
move"). This WSGI layer answers such a request itself when it is an ordinary one: a JSON body
of the declared length holding exactly ``state_token`` and ``action``, a bearer token, an
acceptable ``Idempotency-Key`` if any. It does what the Flask
route and its hooks do for that request, in the same order and with the same objects: the
rate limit (:class:`service.api.limits.RateLimiter`), the request id, :meth:`Referee.act`, the
move counter, the request's metrics and access-log line (:class:`RequestRecorder`), and the
same headers on the same body.

Only moves: measured alone (``bench/ab_moves.py``, fresh servers each round), answering moves
here is worth far more than the noise, while answering a seat's legal actions here too (a
bot asks for them once a match) was not, so Flask serves those. Every limit, header and
problem comes from what the Flask route uses: the body's keys and the state token's length
from :class:`schemas.matches.ActionRequestSchema`, the path and the endpoint's name from the
route's rule, the caching and replay headers from :mod:`service.api.matches`.

A move the referee refuses is answered here too, with the problem answer the Flask route's
error handler writes (:func:`service.api.errors.problem_response`) and the headers its hooks
add. Every other request goes to Flask untouched, with the body already read handed on and,
when the rate limit was counted here, its verdict (never counted twice).
tests/api/test_action_lane.py checks that both paths give the same status, headers and body,
for accepted moves and refused ones.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson
from marshmallow import validate
from marshmallow.fields import Field
from werkzeug.routing import Map
from werkzeug.wsgi import get_content_length

from schemas.matches import ActionRequestSchema
from service.api import errors, limits, metrics
from service.api.auth import IDEMPOTENCY_KEY
from service.api.bodies import load_json_body
from service.api.matches import REPLAYED, SEAT_CACHE_CONTROL, SEAT_VARY
from service.api.observability import REQUEST_ID_HEADER, RequestRecorder
from service.api.problems import BadRequest, Problem
from service.errors import RefereeError
from service.referee import Referee
from service.tokens import MATCH_ID_PATTERN, parse_bearer

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def _max_length(field: Field) -> int:
    """The greatest length ``field``'s ``Length`` validator allows."""
    (length,) = [v for v in field.validators if isinstance(v, validate.Length)]
    assert length.max is not None, "the route's schema bounds the state token"
    return length.max


_BODY = ActionRequestSchema._declared_fields
#: The move body's keys, and the longest state token its schema allows.
BODY_KEYS = set(_BODY)
MAX_STATE_TOKEN = _max_length(_BODY["state_token"])
REQUEST_ID_ENVIRON = "HTTP_" + REQUEST_ID_HEADER.upper().replace("-", "_")


def _route(url_map: Map, endpoint: str) -> tuple[str, re.Pattern[str]]:
    """The Flask route of ``endpoint``: its rule (what metrics and the access line name) and a
    pattern of the paths it serves whose match id is well formed. Any other path segment
    (encoded characters, which the WSGI server hands on as Latin-1 and werkzeug decodes
    again) is left to Flask's routing."""
    (rule,) = url_map.iter_rules(endpoint)
    before, _, after = rule.rule.partition("<match_id>")
    return rule.rule, re.compile(f"^{re.escape(before)}({MATCH_ID_PATTERN}){re.escape(after)}$")


#: What a served request's work gives: its status line, body and first headers.
Answer = tuple[str, bytes, list[tuple[str, str]]]
_JSON = [("Content-Type", "application/json")]


class ActionLane:
    """WSGI middleware: ordinary move requests answered here, everything else by ``inner``
    (Flask)."""

    def __init__(
        self,
        inner: WSGIApp,
        referee: Referee,
        recorder: RequestRecorder,
        limiter: limits.RateLimiter | None,
        max_body_bytes: int | None,
        url_map: Map,
    ) -> None:
        self.inner = inner
        self._actions_endpoint, self._actions = _route(url_map, "matches.submit_action")
        self._referee = referee
        self._recorder = recorder
        self._limiter = limiter
        self._max_body = max_body_bytes

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        method, path = environ.get("REQUEST_METHOD"), environ.get("PATH_INFO", "")
        if method == "POST" and (matched := self._actions.match(path)) is not None:
            started = time.perf_counter()
            request = self._ordinary(environ)
            if request is None:
                return self.inner(environ, start_response)
            match_id, (bearer, state_token, action, idempotency_key) = matched.group(1), request
            return self._serve(
                environ,
                start_response,
                match_id,
                started,
                lambda: self.move(match_id, bearer, state_token, action, idempotency_key),
            )
        return self.inner(environ, start_response)

    def _serve(
        self,
        environ: dict[str, Any],
        start_response: Callable[..., Any],
        match_id: str,
        started: float,
        work: Callable[[], Answer],
    ) -> Iterable[bytes]:
        """Answer a move this lane serves as the Flask route and its hooks would: counted
        against the rate limit (a refusal is Flask's to answer), given its request id,
        ``work`` done, refusals answered as problems, then the seat's caching headers, the
        metrics and the access line."""
        method, path = environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
        if self._limiter is not None:
            refusal = self._limiter.check(environ.get("HTTP_AUTHORIZATION", ""), environ.get("REMOTE_ADDR"))
            environ[limits.VERDICT] = refusal
            if refusal is not None:
                return self.inner(environ, start_response)
        request_id = self._recorder.request_id(environ.get(REQUEST_ID_ENVIRON))
        status, body, extra = self.answer(
            request_id, method, self._actions_endpoint, path, match_id, environ.get("REMOTE_ADDR"), started, work
        )
        headers = [
            *extra,
            ("Content-Length", str(len(body))),
            ("Vary", SEAT_VARY),
            ("Cache-Control", SEAT_CACHE_CONTROL),
            (REQUEST_ID_HEADER, request_id),
        ]
        start_response(status, headers)
        return [body]

    def answer(
        self,
        request_id: str,
        method: str,
        endpoint: str,
        path: str,
        match_id: str,
        remote: str | None,
        started: float,
        work: Callable[[], Answer],
    ) -> Answer:
        """``work`` done, a refusal answered as the problem the Flask route's error handler
        writes, the request's metrics and access line recorded: what a move costs besides
        its transport (HTTP here, a seat's WebSocket in :mod:`service.api.sockets`)."""
        refused = None
        try:
            status, body, extra = work()
        except RefereeError as refusal:
            problem = errors.problem_for(refusal)
            refused = errors.problem_response(problem.body(), problem.headers)
        except Problem as problem:
            refused = errors.problem_response(problem.body(), problem.headers)
        except Exception as failure:  # what Flask's handler would make of it: a logged 500
            errors.log_unhandled(failure, method, path, request_id)
            refused = errors.internal_error_response()
        if refused is not None:
            status, body, extra = refused.status, refused.get_data(), refused.headers.to_wsgi_list()
        self._recorder.finish(
            request_id, method, endpoint, path, int(status[:3]), time.perf_counter() - started, match_id, remote
        )
        return status, body, extra

    def move(
        self, match_id: str, bearer: str, state_token: str, action: dict[str, Any], idempotency_key: str | None
    ) -> Answer:
        """The move committed (and counted) or answered again."""
        result = self._referee.act(match_id, bearer, state_token, action, idempotency_key)
        body = orjson.dumps(result.body)
        if result.replayed:
            return "200 OK", body, [*_JSON, *REPLAYED.items()]
        self._referee.keep(result)  # the answer is written: the match may serve the next move
        metrics.sample(metrics.MOVES, result.game).inc()
        return "200 OK", body, _JSON

    def _ordinary(self, environ: dict[str, Any]) -> tuple[str, str, dict[str, Any], str | None] | None:
        """The bearer token, state token, action and Idempotency-Key of an ordinary move
        request, or None for anything Flask should see as it came. A body read here is put
        back as ``wsgi.input``, so Flask reads it as the client sent it."""
        bearer = parse_bearer(environ.get("HTTP_AUTHORIZATION", ""))
        if bearer is None:
            return None
        idempotency_key = environ.get("HTTP_IDEMPOTENCY_KEY")
        if idempotency_key is not None and not IDEMPOTENCY_KEY.match(idempotency_key):
            return None
        if environ.get("CONTENT_TYPE", "").partition(";")[0].strip().lower() != "application/json":
            return None
        length = get_content_length(environ)  # as Flask reads it: None when chunked or absent
        if not length or (self._max_body is not None and length > self._max_body):
            return None
        raw = environ["wsgi.input"].read(length)
        environ["wsgi.input"] = io.BytesIO(raw)
        if len(raw) != length:
            return None
        try:
            body = load_json_body(raw)  # what the route's parser reads: strict, nesting bounded
        except BadRequest:
            return None
        if type(body) is not dict or body.keys() != BODY_KEYS:
            return None
        state_token, action = body["state_token"], body["action"]
        if type(state_token) is not str or len(state_token) > MAX_STATE_TOKEN or type(action) is not dict:
            return None
        return bearer, state_token, action, idempotency_key
