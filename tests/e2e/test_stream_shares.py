"""One client cannot take a server's stream slots: against ``referee serve`` and the README's
gunicorn command (two workers on Redis), a client connecting from one address, or with one
seat token from many addresses, gets at most half of each worker's slots, and other clients
still get streams, while the cap on all streams stays.

Clients are told apart by their source address: every address of 127.0.0.0/8 reaches the
server over loopback, and the server sees each as another client."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.support.http import MatchClient, WireClient, auth
from tests.support.killable import start_serve
from tests.support.servers import clean_env, free_port, readme_gunicorn_command, running
from tests.support.sse import Event, EventStream

LIMIT = 24
"""``REFEREE_STREAM_LIMIT``: streams per worker."""
QUIET = {
    "REFEREE_SECRET": "stream-shares-secret",
    "REFEREE_RATE_LIMIT": "",
    "REFEREE_ACCESS_LOG": "0",
    "REFEREE_STREAM_LIMIT": str(LIMIT),
}


@contextmanager
def referee_serve(tmp_path: Path) -> Iterator[tuple[str, int]]:
    server = start_serve({**QUIET, "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3")}, tmp_path / "serve.log")
    try:
        assert server.proc.poll() is None, server.printed()
        yield server.client.base_url, 1
    finally:
        server.kill()  # open streams would hold a graceful stop for its whole timeout


@contextmanager
def readme_gunicorn(redis_url: str) -> Iterator[tuple[str, int]]:
    port = free_port()
    env = clean_env(REDIS_URL=redis_url, REFEREE_BIND=f"127.0.0.1:{port}", WEB_CONCURRENCY="2", **QUIET)
    with running(readme_gunicorn_command(), env, port) as server:
        yield server.client.base_url, 2


def take_all(base_url: str, path: str, sources: list[str], headers: dict[str, str] | None = None) -> list[EventStream]:
    """Streams opened from ``sources`` in turn until eight in a row are refused (so every
    worker had its say), each refusal a 503 ``too_many_streams``."""
    held: list[EventStream] = []
    refused_in_a_row = attempt = 0
    while refused_in_a_row < 8:
        stream = EventStream(base_url, path, headers, timeout=5, source=sources[attempt % len(sources)])
        attempt += 1
        if stream.status == 200:
            held.append(stream)
            refused_in_a_row = 0
            continue
        assert stream.status == 503 and b"too_many_streams" in stream.body()
        assert stream.headers["Retry-After"] == "5"
        stream.close()
        refused_in_a_row += 1
        assert attempt < 10 * LIMIT, "never refused"
    return held


@pytest.mark.parametrize("server", ["referee serve", "README gunicorn"])
def test_one_client_gets_a_share_and_the_others_still_get_streams(server: str, tmp_path: Path, request) -> None:
    serving = (
        referee_serve(tmp_path) if server == "referee serve" else readme_gunicorn(request.getfixturevalue("redis_url"))
    )
    with serving as (base_url, workers):
        match = MatchClient.create(WireClient(base_url), "esploratore", 2)
        path = f"{match.url}/stream"
        held: list[EventStream] = []
        try:
            greedy = take_all(base_url, path, ["127.0.0.2"])
            held += greedy
            assert 0 < len(greedy) <= workers * LIMIT // 2, "one address takes at most half of each worker's slots"
            seat = take_all(base_url, path, [f"127.0.1.{i}" for i in range(1, 200)], auth(match.by_seat[0]))
            held += seat
            # Half of what each worker has left; the workers need not have split the greedy
            # client's streams evenly (whichever worker accepts first takes the connection).
            rest = workers * LIMIT - len(greedy)
            assert 0 < len(seat) <= rest // 2 + workers, "one token, many addresses: at most half of the rest"
            for i in range(4):
                other = EventStream(base_url, path, timeout=5, source=f"127.0.2.{i + 1}")
                held.append(other)
                assert other.status == 200, (i, other.body())
                first = other.next()
                assert isinstance(first, Event) and first.data["version"] == 0
            newcomers = take_all(base_url, path, [f"127.0.3.{i}" for i in range(1, 250)])
            held += newcomers
            assert newcomers, "the last slots go to newcomers"
            assert LIMIT <= len(held) <= workers * LIMIT, "a full worker refuses them all, and the cap stays"
        finally:
            for stream in held:
                stream.close()
