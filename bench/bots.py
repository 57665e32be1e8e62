"""Bot event streams under load, through gunicorn (the shipped gevent workers) + Redis.

One node (``referee serve``, 2 gevent workers) with ``--bots`` registered bots (default 1,000),
each holding its event stream (``GET /v1/bots/me/events``) open from a separate gevent process
at the lowest CPU priority (``nice 19``: it stands for remote clients). Measured:

- **Delivery.** Half the bots challenge the other half (one challenge per pair, made before the
  streams open); then every challenge is accepted, ``--accept-pace`` per second (a burst on two
  shared cores would time the CPU queue, and the nice-19 bots' process would read nothing until
  it ends). For each bot, the delay from the send of the accept that started its match to the
  arrival of its ``match_started`` on its stream: p50, p99 and the largest; and the time from
  the last accept sent to the last ``match_started`` delivered.
- **Memory.** The RSS of the node (master and workers, from /proc) with every stream open,
  less its RSS before they opened, per connected bot.
- **Moves of other matches.** Latency of ``POST /actions`` in a match no bot plays, before the
  streams open and while they are held (interleaved: before, held, after), at ``--pace`` moves
  per second.

Every wait is bounded: a stream refused or cut before its opening, a holder that stops
answering, or a node that dies ends the run with what went wrong (refusals counted by kind).

    python bench/bots.py [--bots 1000] [--moves 200] [--redis redis://127.0.0.1:6379/3]

Targets (issue 23): p99 delivery under 200 ms, under 50 KB per connected bot, moves within 10%.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections import Counter

import orjson
from nodes import ROOT, Player, free_port, helper_line, node_rss_kb, percentile, request, start_node, streams_settings

#: Seconds the bots' streams have to open, and the ``match_started`` events to arrive after
#: the last accept: a stream or an event not there by then is reported, never waited for.
OPEN_WAIT = 120.0
DELIVERY_WAIT = 60.0


def refusal(sock: socket.socket, buffer: bytes) -> str:
    """What an answer other than a stream says: its status line and its problem's type (read
    to the end of its body), so that refusals of one kind count as one."""
    head, _, body = buffer.partition(b"\r\n\r\n")
    length = next((int(line[15:]) for line in head.lower().splitlines() if line.startswith(b"content-length:")), 0)
    while len(body) < length and (chunk := sock.recv(65536)):
        body += chunk
    try:
        kind = orjson.loads(body).get("type", "")
    except orjson.JSONDecodeError:
        kind = body[:200].decode(errors="replace")
    return f"{head.splitlines()[0].decode()} {kind}"


def hold(port: int) -> None:
    """The bots' process (gevent): read keys from stdin (one line, JSON), open a stream per
    key, then say ``ready`` once each has its opening comment, or ``failed: <why>`` (each
    distinct failure with how many streams it stopped) once none is still opening, within
    :data:`OPEN_WAIT` seconds; then on any line print when each bot's ``match_started``
    arrived (epoch seconds, by key index) once all have, or after :data:`DELIVERY_WAIT`."""
    from gevent import monkey

    monkey.patch_all()
    import gevent
    from gevent.socket import wait_read

    keys = orjson.loads(sys.stdin.readline())
    opened = [False] * len(keys)
    failed: list[str | None] = [None] * len(keys)
    arrived: list[float | None] = [None] * len(keys)

    def follow(index: int) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=OPEN_WAIT)
            sock.sendall(
                f"GET /v1/bots/me/events HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n"
                f"Authorization: Bearer {keys[index]}\r\n\r\n".encode()
            )
            buffer = b""
            while not opened[index]:
                chunk = sock.recv(65536)
                if not chunk:
                    failed[index] = f"closed before its opening, after {buffer[:200]!r}"
                    return
                buffer += chunk
                if b": open" in buffer:
                    opened[index] = True
                elif b"\r\n\r\n" in buffer and not buffer.startswith(b"HTTP/1.1 200"):
                    failed[index] = refusal(sock, buffer)
                    return
            sock.settimeout(None)
            while True:
                if arrived[index] is None and b"event: match_started" in buffer:
                    arrived[index] = time.time()
                buffer = buffer[-64:]
                chunk = sock.recv(65536)
                if not chunk:
                    return
                buffer += chunk
        except OSError as error:
            if not opened[index]:
                failed[index] = f"{type(error).__name__}: {error}"

    def opening() -> int:
        return sum(1 for o, f in zip(opened, failed, strict=True) if not (o or f))

    greenlets = [gevent.spawn(follow, i) for i in range(len(keys))]
    deadline = time.monotonic() + OPEN_WAIT
    while opening() and time.monotonic() < deadline:
        gevent.sleep(0.05)
    reasons = Counter(f for f in failed if f)
    if opening():
        reasons["still opening"] = opening()
    if reasons:
        print(f"failed: {len(keys) - sum(opened)} of {len(keys)} streams did not open: {dict(reasons)}", flush=True)
        return
    print("ready", flush=True)
    wait_read(sys.stdin.fileno())  # a plain readline would block every greenlet until it returns
    sys.stdin.readline()
    deadline = time.monotonic() + DELIVERY_WAIT
    while any(a is None for a in arrived) and time.monotonic() < deadline:
        gevent.sleep(0.01)
    print(orjson.dumps(arrived).decode(), flush=True)
    gevent.killall(greenlets)


def run(redis_url: str, bots: int, moves: int, pace: float, accept_pace: float) -> None:
    port = free_port()
    node = start_node(
        redis_url,
        port,
        "bench-bots",
        {"REFEREE_REGISTER_LIMIT": "", "REFEREE_CHALLENGE_EXPIRY": "3600", **streams_settings(bots)},
    )
    holder: subprocess.Popen | None = None
    try:
        run_id = os.urandom(3).hex()
        keys = []
        for i in range(bots):
            status, body = request(port, "POST", "/v1/bots", {"name": f"b{run_id}_{i}"})
            assert status == 201, body
            keys.append(body["key"])
        half = bots // 2
        challenges = []
        for i in range(half):
            body = {"game": "the-game", "players": 2, "opponents": [f"b{run_id}_{half + i}"], "seats": "in_order"}
            status, created = request(port, "POST", "/v1/challenges", body, keys[i])
            assert status == 201, created
            challenges.append(created["id"])
        quiet = Player(port, 1, "viaggio-al-centro-della-terra")
        for _ in range(20):
            quiet.move()
        before = quiet.paced(moves // 2, pace)
        rss_before = sum(node_rss_kb(node.pid).values())
        holder = subprocess.Popen(
            ["nice", "-n", "19", sys.executable, __file__, "--hold", str(port)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.write(orjson.dumps(keys).decode() + "\n")
        holder.stdin.flush()
        opening = time.perf_counter()
        said = helper_line(holder, node, OPEN_WAIT + 30, f"{bots} streams to open").strip()
        if said != "ready":
            raise SystemExit(f"bots.py: {said}")
        opening = time.perf_counter() - opening
        time.sleep(2)
        rss_held = sum(node_rss_kb(node.pid).values())
        held = quiet.paced(moves, pace)

        sent: list[float] = [0.0] * half
        for i in range(half):  # paced: a burst on two shared cores would time the CPU queue, not delivery
            sent[i] = time.time()
            status, answer = request(port, "POST", f"/v1/challenges/{challenges[i]}/accept", None, keys[half + i])
            assert status == 200 and answer["status"] == "accepted", answer
            time.sleep(max(0.0, 1 / accept_pace - (time.time() - sent[i])))
        last_accept = max(sent)
        holder.stdin.write("report\n")
        holder.stdin.flush()
        arrived = orjson.loads(helper_line(holder, node, DELIVERY_WAIT + 30, "the match_started arrivals"))
        holder.wait(30)
        after = quiet.paced(moves // 2, pace)
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
        node.terminate()
        node.wait(30)
    delays = [arrived[b] - sent[b % half] for b in range(2 * half) if arrived[b] is not None]
    missing = sum(1 for a in arrived[: 2 * half] if a is None)
    baseline = before + after
    if not delays:
        raise SystemExit(f"bots.py: no match_started arrived within {DELIVERY_WAIT:.0f} s of the last accept")
    print(f"{bots} bots holding event streams on one node (2 gevent workers), all opened in {opening:.1f} s")
    print(
        f"delivery of match_started ({len(delays)} bots, {missing} missing): "
        f"p50 {percentile(delays, 0.5) * 1000:.1f} ms, p99 {percentile(delays, 0.99) * 1000:.1f} ms, "
        f"max {max(delays) * 1000:.1f} ms; last delivered {(max(a for a in arrived if a) - last_accept) * 1000:.1f} ms "
        f"after the last accept was sent"
    )
    print(
        f"RSS: {rss_before / 1024:.1f} MB before, {rss_held / 1024:.1f} MB with the streams: "
        f"{(rss_held - rss_before) / bots:.1f} KB per connected bot"
    )
    print("| moves of another match | p50 ms | p99 ms |")
    print("| --- | --- | --- |")
    for name, values in (("no stream open", baseline), (f"{bots} bot streams open", held)):
        print(f"| {name} | {percentile(values, 0.5) * 1000:.2f} | {percentile(values, 0.99) * 1000:.2f} |")
    print(
        f"ratio p50 {percentile(held, 0.5) / percentile(baseline, 0.5):.2f}, "
        f"p99 {percentile(held, 0.99) / percentile(baseline, 0.99):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hold", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--pace", type=float, default=10.0, help="moves per second of the other match")
    parser.add_argument("--accept-pace", type=float, default=50.0, help="accepts sent per second")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/3")
    args = parser.parse_args()
    if args.hold:
        hold(args.hold)
    else:
        run(args.redis, args.bots, args.moves, args.pace, args.accept_pace)


if __name__ == "__main__":
    main()
