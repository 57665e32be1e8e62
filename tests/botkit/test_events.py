"""The bot's event stream: SSE frames read into events, and a stream held across dropped
connections (resumed with Last-Event-ID), busy answers (waited out per Retry-After) and
refused keys (the end), against the fake accounts server over HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import httpx
import pytest

from service.botkit.events import Event, EventStream, KeyRefused, read_events
from tests.support.fake_accounts import Served, serving


def test_frames_become_events_and_comments_say_the_stream_is_alive() -> None:
    lines = [
        ": open",
        "",
        "id: 7",
        "event: challenge",
        'data: {"type": "challenge",',
        'data:  "id": "7"}',
        "",
        ": keep-alive",
        "",
        "retry: 1000",
        "",
        "id: 8",
        'data: {"type": "match_finished", "id": "8"}',
        "",
    ]
    assert list(read_events(lines)) == [
        None,
        Event("7", "challenge", {"type": "challenge", "id": "7"}),
        None,
        Event("8", "match_finished", {"type": "match_finished", "id": "8"}),
    ]


@pytest.fixture
def fake() -> Iterator[Served]:
    with serving(keep_alive_s=0.2) as served:
        yield served


def register(fake: Served, name: str) -> str:
    answer = httpx.post(f"{fake.url}/v1/bots", json={"name": name})
    assert answer.status_code == 201
    return str(answer.json()["key"])


def challenge(fake: Served, key: str, opponent: str) -> str:
    body = {"game": "the-game", "players": 2, "opponents": [opponent]}
    answer = httpx.post(f"{fake.url}/v1/challenges", json=body, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 201
    return str(answer.json()["id"])


def reading(stream: EventStream) -> list[Event]:
    """Read ``stream`` in a thread into the list returned."""
    seen: list[Event] = []
    threading.Thread(target=lambda: seen.extend(stream), daemon=True).start()
    return seen


def wait_for(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_dropped_stream_resumes_after_the_last_event_seen(fake: Served) -> None:
    alice, bob = register(fake, "alice"), register(fake, "bob")
    stop = threading.Event()
    connections: list[str | None] = []
    stream = EventStream(fake.url, alice, stop, on_connect=connections.append)
    seen = reading(stream)
    wait_for(lambda: len(connections) == 1)
    first = challenge(fake, bob, "alice")
    wait_for(lambda: len(seen) == 1)
    fake.accounts.drop_streams()
    wait_for(lambda: len(connections) == 2)
    second = challenge(fake, bob, "alice")
    wait_for(lambda: len(seen) == 3)
    time.sleep(0.3)
    stop.set()
    stream.close()
    # The open challenge is pending, so the referee replays it on connect; then only what is new.
    assert [event.data["challenge"]["id"] for event in seen] == [first, first, second]
    assert fake.accounts.last_event_ids == [None, seen[0].id]
    assert connections == [None, seen[0].id]
    assert stream.last_event_id == seen[2].id


def test_a_busy_answer_is_waited_out_as_retry_after_says(fake: Served) -> None:
    alice = register(fake, "alice")
    fake.accounts.busy(1, retry_after_s=1)
    stop = threading.Event()
    waits: list[tuple[str, float]] = []
    connected = threading.Event()
    stream = EventStream(
        fake.url, alice, stop, on_connect=lambda _: connected.set(), on_wait=lambda *w: waits.append(w)
    )
    started = time.monotonic()
    reading(stream)
    assert connected.wait(10)
    assert time.monotonic() - started >= 1.0
    assert waits == [("busy (429)", 1.0)]
    stop.set()
    stream.close()


def test_a_silent_connection_is_taken_for_dead_and_replaced() -> None:
    """No keep-alive for longer than ``silence_s``: the bridge connects again."""
    with serving(keep_alive_s=30) as fake:
        alice = register(fake, "alice")
        stop = threading.Event()
        connections: list[str | None] = []
        stream = EventStream(fake.url, alice, stop, silence_s=0.5, on_connect=connections.append)
        reading(stream)
        wait_for(lambda: len(connections) >= 2, timeout_s=5)
        stop.set()
        stream.close()


def test_a_refused_key_ends_the_stream(fake: Served) -> None:
    stream = EventStream(fake.url, "rbk_not-a-key", threading.Event())
    with pytest.raises(KeyRefused, match="401 unknown_bot_key"):
        next(iter(stream))
    stream.close()
