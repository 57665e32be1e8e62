"""A server-sent events client for tests: a real HTTP connection read event by event."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import orjson


@dataclass(frozen=True)
class Event:
    """One event: its ``id``, ``event`` name and ``data`` parsed as JSON."""

    id: str | None
    event: str | None
    data: Any


@dataclass(frozen=True)
class Comment:
    """A comment line (``: keep-alive``)."""

    text: str


class EventStream:
    """``GET <path>`` with ``Accept: text/event-stream``; :meth:`next` reads the next event
    or comment (``None`` when the server ended the stream). ``source`` is the local address
    to connect from (any of 127.0.0.0/8 on loopback: another client, as the server sees it)."""

    def __init__(
        self,
        base_url: str,
        path: str,
        headers: dict[str, str] | None = None,
        timeout: float = 10,
        source: str | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        self._connection = http.client.HTTPConnection(
            parts.hostname, parts.port, timeout=timeout, source_address=(source, 0) if source else None
        )
        self._connection.request("GET", path, headers={"Accept": "text/event-stream", **(headers or {})})
        self.response = self._connection.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.headers)
        if self.status == 200:
            # Every stream opens with a comment, sent at once so the headers leave with it.
            assert self.next(timeout) == Comment("open")

    def body(self) -> bytes:
        """The whole body of an answer that is not a stream (a problem, a 204)."""
        return self.response.read()

    def next(self, timeout: float = 10) -> Event | Comment | None:
        assert self._connection.sock is not None
        self._connection.sock.settimeout(timeout)
        fields: dict[str, str] = {}
        while True:
            raw = self.response.readline()
            if not raw:
                return None
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                return Comment(line[1:].strip())
            if line == "":
                if fields:
                    return Event(fields.get("id"), fields.get("event"), orjson.loads(fields.get("data", "null")))
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value

    def events(self, count: int, timeout: float = 10) -> list[Event]:
        """The next ``count`` events (comments skipped), each within ``timeout``."""
        found: list[Event] = []
        deadline = time.monotonic() + timeout * max(count, 1)
        while len(found) < count:
            item = self.next(timeout)
            assert item is not None, f"the stream ended after {len(found)} of {count} events"
            assert time.monotonic() < deadline, "events came too slowly"
            if isinstance(item, Event):
                found.append(item)
        return found

    def rest(self, timeout: float = 10) -> list[Event]:
        """Every event until the server ends the stream."""
        found: list[Event] = []
        while (item := self.next(timeout)) is not None:
            if isinstance(item, Event):
                found.append(item)
        return found

    def close(self) -> None:
        self._connection.close()

    def __enter__(self) -> EventStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
