"""``referee serve`` in a subprocess that a test can ``kill -9`` whole: started in its own
process group (master and workers die together, as in a crash), answering on a free port once
``/healthz`` does, with everything it printed kept in a file. For the documented ways to run
the service see :mod:`tests.support.servers`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tests.support.http import WireClient
from tests.support.servers import clean_env, free_port


@dataclass
class Server:
    """A running ``referee serve``; ``output`` collects what it printed."""

    proc: subprocess.Popen
    client: WireClient
    output: Path

    def kill(self) -> None:
        """``kill -9`` the master and every worker at once."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()

    def printed(self) -> str:
        return self.output.read_text(errors="replace")


def start_serve(env: dict[str, str], output: Path, workers: int = 0, timeout: float = 20.0) -> Server:
    """``referee serve`` on a free port with ``env`` (and none of this process's service
    variables)."""
    port = free_port()
    command = [sys.executable, "-m", "service.server.cli", "serve", "--port", str(port)]
    if workers:
        command += ["--workers", str(workers)]
    with output.open("ab") as sink:
        proc = subprocess.Popen(
            command, env=clean_env(**env), stdout=sink, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(proc, WireClient(f"http://127.0.0.1:{port}"), output)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return server
        try:
            if server.client.get("/healthz").status_code == 200:
                return server
        except OSError:
            pass
        time.sleep(0.05)
    server.kill()
    raise RuntimeError(f"referee serve did not start:\n{server.printed()}")
