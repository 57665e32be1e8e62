"""``GET /v1/matches/{id}/socket`` against a real ``referee serve`` (gunicorn, gevent workers, Redis):
a match played over a seat's socket, refusals answered with the move endpoint's status and
code, idempotent replays, the followed versions, the rate limit, and the channel's limits
(refused upgrades, binary and oversized messages, pings, idle sockets, broken frames)."""

from __future__ import annotations

import os
import random
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wsproto.events import BytesMessage, Ping, Pong

from service.botkit.socket import SeatSocket, SocketClosed, SocketRefused
from tests.support.http import MatchClient, auth, clear_of_minute_end
from tests.support.killable import Server, start_serve

SECRET = "socket-test-secret-0123456789abcdef"
MAX_BODY = 4096


def serve(redis_url: str, log: Path, **env: str) -> Server:
    settings = {"REDIS_URL": redis_url, "REFEREE_SECRET": SECRET, "REFEREE_RATE_LIMIT": "", **env}
    server = start_serve(settings, log, workers=1)
    assert server.proc.poll() is None, server.printed()
    return server


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = serve(
        redis_url,
        tmp_path_factory.mktemp("socket") / "serve.log",
        REFEREE_SOCKET_IDLE="1",
        REFEREE_MAX_BODY_BYTES=str(MAX_BODY),
    )
    try:
        yield running
    finally:
        running.kill()


def solo(server: Server) -> MatchClient:
    return MatchClient.create(server.client, "the-game", 1)


def seat_socket(server: Server, match: MatchClient, token: str | None = None) -> SeatSocket:
    return SeatSocket(server.client.base_url, match.created["match_id"], token or match.tokens[0], timeout_s=10)


def test_a_whole_match_is_played_over_the_socket_with_an_access_line_per_move_and_no_token(server: Server) -> None:
    match = solo(server)
    legal = match.legal(0)
    state_token, actions, moves = legal["state_token"], legal["actions"], 0
    rng = random.Random(28)
    with seat_socket(server, match) as channel:
        while actions:
            answer = channel.act(state_token, rng.choice(actions))
            assert answer["status"] == 200, answer
            body = answer["body"]
            state_token, actions, moves = body["state_token"], body["legal_actions"], moves + 1
    final = match.get()
    assert final["status"] == "finished" and final["version"] == moves
    lines = [line for line in server.printed().splitlines() if '"method":"WS"' in line]
    assert len([line for line in lines if match.created["match_id"] in line]) >= moves
    assert not any(token in server.printed() for token in match.tokens)


def test_refusals_carry_the_move_endpoints_status_and_code(server: Server) -> None:
    match = solo(server)
    legal = match.legal(0)
    first = legal["actions"][0]
    illegal = {"type": "play", "card": 1000, "pile": 0}
    with seat_socket(server, match) as channel:
        assert channel.act(legal["state_token"], first)["status"] == 200
        refused: list[dict[str, Any]] = [
            {"state_token": legal["state_token"], "action": legal["actions"][-1]},  # stale
            {"state_token": match.legal(0)["state_token"], "action": illegal},
            {"state_token": "not-a-token", "action": first},
            {"state_token": "x" * 201, "action": first},
            {"state_token": "x", "action": first, "extra": 1},
            {"state_token": "x", "action": first, "idempotency_key": "bad key"},
        ]
        for body in refused:
            message = dict(body)
            key = message.pop("idempotency_key", None)
            headers = {"Idempotency-Key": key} if key is not None else {}
            over_http = server.client.post(
                f"{match.url}/actions", json=message, headers={**auth(match.tokens[0]), **headers}
            )
            over_socket = channel.request(body)
            assert over_socket["status"] == over_http.status_code, (body, over_socket)
            assert over_socket["body"]["code"] == over_http.get_json()["code"], (body, over_socket)
        channel.send_text("{not json")
        bad = channel.receive()
        assert (bad["id"], bad["status"], bad["body"]["code"]) == (None, 400, "invalid_json")


def test_an_idempotent_move_sent_twice_is_answered_again_not_applied_twice(server: Server) -> None:
    match = solo(server)
    legal = match.legal(0)
    with seat_socket(server, match) as channel:
        first = channel.act(legal["state_token"], legal["actions"][0], idempotency_key="move-1")
        again = channel.act(legal["state_token"], legal["actions"][0], idempotency_key="move-1")
    assert first["status"] == again["status"] == 200
    assert "replayed" not in first and again["replayed"] is True
    assert again["body"] == first["body"]
    assert match.get()["version"] == 1


def test_a_followed_socket_gets_every_version_as_the_stream_sends_it(server: Server) -> None:
    match = solo(server)
    rng = random.Random(7)
    with seat_socket(server, match) as channel:
        assert channel.follow() == {"id": "1", "status": 200, "body": {"following": True}}
        assert channel.next_event()["version"] == 0
        match.play(rng, 3)  # over HTTP: the socket hears of them all the same
        legal = match.legal(0)
        assert channel.act(legal["state_token"], legal["actions"][0])["status"] == 200
        events = [channel.next_event() for _ in range(4)]
    assert [e["version"] for e in events] == [1, 2, 3, 4]
    assert all(e["event"] == "version" and e["data"]["version"] == e["version"] for e in events)
    assert events[-1]["data"]["state_token"] == match.legal(0)["state_token"]


def test_a_follow_from_a_version_the_match_has_not_reached_is_refused(server: Server) -> None:
    match = solo(server)
    with seat_socket(server, match) as channel:
        answer = channel.follow(after=5)
    assert (answer["status"], answer["body"]["code"]) == (400, "invalid_last_event_id")


def test_upgrades_are_refused_as_the_move_endpoint_refuses_them(server: Server) -> None:
    match = solo(server)
    other = solo(server)
    with pytest.raises(SocketRefused) as wrong_seat:
        seat_socket(server, match, token=other.tokens[0])
    assert wrong_seat.value.status == 401 and "bad_credentials" in wrong_seat.value.body
    with pytest.raises(SocketRefused) as unknown:
        SeatSocket(server.client.base_url, "AAAAAAAAAAAAAAAAAAAAAA", match.tokens[0])
    assert unknown.value.status == 404 and "unknown_match" in unknown.value.body
    plain = server.client.get(f"{match.url}/socket", headers=auth(match.tokens[0]))
    assert plain.status_code == 426 and plain.get_json()["code"] == "websocket_required"
    assert plain.headers["Upgrade"] == "websocket"


def test_pings_are_answered_and_binary_or_oversized_messages_close_the_socket(server: Server) -> None:
    match = solo(server)
    with seat_socket(server, match) as channel:
        channel._sock.sendall(channel._ws.send(Ping(b"hi")))
        data = channel._sock.recv(100)
        channel._ws.receive_data(data)
        assert [type(e) for e in channel._ws.events()] == [Pong]
        channel._sock.sendall(channel._ws.send(BytesMessage(b"{}")))
        with pytest.raises(SocketClosed) as binary:
            channel.receive()
    assert binary.value.code == 1003
    with seat_socket(server, match) as channel:
        channel.send_text('{"id": "1", "pad": "' + "x" * MAX_BODY + '"}')
        with pytest.raises(SocketClosed) as big:
            channel.receive()
    assert big.value.code == 1009


def test_an_idle_socket_is_closed_and_a_broken_frame_ends_the_channel(server: Server) -> None:
    match = solo(server)
    with seat_socket(server, match) as channel:
        with pytest.raises(SocketClosed) as idle:
            channel.receive()  # REFEREE_SOCKET_IDLE is 1 s here
    assert idle.value.code == 1001
    with seat_socket(server, match) as channel:
        channel._sock.sendall(b"\x81\x05hello")  # a client frame must be masked
        with pytest.raises(SocketClosed) as broken:
            channel.receive()
    assert broken.value.code == 1002


def test_the_rate_limit_counts_every_message_of_a_seat(redis_url: str, tmp_path: Path) -> None:
    limited = serve(redis_url, tmp_path / "serve.log", REFEREE_RATE_LIMIT="6 per minute")
    try:
        clear_of_minute_end(20)
        match = solo(limited)  # the match's creation spends the address's budget, not the seat's
        with seat_socket(limited, match) as channel:  # the upgrade is the seat's first request
            answers = [channel.request({"state_token": "x", "action": {}})["status"] for _ in range(6)]
            refused = channel.request({"op": "follow"})
        with pytest.raises(SocketRefused) as upgrade:
            seat_socket(limited, match)
    finally:
        limited.kill()
    assert 429 not in answers[:5] and answers[5] == 429
    assert refused["status"] == 429 and refused["body"]["code"] == "rate_limited"
    assert upgrade.value.status == 429 and '"rate_limited"' in upgrade.value.body


def test_a_request_that_only_looks_like_an_upgrade_is_answered_426(server: Server) -> None:
    """Without ``Sec-WebSocket-Key`` it is no upgrade: Flask answers it."""
    host, port = server.client.base_url.removeprefix("http://").split(":")
    match = solo(server)
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(
            f"GET {match.url}/socket HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {match.tokens[0]}\r\n\r\n".encode()
        )
        assert raw.recv(4096).startswith(b"HTTP/1.1 426 ")


def test_open_sockets_count_against_the_workers_connection_limit(redis_url: str, tmp_path: Path) -> None:
    """With room for two connections, two open sockets leave none: a third client waits
    until one of them closes."""
    limited = serve(redis_url, tmp_path / "serve.log", REFEREE_WORKER_CONNECTIONS="2")
    try:
        match = solo(limited)
        first, second = seat_socket(limited, match), seat_socket(limited, match)
        host, port = limited.client.base_url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=1) as waiting:
            waiting.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
            with pytest.raises(TimeoutError):
                waiting.recv(100)
            first.close()
            waiting.settimeout(10)
            assert waiting.recv(100).startswith(b"HTTP/1.1 200 ")
        second.close()
    finally:
        limited.kill()


def test_a_stopping_server_closes_its_sockets_as_going_away(redis_url: str, tmp_path: Path) -> None:
    """``SIGTERM`` (a deploy, a scale-down): the worker stops taking connections and closes its
    seats' sockets with 1001 within a second or so, well before its graceful timeout (10 s)
    would cut them without a close frame."""
    stopping = serve(redis_url, tmp_path / "serve.log")
    try:
        match = solo(stopping)
        with seat_socket(stopping, match) as channel:
            assert channel.act(match.legal(0)["state_token"], match.legal(0)["actions"][0])["status"] == 200
            os.kill(stopping.proc.pid, signal.SIGTERM)
            asked = time.monotonic()
            with pytest.raises(SocketClosed) as closed:
                channel.receive()
        assert closed.value.code == 1001
        assert time.monotonic() - asked < 5
        assert stopping.proc.wait(15) == 0
    finally:
        stopping.kill()
