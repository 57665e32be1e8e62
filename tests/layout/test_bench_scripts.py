"""Every benchmark still starts from a checkout: a moved module breaks a script only when
someone runs it, which for a benchmark may be weeks later."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(path for path in (ROOT / "bench").glob("*.py") if path.name != "bare_app.py")


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


def test_the_bare_endpoint_imports() -> None:
    """The baseline app is served by gunicorn as ``bench.bare_app:app``."""
    run = subprocess.run(
        [sys.executable, "-c", "import bench.bare_app as m; assert callable(m.app)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
