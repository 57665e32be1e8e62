"""What the service does at start, run as users run it: it listens where ``REFEREE_BIND``
says, refuses a configuration it cannot run with (naming the variable), is not ready when its
game data cannot load, and prints no warning."""

from __future__ import annotations

import pytest

from tests.support.servers import BIN, clean_env, exits_with, free_port, readme_gunicorn_command, running

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
