"""A referee served inside the arena's own process, for ``referee arena`` without ``--url``.

It is the real app (``service.create_app``) behind a threaded HTTP server on a loopback port
(``--port``, else a free one), spoken to over HTTP like any other referee: the runner cannot
tell the difference, and the matches can be watched in a browser while the tournament runs.
Matches live in memory and end with the process; run against ``referee serve`` (``--url``) to
keep them and their replays.
"""

from __future__ import annotations

import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from werkzeug.serving import WSGIRequestHandler, make_server

IN_PROCESS_CONFIG = {
    "REDIS_URL": "",
    "REFEREE_STORE": "memory",
    "REFEREE_RATE_LIMIT": "",
    "REFEREE_ACCESS_LOG": "0",
}
"""Memory store, no rate limit (the runner is the only client) and no access log (it would
scroll the progress bar away)."""


class _QuietHandler(WSGIRequestHandler):
    """No line per request on stderr, and no Nagle delay: an answer's headers and body are
    separate small writes, which would otherwise wait ~40 ms for the client's delayed ACK."""

    disable_nagle_algorithm = True

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@contextmanager
def serving(port: int = 0, config: dict[str, Any] | None = None) -> Iterator[str]:
    """Serve a fresh referee on 127.0.0.1 at ``port`` (0: a free one) while the block runs;
    yields its base URL. :class:`OSError` when the port is taken."""
    from service import create_app

    app = create_app({**IN_PROCESS_CONFIG, "REFEREE_SECRET": secrets.token_hex(32), **(config or {})})
    # Bound here, not by werkzeug, which prints and exits the process when the port is taken.
    with socket.create_server(("127.0.0.1", port)) as listening:
        server = make_server(
            "127.0.0.1", port, app, threaded=True, request_handler=_QuietHandler, fd=listening.fileno()
        )
    thread = threading.Thread(target=server.serve_forever, name="arena-referee", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
