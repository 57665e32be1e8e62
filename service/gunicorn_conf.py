"""gunicorn settings: ``gunicorn -c python:service.gunicorn_conf 'service:create_app()'``.

Read in the master before any worker forks, which is why it prepares what workers share:
one state-token secret (a random one per worker would make tokens fail on other workers) and
the Prometheus multiprocess folder. On the embedded store there is one worker process with
threads, since each process would hold its own matches.
"""

from __future__ import annotations

import os
import secrets
import tempfile

from service.observability import configure_logging

configure_logging()

if not os.environ.get("REFEREE_SECRET"):
    import logging

    logging.getLogger("referee").warning(
        "REFEREE_SECRET is not set: using one random secret for this server's lifetime."
    )
    os.environ["REFEREE_SECRET"] = secrets.token_hex(32)

if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="referee-metrics-")

bind = os.environ.get("REFEREE_BIND", "0.0.0.0:8000")
if os.environ.get("REDIS_URL"):
    workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
    worker_class = os.environ.get("REFEREE_WORKER_CLASS", "sync")
    threads = int(os.environ.get("REFEREE_THREADS", "1"))
else:
    workers = 1
    worker_class = "gthread"
    threads = int(os.environ.get("REFEREE_THREADS", "8"))
keepalive = 5
graceful_timeout = 10
accesslog = None


def child_exit(server: object, worker: object) -> None:
    """Drop a dead worker's live gauges from the shared metrics folder."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
