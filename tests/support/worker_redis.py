"""A Redis server of its own for each extra pytest-xdist worker.

The suite runs on two workers (``-n 2`` in pyproject.toml). Some tests act on a whole Redis
server, not only on their own keys: they fill its memory, kill its clients, flush its script
cache or count the commands it ran. Beside them, the other worker's tests would fail for no
fault of the service. So the first worker (and a run without xdist) uses the Redis the
README names (``REFEREE_TEST_REDIS_URL``, or 127.0.0.1:6379/15); every other worker starts a
``redis-server`` without persistence on a free port, for its session.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import time

import redis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_private() -> str | None:
    """The URL of a fresh ``redis-server`` stopped when this process exits; ``None`` when
    ``redis-server`` is not installed (the tests then skip or fail as without Redis)."""
    server = shutil.which("redis-server")
    if server is None:
        return None
    port = _free_port()
    command = [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    atexit.register(process.kill)
    client = redis.Redis(port=port, socket_connect_timeout=0.2)
    for _ in range(100):
        try:
            client.ping()
            return f"redis://127.0.0.1:{port}/15"
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    return None


def redis_url_for_this_worker(shared: str) -> str:
    """``shared`` for the first xdist worker and outside xdist; a private server's URL else."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    if worker == "gw0":
        return shared
    return _start_private() or shared
