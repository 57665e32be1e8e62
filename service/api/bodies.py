"""Reading JSON request bodies: strict, bounded, and never a 500.

webargs reads bodies with the standard library's ``json``, which accepts lone surrogates
(``"\\ud800"``, which no JSON encoder can write back: the request fingerprint and the stored
log would fail), integers of any size, and raises ``RecursionError`` on bodies nested about
1,000 deep. Here bodies go through orjson, which refuses lone surrogates, NaN and Infinity
(400 ``invalid_json``) and reads integers beyond 64 bits as floats (which every integer field
then refuses); a body nested deeper than :data:`MAX_DEPTH` is refused before any schema sees
it. No request body of this API is nested more than four levels deep.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import flask
import flask_smorest
import orjson
from webargs import core
from webargs.flaskparser import FlaskParser, is_json_request

from service.api.problems import BadRequest

MAX_DEPTH = 32
"""The deepest nesting of objects and arrays a request body may have."""


def depth_exceeds(value: Any, limit: int) -> bool:
    """Whether ``value`` nests objects/arrays deeper than ``limit`` (iterative: any depth)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children: Iterable[Any]
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def load_json_body(data: bytes | str) -> Any:
    """The parsed body; :class:`BadRequest` ``invalid_json`` when it is not strict JSON or
    nests deeper than :data:`MAX_DEPTH`."""
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise BadRequest("invalid_json", f"The request body is not valid JSON: {exc}.") from exc
    if depth_exceeds(body, MAX_DEPTH):
        raise BadRequest("invalid_json", f"The request body nests deeper than {MAX_DEPTH} levels.")
    return body


class StrictJsonParser(FlaskParser):
    """webargs' Flask parser reading JSON bodies with :func:`load_json_body`."""

    def _raw_load_json(self, req: flask.Request) -> Any:
        if not is_json_request(req):
            return core.missing
        return load_json_body(req.get_data(cache=True))


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint whose ``@arguments`` read bodies strictly.

    A body or query that fails its schema is answered 400 ``invalid_body``
    (:class:`service.api.errors.ProblemApi`), not webargs' 422: the document says so.
    """

    ARGUMENTS_PARSER = StrictJsonParser()

    def arguments(self, schema: Any, **kwargs: Any) -> Any:
        decorate = super().arguments(schema, **kwargs)

        def decorator(func: Any) -> Any:
            wrapped = decorate(func)
            responses = wrapped._apidoc["arguments"]["responses"]
            responses.pop(self.ARGUMENTS_PARSER.DEFAULT_VALIDATION_STATUS, None)
            responses[400] = "BAD_REQUEST"
            return wrapped

        return decorator
