"""Every problem code is in the catalogue the OpenAPI document publishes as an enum."""

from __future__ import annotations

import ast
from pathlib import Path

import orjson

from service.api.problem_codes import all_codes
from service.server.cli import spec_bytes

SERVICE = Path(__file__).resolve().parents[2] / "service"
_RAISERS = {
    "Problem",
    "TooMany",
    "TooManyRequests",
    "BadRequest",
    "Unauthorized",
    "Forbidden",
    "NotFound",
    "Conflict",
    "Unprocessable",
    "Unavailable",
    "UpgradeRequired",
    "RefereeError",
    "InvalidRequest",
    "NotAuthenticated",
    "NotPermitted",
    "Refused",
    "EngineError",
    "IllegalAction",
    "InvalidOptions",
    "no",
}


def codes_in_source() -> dict[str, str]:
    """Every string literal given as the code of a problem, a referee error or an engine error in service/."""
    found: dict[str, str] = {}
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            position = 1 if name == "_problem" else 0
            if name not in _RAISERS | {"_problem"} or len(node.args) <= position:
                continue
            code = node.args[position]
            if isinstance(code, ast.Constant) and isinstance(code.value, str):
                found.setdefault(code.value, f"{path.relative_to(SERVICE.parent)}:{node.lineno}")
    return found


def test_every_code_raised_in_the_source_is_catalogued() -> None:
    missing = {code: where for code, where in codes_in_source().items() if code not in all_codes()}
    assert not missing, f"add these codes to service/api/problem_codes.py: {missing}"


def test_the_catalogue_lists_no_code_that_is_never_raised() -> None:
    from service.api.errors import _HTTP_CODES

    raised = set(codes_in_source()) | set(_HTTP_CODES.values()) | {"http_error", "not_your_turn", "engine_error"}
    assert set(all_codes()) - raised == set()


def test_the_document_publishes_the_catalogue_as_an_enum() -> None:
    spec = orjson.loads(spec_bytes())
    assert spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"] == list(all_codes())
