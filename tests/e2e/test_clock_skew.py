"""One clock for a match, whichever node looks: two gunicorn nodes (the README's command) on
one Redis, one of them with its clock shifted 1.5 s ahead or behind by libfaketime. Deadlines
are judged by Redis's clock (docs/clocks.md), so the shifted node neither times matches out
early nor accepts moves after their deadline, and stamps what it applies at the right time.

Times here are this machine's real clock, which Redis shares (both run here)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from service.clock import iso_ms
from tests.support.http import MatchClient, WireClient
from tests.support.servers import clean_env, free_port, readme_gunicorn_command, running

LIBFAKETIME = Path("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1")
SECRET = {"REFEREE_SECRET": "clock-skew-secret", "REFEREE_RATE_LIMIT": "", "WEB_CONCURRENCY": "1"}


def faketime(shift: str) -> dict[str, str]:
    """The environment that shifts a process's clock by ``shift`` (``+1.5s``, ``-1.5s``)."""
    if not LIBFAKETIME.exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI but no {LIBFAKETIME} (.ci/run installs Debian's faketime)")
        pytest.skip("libfaketime is not installed (apt-get install faketime)")
    return {"LD_PRELOAD": str(LIBFAKETIME), "FAKETIME": shift}


@contextmanager
def two_nodes(redis_url: str, shift: str, sweepers: bool = True) -> Iterator[tuple[WireClient, WireClient]]:
    """Node a with the true clock, node b shifted by ``shift``; both on ``redis_url``."""
    ports = [free_port(), free_port()]
    extra = {} if sweepers else {"REFEREE_SWEEPER": "0"}
    envs = [clean_env(REDIS_URL=redis_url, REFEREE_BIND=f"127.0.0.1:{port}", **SECRET, **extra) for port in ports]
    envs[1].update(faketime(shift))
    with ExitStack() as stack:
        a, b = (
            stack.enter_context(running(readme_gunicorn_command(), env, port))
            for env, port in zip(envs, ports, strict=True)
        )
        yield a.client, b.client


def sleep_until(epoch_ms: int) -> None:
    time.sleep(max(0.0, epoch_ms / 1000 - time.time()))


def entries(client: WireClient, match: MatchClient) -> list[dict[str, Any]]:
    return client.get(f"{match.url}/history?limit=50").get_json()["entries"]


def first_legal_move(client: WireClient, match: MatchClient, seat: int, legal: dict[str, Any] | None = None) -> Any:
    """Seat ``seat``'s first legal action (as ``legal`` listed them, else as listed now), sent
    to ``client``'s node."""
    on_node = MatchClient(client, match.created)
    legal = legal or on_node.legal(seat)
    return on_node.act(seat, legal["state_token"], legal["actions"][0])


def at_ms(entry: dict[str, Any]) -> int:
    return round(datetime.fromisoformat(entry["at"]).timestamp() * 1000)


def test_a_node_ahead_times_nothing_out_early_and_a_move_in_time_is_accepted(redis_url: str) -> None:
    with two_nodes(redis_url, "+1.5s") as (a, b):
        matches = [MatchClient.create(a, "the-game", 2, clock={"per_decision_s": 3}) for _ in range(3)]
        deadlines = [m.created["clock"]["deadline_ms"] for m in matches]
        assert abs(deadlines[0] - (time.time() * 1000 + 3000)) < 1500, "node a stamps by the true clock"
        early = min(deadlines) - 700
        sleep_until(early)  # node b's sweeper believes these deadlines passed 0.8 s ago
        for match in matches:
            for node in (b, a):
                body = node.get(match.url).get_json()
                assert body["status"] == "active" and body["version"] == 0, (node.base_url, body["clock"])
        moved = first_legal_move(a, matches[0], 0)
        assert moved.status_code == 200, moved.get_json()
        sleep_until(max(deadlines) + 1500)
        for match, deadline in zip(matches[1:], deadlines[1:], strict=True):
            (timeout,) = entries(a, match)
            assert timeout["kind"] == "timeout" and timeout["at"] == iso_ms(deadline), timeout
        assert [e["kind"] for e in entries(b, matches[0])][0] == "move"


def test_a_node_behind_refuses_a_late_move_and_stamps_what_it_applies_on_time(redis_url: str) -> None:
    """No sweeper runs: only the requests to node b decide."""
    with two_nodes(redis_url, "-1.5s", sweepers=False) as (a, b):
        in_time, late = (MatchClient.create(a, "the-game", 2, clock={"per_decision_s": 2}) for _ in range(2))
        deadline = in_time.created["clock"]["deadline_ms"]
        sleep_until(deadline - 600)
        sent = time.time() * 1000
        accepted = first_legal_move(b, in_time, 0)
        assert accepted.status_code == 200, accepted.get_json()
        (move,) = entries(a, in_time)
        assert sent - 50 <= at_ms(move) <= time.time() * 1000 + 50, "stamped when it came, by the true clock"
        late_deadline = late.created["clock"]["deadline_ms"]
        listed = late.legal(0)  # in time; the move is sent late
        sleep_until(late_deadline + 150)  # node b believes 1.35 s are left
        refused = first_legal_move(b, late, 0, listed)
        assert refused.status_code == 409 and refused.get_json()["code"] == "match_over", refused.get_json()
        (timeout,) = entries(a, late)
        assert timeout["kind"] == "timeout" and timeout["at"] == iso_ms(late_deadline)
