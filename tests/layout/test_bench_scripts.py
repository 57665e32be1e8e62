"""Every benchmark still starts from a checkout: a moved module breaks a script only when
someone runs it, which for a benchmark may be weeks later."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted((ROOT / "bench").glob("*.py"))
SCRIPTS = [path for path in MODULES if 'if __name__ == "__main__":' in path.read_text()]
HELPERS = [path for path in MODULES if path not in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.stem)
def test_a_benchmark_answers_help(script: Path) -> None:
    """``--help`` runs every import at the top of the script, and its argument parser."""
    run = subprocess.run(
        [sys.executable, str(script.relative_to(ROOT)), "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "usage:" in run.stdout


@pytest.mark.parametrize("module", HELPERS, ids=lambda path: path.stem)
def test_a_module_the_benchmarks_serve_imports(module: Path) -> None:
    """The bare endpoint and the A/B patches are loaded by gunicorn as ``bench.<name>``."""
    run = subprocess.run(
        [sys.executable, "-c", f"import bench.{module.stem}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr


def test_the_levels_benchmark_keeps_each_match_as_it_ends(tmp_path: Path) -> None:
    """``bench/levels.py --results`` appends one JSON line per match, so a long run that is
    stopped keeps the matches it played and runs pool match by match."""
    results = tmp_path / "matches.jsonl"
    command = [sys.executable, "bench/levels.py", "--games", "halunken-und-spelunken", "--players", "2"]
    command += ["--levels", "2", "--matches", "3", "--first-match", "5", "--workers", "1", "--results", str(results)]
    for _ in range(2):  # a second run appends
        run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert sorted(line["match"] for line in lines) == [5, 5, 6, 6, 7, 7]
    for line in lines:
        assert line["seed"] == 2000 + line["match"] and line["seat"] == line["match"] % 2
        assert line["lineup"][line["seat"]] == "level2" and line["outcome"]["ranks"][line["seat"]] in (1, 2)
