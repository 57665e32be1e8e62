"""A stand-in for a bot's event stream (docs/bots.md's wire contract), for the unit tests of
the bridge's stream reader: what a real referee does rarely, it does on request. It drops every
connection (:meth:`FakeAccounts.drop_streams`), answers the next connections busy
(:meth:`FakeAccounts.busy`), goes silent (a long ``keep_alive_s``), and records the
``Last-Event-ID`` of each connection. It serves registration, challenges (to have events) and
the stream, in memory; the bridge's end-to-end tests run against ``referee serve``.
"""

from __future__ import annotations

import itertools
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request, Response

Body = dict[str, Any]


@dataclass
class _Bot:
    name: str
    key: str
    events: list[tuple[int, str, Body]] = field(default_factory=list)


class FakeAccounts:
    """The WSGI app: bots, challenges, streams."""

    def __init__(self, keep_alive_s: float = 1.0) -> None:
        self.keep_alive_s = keep_alive_s
        self.bots: dict[str, _Bot] = {}
        self.challenges: dict[str, Body] = {}
        self.last_event_ids: list[str | None] = []
        """The ``Last-Event-ID`` of every stream connection, in order."""
        self._ids = itertools.count(1)
        self._changed = threading.Condition()
        self._generation = 0
        self._busy: list[int] = []

    # What a test does to the streams.
    def drop_streams(self) -> None:
        """End every open stream (the client sees the connection close)."""
        with self._changed:
            self._generation += 1
            self._changed.notify_all()

    def busy(self, times: int, retry_after_s: int) -> None:
        """Answer the next ``times`` stream connections 429 with ``Retry-After``."""
        self._busy = [retry_after_s] * times

    # The app.
    def __call__(self, environ: Any, start_response: Any) -> Any:
        return self._route(Request(environ))(environ, start_response)

    def _route(self, request: Request) -> Response:
        path, method = request.path, request.method
        if path == "/v1/bots" and method == "POST":
            return self._register(request.get_json())
        bot = self._bot_of(request)
        if bot is None:
            return _problem(401, "unknown_bot_key")
        if path == "/v1/bots/me/events":
            return self._stream(bot, request)
        if path == "/v1/challenges" and method == "POST":
            return self._challenge(bot, request.get_json())
        return _problem(404, "not_found")

    def _bot_of(self, request: Request) -> _Bot | None:
        key = request.headers.get("Authorization", "").removeprefix("Bearer ")
        return next((bot for bot in self.bots.values() if bot.key == key), None)

    def _register(self, body: Body) -> Response:
        name = body["name"]
        if name.lower() in self.bots:
            return _problem(409, "bot_name_taken")
        bot = _Bot(name, "rbk_" + secrets.token_urlsafe(32))
        self.bots[name.lower()] = bot
        return _json(201, {"name": name, "key": bot.key, "description": "", "owner": None, "created": time.time()})

    def _append(self, name: str, kind: str, data: Body) -> None:
        with self._changed:
            event_id = next(self._ids)
            self.bots[name.lower()].events.append((event_id, kind, {"type": kind, "id": str(event_id), **data}))
            self._changed.notify_all()

    def _challenge(self, bot: _Bot, body: Body) -> Response:
        if any(name.lower() not in self.bots for name in body["opponents"]):
            return _problem(404, "unknown_bot")
        challenge = {
            "id": secrets.token_urlsafe(8),
            "game": body["game"],
            "players": body["players"],
            "options": body.get("options", {}),
            "time_control": body.get("time_control"),
            "seats": body.get("seats", "in_order"),
            "challenger": bot.name,
            "opponents": body["opponents"],
            "accepted": [],
            "status": "open",
            "created": time.time(),
            "expires_at": time.time() + 60,
            "match_id": None,
        }
        self.challenges[challenge["id"]] = challenge
        for name in [bot.name, *challenge["opponents"]]:
            self._append(name, "challenge", {"challenge": challenge})
        return _json(201, challenge)

    def _stream(self, bot: _Bot, request: Request) -> Response:
        if self._busy:
            return _problem(429, "rate_limited", {"Retry-After": str(self._busy.pop())})
        after_text = request.headers.get("Last-Event-ID")
        self.last_event_ids.append(after_text)
        with self._changed:
            after = int(after_text) if after_text else max((i for i, _, _ in bot.events), default=0)
            pending = [
                (i, kind, data)
                for i, kind, data in bot.events
                if kind == "challenge" and self.challenges[data["challenge"]["id"]]["status"] == "open"
            ]
            generation = self._generation

        def frames() -> Iterator[bytes]:
            yield b": open\n\n"
            for i, kind, data in pending:
                yield _frame(i, kind, data)
            sent = after
            while True:
                with self._changed:
                    fresh = [event for event in bot.events if event[0] > sent]
                    if not fresh and self._generation == generation:
                        self._changed.wait(self.keep_alive_s)
                        fresh = [event for event in bot.events if event[0] > sent]
                    if self._generation != generation:
                        return
                if not fresh:
                    yield b": keep-alive\n\n"
                for i, kind, data in fresh:
                    sent = i
                    yield _frame(i, kind, data)

        return Response(frames(), 200, content_type="text/event-stream")


def _frame(event_id: int, kind: str, data: Body) -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (event_id, kind.encode(), orjson.dumps(data))


def _json(status: int, body: Body) -> Response:
    return Response(orjson.dumps(body), status, content_type="application/json")


def _problem(status: int, code: str, headers: dict[str, str] | None = None) -> Response:
    body = {"type": "about:blank", "title": code, "status": status, "code": code}
    return Response(orjson.dumps(body), status, headers=headers, content_type="application/problem+json")


class _Quiet(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@dataclass
class Served:
    """The fake, served at ``url``."""

    accounts: FakeAccounts
    port: int
    server: BaseWSGIServer | None = None
    thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with socket.create_server(("127.0.0.1", self.port)) as listening:
            self.server = make_server(
                "127.0.0.1", self.port, self.accounts, threaded=True, request_handler=_Quiet, fd=listening.fileno()
            )
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        assert self.server is not None and self.thread is not None
        self.accounts.drop_streams()
        self.server.shutdown()
        self.thread.join()
        self.server.server_close()


@contextmanager
def serving(keep_alive_s: float = 1.0) -> Iterator[Served]:
    """The fake on a free loopback port."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = Served(FakeAccounts(keep_alive_s), port)
    served.start()
    try:
        yield served
    finally:
        served.stop()
