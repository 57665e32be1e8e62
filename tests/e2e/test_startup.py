"""What the service does at start, run as users run it: it listens where ``REFEREE_BIND``
says, refuses a configuration it cannot run with (naming the variable), is not ready when its
game data cannot load, prints no warning, and keeps a control socket of its own."""

from __future__ import annotations

import re
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.servers import BIN, Server, clean_env, exits_with, free_port, readme_gunicorn_command, running

REFEREE_SERVE = [str(BIN / "referee"), "serve"]


@pytest.mark.parametrize("command", [REFEREE_SERVE, readme_gunicorn_command()], ids=["referee serve", "gunicorn"])
@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"REFEREE_MATCH_TTL": "7d"}, "REFEREE_MATCH_TTL='7d'"),
        ({"REFEREE_ACCESS_LOG": "yes please"}, "REFEREE_ACCESS_LOG"),
        ({"REDIS_URL": "redis://127.0.0.1:6379/0"}, "REFEREE_SECRET is not set but REDIS_URL is"),
    ],
    ids=["ttl", "boolean", "no-secret"],
)
def test_a_configuration_it_cannot_run_with_stops_the_start(
    command: list[str], env: dict[str, str], named: str
) -> None:
    result = exits_with(command, clean_env(REFEREE_BIND=f"127.0.0.1:{free_port()}", **env))
    assert result.returncode == 2, result.stderr[-2000:]
    assert named in result.stderr
    assert "Traceback" not in result.stderr


def test_referee_serve_listens_on_referee_bind() -> None:
    port = free_port()
    with running(REFEREE_SERVE, clean_env(REFEREE_BIND=f"127.0.0.1:{port}"), port) as server:
        assert server.client.get("/readyz").status_code == 200


def test_not_ready_when_the_game_data_cannot_load(tmp_path) -> None:
    port = free_port()
    env = clean_env(REFEREE_SEEDS_DIR=str(tmp_path), REFEREE_ACCESS_LOG="0")
    with running([*REFEREE_SERVE, "--port", str(port)], env, port) as server:
        ready = server.client.get("/readyz")
        assert ready.status_code == 503 and ready.get_json()["games"] == "unavailable"
        assert "seeds" in server.stderr


@pytest.mark.parametrize("command", [REFEREE_SERVE, readme_gunicorn_command()], ids=["referee serve", "gunicorn"])
def test_a_start_prints_no_warning(command: list[str]) -> None:
    """gevent patches the standard library in the master, before anything imports ``ssl`` or
    makes a lock, so a worker never inherits an unpatched one (and gevent has nothing to warn
    about: its ``MonkeyPatchWarning`` named redis' ``SSLContext``, imported unpatched)."""
    port = free_port()
    with running(command, clean_env(REFEREE_BIND=f"127.0.0.1:{port}", REFEREE_ACCESS_LOG="0"), port) as server:
        assert server.client.get("/readyz").status_code == 200
        assert server.client.post("/v1/matches", json={"game": "the-game", "players": 2}).status_code == 201
        assert "Warning" not in server.stderr, server.stderr


def control_socket(server: Server) -> Path:
    """The control socket the server says it listens on (``gunicornc -s``)."""
    found = re.search(r"Control socket listening at (\S+)", server.stderr)
    assert found, server.stderr
    return Path(found.group(1))


def test_two_servers_on_one_host_keep_their_own_control_socket() -> None:
    """Both in the same home folder: stopping one leaves the other's socket, which answers."""
    # A short home: a socket's path must fit in 108 bytes, which pytest's tmp_path (under
    # popen-gw1/<test name>) may not leave room for.
    with tempfile.TemporaryDirectory(prefix="home-") as short:
        home = Path(short)
        env = {k: v for k, v in clean_env(HOME=str(home), REFEREE_ACCESS_LOG="0").items() if k != "XDG_RUNTIME_DIR"}
        first, second = free_port(), free_port()
        with running([*REFEREE_SERVE, "--port", str(second)], env, second) as staying:
            with running([*REFEREE_SERVE, "--port", str(first)], env, first) as leaving:
                leaving_socket = wait_for(lambda: control_socket(leaving))
            staying_socket = wait_for(lambda: control_socket(staying))
            assert staying_socket != leaving_socket
            assert staying_socket.parent == home / ".gunicorn" and staying_socket.exists()
            status = subprocess.run(
                [str(BIN / "gunicornc"), "-s", str(staying_socket), "-c", "show workers"],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            )
            assert status.returncode == 0 and "Total: 1 worker" in status.stdout, status.stdout + status.stderr


def wait_for(find: Callable[[], Path]) -> Path:
    """What ``find`` returns once it stops failing (the master logs its control socket once
    its first worker runs, a moment after the server answers)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            return find()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
