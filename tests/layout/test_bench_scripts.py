"""Every benchmark still starts from a checkout: a moved module breaks a script only when
someone runs it, which for a benchmark may be weeks later."""

from __future__ import annotations

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
