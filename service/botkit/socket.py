"""A seat's WebSocket to the referee (docs/socket.md), for bots: a plain socket and wsproto.

Synchronous and small on purpose: :meth:`SeatSocket.act` sends one move and waits for its
answer; versions pushed after :meth:`SeatSocket.follow` wait in :attr:`SeatSocket.events`
until the bot reads them. Nothing here imports the referee itself.
"""

from __future__ import annotations

import base64
import collections
import json
import os
import re
import socket
from typing import Any
from urllib.parse import urlsplit

from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import CloseConnection, Ping, TextMessage
from wsproto.utilities import LocalProtocolError, generate_accept_token

Body = dict[str, Any]


class SocketClosed(ConnectionError):
    """The referee closed the socket: its close ``code`` and ``reason``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"socket closed: {code} {reason}")
        self.code = code
        self.reason = reason


class SocketRefused(ConnectionError):
    """The referee answered the upgrade request with ``status`` and a problem body."""

    def __init__(self, status: int, body: str) -> None:
        super().__init__(f"upgrade refused: {status} {body}")
        self.status = status
        self.body = body


class SeatSocket:
    """One seat's open channel to ``base_url`` (``http://host:port``) for ``match_id``."""

    def __init__(self, base_url: str, match_id: str, token: str, timeout_s: float = 30.0) -> None:
        url = urlsplit(base_url)
        self._sock = socket.create_connection((url.hostname or "127.0.0.1", url.port or 80), timeout_s)
        self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        key = base64.b64encode(os.urandom(16))
        self._sock.sendall(
            b"GET /v1/matches/%s/socket HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer %s\r\n\r\n"
            % (match_id.encode(), url.netloc.encode(), key, token.encode())
        )
        head, rest = self._read_head()
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            while length is not None and len(rest) < int(length.group(1)):
                rest += self._sock.recv(65536)
            self._sock.close()
            raise SocketRefused(status, rest.decode(errors="replace"))
        if generate_accept_token(key) not in head:
            raise SocketRefused(status, "wrong Sec-WebSocket-Accept")
        self._ws = Connection(ConnectionType.CLIENT)
        if rest:
            self._ws.receive_data(rest)
        self._texts: list[str] = []
        self._next_id = 0
        self.events: collections.deque[Body] = collections.deque()
        """Versions pushed after :meth:`follow` (``SocketEvent``), oldest first."""

    def _read_head(self) -> tuple[bytes, bytes]:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self._sock.recv(4096)
            if not chunk:
                raise SocketClosed(1006, "closed during the upgrade")
            data += chunk
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    def act(self, state_token: str, action: Body, idempotency_key: str | None = None) -> Body:
        """Send a move; its ``SocketAnswer`` (``status``, ``body``: the new state or a problem)."""
        message: Body = {"state_token": state_token, "action": action}
        if idempotency_key is not None:
            message["idempotency_key"] = idempotency_key
        return self.request(message)

    def follow(self, after: int | None = None) -> Body:
        """Have the referee push the match's versions after ``after`` into :attr:`events`."""
        return self.request({"op": "follow", "from": after})

    def request(self, message: Body) -> Body:
        """Send ``message`` with a new ``id``; the answer with that id."""
        self._next_id += 1
        message_id = str(self._next_id)
        self.send_text(json.dumps({"id": message_id, **message}))
        while True:
            received = self.receive()
            if "event" in received:
                self.events.append(received)
            elif received.get("id") == message_id:
                return received

    def next_event(self) -> Body:
        """The oldest pushed version, waiting for one if none is here yet."""
        while not self.events:
            received = self.receive()
            if "event" in received:
                self.events.append(received)
        return self.events.popleft()

    def send_text(self, text: str) -> None:
        self._sock.sendall(self._ws.send(TextMessage(data=text)))

    def receive(self) -> Body:
        """The next message from the referee (answering pings on the way)."""
        while True:
            for event in self._ws.events():
                if isinstance(event, TextMessage):
                    self._texts.append(event.data)
                    if event.message_finished:
                        text, self._texts = "".join(self._texts), []
                        answer: Body = json.loads(text)
                        return answer
                elif isinstance(event, Ping):
                    self._sock.sendall(self._ws.send(event.response()))
                elif isinstance(event, CloseConnection):
                    raise SocketClosed(event.code, event.reason or "")
            data = self._sock.recv(65536)
            if not data:
                raise SocketClosed(1006, "the connection ended without a close frame")
            self._ws.receive_data(data)

    def close(self) -> None:
        """Close the channel (code 1000) and the connection."""
        try:
            self._sock.sendall(self._ws.send(CloseConnection(code=1000)))
        except (OSError, LocalProtocolError):
            pass  # closed already
        self._sock.close()

    def __enter__(self) -> SeatSocket:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
