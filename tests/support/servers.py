"""Running the service as users do, in a subprocess on a free port, and misbehaving at it.

``documented_ways`` reads the commands from the README and the Dockerfile themselves, so a
test over them checks what a user would paste, not a copy that could drift.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.http import WireClient

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env(**overrides: str) -> dict[str, str]:
    """This process's environment without the service's own variables (a test's server
    must not inherit a developer's ``REDIS_URL`` or metrics folder), plus ``overrides``."""
    service_vars = re.compile(
        r"^(REDIS_URL|REDIS_CLUSTER_URL|REFEREE_(?!TEST_|REQUIRE_).*|WEB_CONCURRENCY|PROMETHEUS_MULTIPROC_DIR)$", re.I
    )
    env = {k: v for k, v in os.environ.items() if not service_vars.match(k)}
    env.pop("PYTHONPATH", None)
    return {**env, **overrides}


@dataclass
class Server:
    """A started server: its client, process and what it printed on stderr so far."""

    client: WireClient
    process: subprocess.Popen
    stderr_path: Path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")


@contextmanager
def running(command: list[str], env: dict[str, str], port: int, cwd: Path | None = None) -> Iterator[Server]:
    """Start ``command`` with exactly ``env``, wait until ``/healthz`` answers, stop it after.
    A server on the SQLite file store keeps its matches in the scratch folder (its default
    path is under ``XDG_DATA_HOME``), never in the user's data folder."""
    with tempfile.TemporaryDirectory(prefix="referee-test-") as scratch:
        env = {"XDG_DATA_HOME": scratch, **env}
        stderr_path = Path(scratch) / "stderr"
        with stderr_path.open("wb") as stderr:
            process = subprocess.Popen(command, env=env, cwd=cwd or scratch, stdout=subprocess.DEVNULL, stderr=stderr)
        server = Server(WireClient(f"http://127.0.0.1:{port}"), process, stderr_path)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if server.client.get("/healthz").status_code == 200:
                        break
                except OSError:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server did not start: {command}\n{server.stderr[-3000:]}")
                time.sleep(0.1)
            yield server
        finally:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)


def exits_with(command: list[str], env: dict[str, str], timeout: float = 30) -> subprocess.CompletedProcess:
    """Run a command that is expected to stop by itself (a refused configuration)."""
    with tempfile.TemporaryDirectory(prefix="referee-test-") as scratch:
        return subprocess.run(command, env=env, cwd=scratch, capture_output=True, text=True, timeout=timeout)


@dataclass
class SlowClients:
    """Connections that send a request a few bytes at a time and never finish it: half stall
    in the headers, half in a declared body (the two kinds of slowloris)."""

    port: int
    count: int
    sockets: list[socket.socket] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def open(self) -> None:
        for i in range(self.count):
            sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            if i % 2:
                sock.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: referee\r\n")
            else:
                sock.sendall(
                    b"POST /v1/matches HTTP/1.1\r\nHost: referee\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000\r\n\r\n{"
                )
            self.sockets.append(sock)
        threading.Thread(target=self._trickle, daemon=True).start()

    def _trickle(self) -> None:
        """One more byte on each connection every second, so none looks idle."""
        while not self._stop.wait(1.0):
            for i, sock in enumerate(self.sockets):
                try:
                    sock.sendall(b"X" if i % 2 else b" ")
                except OSError:
                    pass

    def close(self) -> None:
        self._stop.set()
        for sock in self.sockets:
            sock.close()


@contextmanager
def slow_clients(port: int, count: int) -> Iterator[SlowClients]:
    clients = SlowClients(port, count)
    try:
        clients.open()
        time.sleep(0.5)  # let the server accept and start reading every one of them
        yield clients
    finally:
        clients.close()


@dataclass(frozen=True)
class Way:
    """One documented way to run the service: its command line and the environment it adds."""

    name: str
    command: list[str]
    env: dict[str, str]
    redis: bool


def readme_gunicorn_command() -> list[str]:
    """The gunicorn command line of the README, run with this venv's gunicorn."""
    line = next(line for line in (ROOT / "README.md").read_text().splitlines() if re.match(r"^\S*gunicorn -c ", line))
    words = shlex.split(line.split("#")[0])
    return [str(BIN / "gunicorn"), *words[1:]]


def dockerfile_command() -> tuple[list[str], dict[str, str]]:
    """The Docker image's CMD and ENV, as ``docker run`` would start it."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    stage = text.split("\nFROM ")[-1]  # the last stage is the image
    command = json.loads(re.search(r"^CMD (\[.*\])$", stage, re.M).group(1))
    env: dict[str, str] = {}
    for line in re.findall(r"^ENV (.*)$", stage, re.M):
        for word in shlex.split(line):
            name, _, value = word.partition("=")
            env[name] = value
    command[0] = str(BIN / command[0])
    return command, env


def documented_ways(port: int, redis_url: str) -> list[Way]:
    """Every way the README and the Dockerfile tell a user to run the service."""
    secret = {"REFEREE_SECRET": "e2e-secret"}
    docker_command, docker_env = dockerfile_command()
    docker_env["REFEREE_BIND"] = docker_env["REFEREE_BIND"].rsplit(":", 1)[0] + f":{port}"
    return [
        Way("referee serve", [str(BIN / "referee"), "serve", "--port", str(port)], {}, redis=False),
        Way(
            "referee serve on Redis",
            [str(BIN / "referee"), "serve", "--port", str(port), "--workers", "2"],
            {"REDIS_URL": redis_url, **secret},
            redis=True,
        ),
        Way(
            "README gunicorn",
            readme_gunicorn_command(),
            {"REDIS_URL": redis_url, "REFEREE_BIND": f"127.0.0.1:{port}", **secret},
            redis=True,
        ),
        Way("Docker image", docker_command, {**docker_env, "REDIS_URL": redis_url, **secret}, redis=True),
    ]
