"""CPU time of one move in process: through the HTTP move lane vs over a seat's socket.

Both play the same solo matches of The Game through the app as ``create_app`` builds it (access
log, metrics, rate limiter, match cache) on Redis, with no server in front:

- **lane**: the WSGI app called with the environ gunicorn would build for
  ``POST /v1/matches/{id}/actions`` (built by hand, so the client's side costs little), the
  answer's status and headers dropped;
- **socket**: the seat's :class:`service.api.sockets.Channel`, fed each move as a masked text
  frame (what its worker reads from the connection) and writing its answer frame into one end
  of a socket pair (drained by this process).

Only the app's side is timed (the client's building and reading of frames is not). Neither
counts what gunicorn does before the app (the request head's parsing, for the lane; the
``recv``, for the socket), so the difference is what the socket spares the app itself.

    python bench/socket_cost.py [--moves 3000] [--redis redis://127.0.0.1:6379/14]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import TextMessage

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_moves import simple_choice  # noqa: E402
from bench.profile_moves import production_app  # noqa: E402

Mover = Callable[[str, bytes], tuple[dict[str, Any], float]]
"""Sends one move body for a match; the new state, and the CPU seconds the app spent on it."""


def lane_mover(app: Any, token: str) -> Mover:
    def move(match_id: str, body: bytes) -> tuple[dict[str, Any], float]:
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": f"/v1/matches/{match_id}/actions",
            "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(body)),
            "HTTP_AUTHORIZATION": f"Bearer {token}",
            "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http",
        }
        started = time.process_time()
        answer = b"".join(app(environ, lambda *_: None))
        return orjson.loads(answer), time.process_time() - started

    return move


def socket_mover(app: Any, match_id: str, token: str) -> tuple[Mover, Callable[[], None]]:
    """A channel of ``match_id``'s seat on a socket pair; the mover and what closes it."""
    from service.api.sockets import Channel, SocketLane

    channels = app.wsgi_app.app  # SecurityHeaders in front of the socket lane
    assert isinstance(channels, SocketLane)
    server_end, client_end = socket.socketpair()
    budget = channels.limiter.key_of(f"Bearer {token}", "127.0.0.1") if channels.limiter is not None else ""
    channel = Channel(channels, server_end, match_id, token, budget, "127.0.0.1", f"/v1/matches/{match_id}/socket")
    client = Connection(ConnectionType.CLIENT)
    sent = 0

    def move(_: str, body: bytes) -> tuple[dict[str, Any], float]:
        nonlocal sent
        sent += 1
        frame = client.send(TextMessage(data=(b'{"id":"%d",' % sent + body[1:]).decode()))
        started = time.process_time()
        channel.received(frame)
        spent = time.process_time() - started
        client.receive_data(client_end.recv(1 << 20))
        (answer,) = list(client.events())
        assert isinstance(answer, TextMessage)
        return orjson.loads(answer.data)["body"], spent

    return move, lambda: (server_end.close(), client_end.close())


def play(app: Any, transport: str, moves: int, rng: random.Random) -> float:
    """CPU seconds per move of ``moves`` moves over ``transport`` (``lane`` or ``socket``),
    matches created and opened through the app too but not counted."""
    from werkzeug.test import Client

    http = Client(app)
    spent, done = 0.0, 0
    while done < moves:
        created = http.post("/v1/matches", json={"game": "the-game", "players": 1}).json
        match_id, token = created["match_id"], created["seats"][0]["token"]
        legal = http.get(f"/v1/matches/{match_id}/legal-actions", headers={"Authorization": f"Bearer {token}"}).json
        close: Callable[[], Any] = lambda: None
        if transport == "socket":
            move, close = socket_mover(app, match_id, token)
        else:
            move = lane_mover(app, token)
        state_token, actions, view = legal["state_token"], legal["actions"], None
        while actions and done < moves:
            body = orjson.dumps({"state_token": state_token, "action": simple_choice(actions, view, rng)})
            answer, cpu = move(match_id, body)
            spent += cpu
            state_token, actions, view = answer["state_token"], answer["legal_actions"], answer["view"]
            done += 1
        close()
    return spent / moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/14")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the least CPU of each is kept")
    args = parser.parse_args()
    rng = random.Random(1)
    best = {"lane": float("inf"), "socket": float("inf")}
    with contextlib.redirect_stderr(io.StringIO()):  # the access log: written, not shown
        app = production_app(args.redis)
        for transport in best:  # warm up: imports, connections, caches
            play(app, transport, 300, rng)
        for round_ in range(args.rounds):
            for transport in list(best) if round_ % 2 == 0 else reversed(list(best)):
                best[transport] = min(best[transport], play(app, transport, args.moves, rng))
    print(f"{args.moves} moves of solo The Game in process on {args.redis}, least of {args.rounds} rounds:")
    for transport, seconds in best.items():
        print(f"  {transport}: {seconds * 1e6:.0f} µs CPU per move")
    print(f"  socket / lane: {best['socket'] / best['lane']:.2f}")


if __name__ == "__main__":
    main()
