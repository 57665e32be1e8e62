"""A bot's event stream, ``GET /v1/bots/me/events``, read as server-sent events and held open
across whatever happens to the connection.

:func:`read_events` turns the lines of a stream into events. :class:`EventStream` yields the
events of the account for as long as it is asked to: when the connection drops, or the server
ends the stream, or nothing (not even a keep-alive, sent at least every 15 s) arrives for
``silence_s``, it connects again with ``Last-Event-ID``, so the server resumes after the last
event seen; busy answers (429, 503) are waited out as their ``Retry-After`` says; a refused key
(401, 403) ends it with :class:`KeyRefused`, since trying again cannot help.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson

from service.arena.client import ApiError, retry_after_s
from service.arena.errors import ArenaError

EVENTS_PATH = "/v1/bots/me/events"
SILENCE_S = 45.0
"""How long the stream may say nothing before it is taken for dead: three keep-alives."""
_LONGEST_RETRY_AFTER_S = 300.0
_FIRST_BACKOFF_S = 0.5
_LONGEST_BACKOFF_S = 30.0


@dataclass(frozen=True)
class Event:
    """One event of the account: its ``id``, its ``type`` and its ``data`` (the JSON object)."""

    id: str | None
    type: str
    data: dict[str, Any]


def read_events(lines: Iterable[str]) -> Iterator[Event | None]:
    """The events of a server-sent event stream's ``lines`` (without their line ends), and
    ``None`` for each comment (a keep-alive: the connection is alive). Per the SSE format, a
    frame ends with a blank line, ``data`` lines join with newlines, and a frame without data
    is no event."""
    fields: dict[str, str] = {}
    data: list[str] = []
    for line in lines:
        if line.startswith(":"):
            yield None
            continue
        if line == "":
            if data:
                body = orjson.loads("\n".join(data))
                if isinstance(body, dict):
                    kind = fields.get("event") or str(body.get("type", "message"))
                    yield Event(fields.get("id") or body.get("id"), kind, body)
            fields, data = {}, []
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        else:
            fields[name] = value


class KeyRefused(ArenaError):
    """The referee refused the bot's key (unknown, rotated or retired)."""


class EventStream:
    """The account's events, in order, from ``last_event_id`` on (``None``: from the pending
    state), for as long as ``stop`` is not set. ``on_connect`` hears of every (re)connection
    and ``on_wait`` of every pause with its reason and seconds."""

    def __init__(
        self,
        base_url: str,
        key: str,
        stop: threading.Event,
        last_event_id: str | None = None,
        silence_s: float = SILENCE_S,
        on_connect: Callable[[str | None], None] = lambda last_event_id: None,
        on_wait: Callable[[str, float], None] = lambda reason, seconds: None,
    ) -> None:
        self.last_event_id = last_event_id
        self._stop = stop
        self._key = key
        self._on_connect = on_connect
        self._on_wait = on_wait
        timeout = httpx.Timeout(10.0, read=silence_s)
        self._http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout)
        self._response: httpx.Response | None = None

    def close(self) -> None:
        """Hang up (from any thread: a read under way ends)."""
        response = self._response
        if response is not None:
            response.close()
        self._http.close()

    def __iter__(self) -> Iterator[Event]:
        backoff_s = _FIRST_BACKOFF_S
        while not self._stop.is_set():
            try:
                yield from self._connect()
                backoff_s = _FIRST_BACKOFF_S  # the server ended a stream that worked: at once
            except _Busy as busy:
                self._wait(f"busy ({busy.status})", busy.seconds)
            except (httpx.TransportError, httpx.StreamError, _Unexpected) as exc:
                if self._stop.is_set():
                    return
                self._wait(f"connection lost ({exc or type(exc).__name__})", backoff_s * random.uniform(0.8, 1.2))
                backoff_s = min(2 * backoff_s, _LONGEST_BACKOFF_S)

    def _wait(self, reason: str, seconds: float) -> None:
        self._on_wait(reason, seconds)
        self._stop.wait(seconds)

    def _connect(self) -> Iterator[Event]:
        headers = {"Authorization": f"Bearer {self._key}", "Accept": "text/event-stream"}
        if self.last_event_id is not None:
            headers["Last-Event-ID"] = self.last_event_id
        with self._http.stream("GET", EVENTS_PATH, headers=headers) as response:
            self._response = response
            try:
                if response.status_code in (429, 503):
                    raise _Busy(response.status_code, retry_after_s(response, _LONGEST_RETRY_AFTER_S))
                if response.status_code in (401, 403):
                    response.read()
                    raise KeyRefused(str(ApiError(response.status_code, _problem(response))))
                if response.status_code != 200:
                    raise _Unexpected(f"HTTP {response.status_code}")
                self._on_connect(self.last_event_id)
                for event in read_events(response.iter_lines()):
                    if self._stop.is_set():
                        return
                    if event is not None:
                        if event.id is not None:
                            self.last_event_id = event.id
                        yield event
            finally:
                self._response = None


def _problem(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        body = None
    return body if isinstance(body, dict) else {"detail": response.text[:300]}


class _Busy(Exception):
    def __init__(self, status: int, seconds: float) -> None:
        super().__init__(status)
        self.status = status
        self.seconds = seconds


class _Unexpected(Exception):
    """An answer that is neither a stream nor a refusal of the key: try again later."""
