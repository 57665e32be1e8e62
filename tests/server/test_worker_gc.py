"""The gunicorn settings raise the cyclic collector's young threshold for the workers they fork
(service/server/gunicorn_conf.py says why: other moves' tail latency beside many open streams)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_settings_raise_the_young_collection_threshold_before_workers_fork(tmp_path: Path) -> None:
    probe = (
        "import gc, service.server.gunicorn_conf as conf; print(gc.get_threshold()[0], conf.YOUNG_COLLECTION_THRESHOLD)"
    )
    env = {"PATH": "/usr/bin:/bin", "REFEREE_DB_PATH": str(tmp_path / "matches.sqlite3"), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    threshold, wanted = map(int, done.stdout.split())
    assert threshold == wanted > 700  # CPython's default is 700
