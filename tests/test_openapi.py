"""The committed OpenAPI document is the one the app serves."""

from __future__ import annotations

import orjson

from pathlib import Path

from service.cli import main, spec_bytes

COMMITTED = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def test_committed_spec_matches_the_served_one() -> None:
    assert COMMITTED.read_bytes() == spec_bytes(), "run 'referee openapi --write'"


def test_openapi_check_command_detects_drift(tmp_path) -> None:
    path = tmp_path / "openapi.json"
    assert main(["openapi", "--write", "--path", str(path)]) == 0
    assert main(["openapi", "--check", "--path", str(path)]) == 0
    path.write_text(path.read_text().replace("Game referee", "Something else"))
    assert main(["openapi", "--check", "--path", str(path)]) == 1


def test_spec_documents_security_and_problem_responses() -> None:
    spec = orjson.loads(spec_bytes())
    assert spec["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    action = spec["paths"]["/v1/matches/{match_id}/actions"]["post"]
    assert {"409", "422", "403"} <= set(action["responses"])
    conflict = spec["components"]["responses"]["CONFLICT"]
    assert "application/problem+json" in conflict["content"]
