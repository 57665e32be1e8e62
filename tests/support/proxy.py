"""A TCP proxy that can lose replies: the fault of a connection that drops after the server
ran a command and before its reply reached the client.

Each client connection gets its own upstream connection and two pump threads. Armed with
:meth:`LossyProxy.drop_replies`, the proxy forwards the next requests that contain a marker
(e.g. the SHA of a Lua script) to the server, waits for the server's reply, and then closes
both sockets instead of passing the reply on.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class LossyProxy:
    """Listens on a free loopback port and forwards to ``upstream_port``."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._marker = b""
        self._drops_left = 0
        self.dropped = 0
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def drop_replies(self, marker: bytes, count: int) -> None:
        """Lose the replies to the next ``count`` requests that contain ``marker``."""
        with self._lock:
            self._marker, self._drops_left = marker, count

    def close(self) -> None:
        self._closed = True
        self._listener.close()

    def _take_drop(self, chunk: bytes) -> bool:
        with self._lock:
            if self._drops_left and self._marker and self._marker in chunk:
                self._drops_left -= 1
                self.dropped += 1
                return True
        return False

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            lose_next_reply = threading.Event()
            threading.Thread(target=self._requests, args=(client, upstream, lose_next_reply), daemon=True).start()
            threading.Thread(target=self._replies, args=(upstream, client, lose_next_reply), daemon=True).start()

    def _requests(self, client: socket.socket, upstream: socket.socket, lose_next_reply: threading.Event) -> None:
        try:
            while chunk := client.recv(65536):
                if self._take_drop(chunk):
                    lose_next_reply.set()
                upstream.sendall(chunk)
        except OSError:
            pass
        _close(client, upstream)

    @staticmethod
    def _replies(upstream: socket.socket, client: socket.socket, lose_next_reply: threading.Event) -> None:
        try:
            while chunk := upstream.recv(65536):
                if lose_next_reply.is_set():
                    break
                client.sendall(chunk)
        except OSError:
            pass
        _close(client, upstream)


def _close(*sockets: socket.socket) -> None:
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


@contextmanager
def lossy_proxy(upstream_port: int) -> Iterator[LossyProxy]:
    proxy = LossyProxy(upstream_port)
    try:
        yield proxy
    finally:
        proxy.close()
