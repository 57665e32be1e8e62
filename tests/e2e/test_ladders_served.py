"""A ladder against real servers, with real bridges (``referee bot connect``): eight bots,
two heuristic, four random, one that never answers and one that answers illegal actions, on
``referee serve`` until each has played ten games, and on two gunicorn nodes sharing Redis
with ``kill -9`` of the node holding the pairing lease. The heuristic bots end above the random
ones, the faulty ones are suspended with their reasons, no other bot is charged with a
disconnection, every finished match was rated once and no bot ever played two matches at
once."""

from __future__ import annotations

import secrets
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis

from tests.api.test_ladders import forget_ladders
from tests.botkit.bridges import BridgeProcess, bridge
from tests.support.http import WireClient, auth
from tests.support.killable import Server, start_serve
from tests.support.servers import BIN, clean_env

ADMIN = "ladder-admin-token-0123456789"
GAME = "esploratore"
ENV = {
    "REFEREE_SECRET": "ladders-secret-0123456789abcdef",
    "REFEREE_ADMIN_TOKEN": ADMIN,
    "REFEREE_RATE_LIMIT": "",
    "REFEREE_ACCESS_LOG": "0",
    "REFEREE_STREAM_HEARTBEAT": "1",
}
BOTS = Path(__file__).parents[1] / "arena" / "bots"
LINE_UP = {
    "heuristic": ["heuristic"] * 2,
    "random": ["random"] * 4,
    "silent": ["sh", str(BOTS / "silent.sh")],
    "illegal": ["sh", str(BOTS / "illegal.sh")],
}
"""Kind -> the bridged command (the two built-in kinds twice and four times)."""


def kinds() -> list[tuple[str, list[str]]]:
    found = []
    for kind, command in LINE_UP.items():
        if kind in ("heuristic", "random"):
            found += [(kind, [kind])] * len(command)
        else:
            found.append((kind, command))
    return found


def create_ladder(url: str, ladder_id: str) -> None:
    """Through ``referee ladder create``, as an operator would."""
    done = subprocess.run(
        [str(BIN / "referee"), "ladder", "create", "--url", url, "--id", ladder_id, "--game", GAME]
        + [
            "--players",
            "2",
            "--time-control",
            "per_decision_s=1",
            "--fault-threshold",
            "2",
            "--provisional-games",
            "3",
        ],
        env=clean_env(REFEREE_ADMIN_TOKEN=ADMIN),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr


def register_and_join(client: WireClient, ladder_id: str, kind: str) -> tuple[str, str]:
    name = f"{kind}_{secrets.token_hex(3)}"
    answer = client.post("/v1/bots", json={"name": name, "owner": name}, headers=auth(ADMIN))
    assert answer.status_code == 201, answer.data
    key = answer.get_json()["key"]
    joined = client.post(f"/v1/ladders/{ladder_id}/join", headers=auth(key))
    assert joined.status_code == 200, joined.data
    return name, key


@contextmanager
def bridged(tmp_path: Path, url: str, bots: list[tuple[str, str, list[str]]]) -> Iterator[list[BridgeProcess]]:
    with ExitStack() as stack:
        yield [
            stack.enter_context(
                bridge(tmp_path, name, key, [str(BIN / "referee"), "bot", "connect", "--url", url, "--", *command])
            )
            for name, key, command in bots
        ]


def play_on(client: WireClient, ladder_id: str, names: dict[str, str], games: int = 10) -> None:
    """Let the ladder play until every heuristic and random bot has ``games`` more rated games
    (at most three minutes): the rating order is only asked of bots that have played enough,
    however fast the machine plays."""

    def played() -> dict[str, int]:
        rows = client.get(f"/v1/ladders/{ladder_id}/leaderboard").get_json()["rows"]
        return {row["bot"]: row["games"] for row in rows}

    start = played()
    wanted = {name: start.get(name, 0) + games for name, kind in names.items() if kind in ("heuristic", "random")}
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        now = played()
        if all(now.get(name, 0) >= count for name, count in wanted.items()):
            return
        time.sleep(1)


def settle(client: WireClient, ladder_id: str) -> None:
    """Pause the ladder and wait for its last matches to end and be rated, so the
    leaderboard and the list of finished matches are read from the same standings; while it
    plays on, a match rated between the two reads would count in one and not in the other.
    Called while the bridges still play: were they gone, the clock would end the matches
    under way, and a heuristic bot losing its last match to a random one by disconnection
    could leave that random bot rated above it."""
    paused = client.post(f"/v1/ladders/{ladder_id}/pause", headers=auth(ADMIN))
    assert paused.status_code == 200, paused.data
    deadline = time.monotonic() + 60
    while client.get(f"/v1/ladders/{ladder_id}/matches").get_json()["live"]:
        assert time.monotonic() < deadline, "the ladder's matches did not end"
        time.sleep(0.5)


def standings(board: dict[str, Any], names: dict[str, str]) -> list[tuple[Any, ...]]:
    """The board in a line per bot, for a failing assertion: kind, rating, mu, sigma, games,
    wins and faults."""
    return [
        (names.get(r["bot"]), r["rating"], r["mu"], r["sigma"], r["games"], r["wins"], r["faults"])
        for r in board["rows"]
    ]


def check_outcome(client: WireClient, ladder_id: str, names: dict[str, str]) -> list[dict[str, Any]]:
    """The ladder's end state as the issue asks for it, once it has settled; its finished
    matches."""
    board = client.get(f"/v1/ladders/{ladder_id}/leaderboard").get_json()
    rows = {row["bot"]: row for row in board["rows"]}
    by_kind = {kind: [rows[n] for n, k in names.items() if k == kind] for kind in LINE_UP}
    worst_heuristic = min(r["rating"] for r in by_kind["heuristic"])
    best_random = max(r["rating"] for r in by_kind["random"])
    assert worst_heuristic > best_random, standings(board, names)
    connected = by_kind["heuristic"] + by_kind["random"]
    assert not any("disconnected" in row["faults"] for row in connected), standings(board, names)
    (silent,), (illegal,) = by_kind["silent"], by_kind["illegal"]
    assert silent["suspended"] and "timeout" in silent["suspended"] and silent["faults"]["timeout"] >= 2
    assert illegal["suspended"] and "illegal_action" in illegal["suspended"]
    assert illegal["faults"]["illegal_action"] >= 2
    assert not silent["validated"] and not illegal["validated"]
    finished: list[dict[str, Any]] = []
    cursor: str | None = "0"
    while cursor is not None:
        page = client.get(f"/v1/ladders/{ladder_id}/matches?cursor={cursor}").get_json()
        finished += page["matches"]
        cursor = page["next_cursor"]
    ids = [m["match_id"] for m in finished]
    assert len(ids) == len(set(ids)) > 10
    played = Counter(bot for m in finished for bot in set(m["bots"]))
    for name, row in rows.items():
        assert row["games"] == played[name], (name, row, played[name])  # rated once per match
    for name in names:
        spans = sorted((m["started"], m["finished"]) for m in finished if name in m["bots"])
        assert all(a[1] <= b[0] for a, b in pairwise(spans)), f"{name} was booked twice"
    return finished


@pytest.mark.slow
def test_a_ladder_on_referee_serve_ranks_the_bots_and_suspends_the_faulty(tmp_path) -> None:
    env = {**ENV, "REFEREE_STORE": "file", "REFEREE_DB_PATH": str(tmp_path / "m.sqlite3")}
    server = start_serve(env, tmp_path / "serve.log")
    try:
        url = server.client.base_url
        create_ladder(url, "duel")
        bots = [(*register_and_join(server.client, "duel", kind), command) for kind, command in kinds()]
        names = {name: kind for (name, _, _), (kind, _) in zip(bots, kinds(), strict=True)}
        with bridged(tmp_path, url, bots):
            play_on(server.client, "duel", names)
            settle(server.client, "duel")
        finished = check_outcome(server.client, "duel", names)
        exported_every_replay(url, "duel", finished, tmp_path)
        profile = server.client.get(f"/v1/bots/{next(iter(names))}").get_json()
        assert profile["ratings"][0]["ladder"] == "duel" and profile["ratings"][0]["history"]
    finally:
        server.kill()


def exported_every_replay(url: str, ladder_id: str, finished: list[dict[str, Any]], tmp_path: Path) -> None:
    """``referee export`` writes one signed replay per finished match; ``referee verify``
    accepts one against the server's published keys."""
    out = tmp_path / "replays.jsonl"
    command = [str(BIN / "referee"), "export", "--url", url, "--ladder", ladder_id, "--out", str(out)]
    done = subprocess.run(command, env=clean_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = out.read_bytes().splitlines()
    exported = [orjson.loads(line)["match_id"] for line in lines]
    assert len(exported) == len(set(exported))
    assert {m["match_id"] for m in finished} == set(exported)
    one = tmp_path / "one.json"
    one.write_bytes(lines[0])
    verify = [str(BIN / "referee"), "verify", str(one), "--key", f"{url}/v1/keys"]
    checked = subprocess.run(verify, env=clean_env(), capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def lease_holder(url: str) -> str | None:
    found = redis.Redis.from_url(url).hget("lease:{pairing}", "h")
    return found.decode() if found else None


@pytest.mark.slow
def test_pairing_moves_to_the_other_node_when_the_lease_holder_is_killed(redis_url: str, tmp_path) -> None:
    forget_ladders(redis_url)
    env = {**ENV, "REDIS_URL": redis_url}
    ladder_id = "failover-" + secrets.token_hex(3)
    holder: Server = start_serve(env, tmp_path / "a.log", workers=1)
    other: Server | None = None
    try:
        deadline = time.monotonic() + 10
        while lease_holder(redis_url) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        first = lease_holder(redis_url)
        assert first is not None and first in holder.printed()
        other = start_serve(env, tmp_path / "b.log", workers=1)
        url = other.client.base_url
        create_ladder(url, ladder_id)
        bots = [(*register_and_join(other.client, ladder_id, kind), command) for kind, command in kinds()]
        names = {name: kind for (name, _, _), (kind, _) in zip(bots, kinds(), strict=True)}
        with bridged(tmp_path, url, bots):
            play_on(other.client, ladder_id, names, games=2)
            before = len(other.client.get(f"/v1/ladders/{ladder_id}/matches").get_json()["matches"])
            assert before > 0
            holder.kill()
            killed_at = time.monotonic()
            while lease_holder(redis_url) in (first, None) and time.monotonic() - killed_at < 10:
                time.sleep(0.1)
            taken_over_s = time.monotonic() - killed_at
            assert lease_holder(redis_url) not in (first, None) and taken_over_s < 6, taken_over_s
            play_on(other.client, ladder_id, names, games=8)
            settle(other.client, ladder_id)
        finished = check_outcome(other.client, ladder_id, names)
        assert len(finished) > before + 5, "pairing went on after the kill"
    finally:
        holder.kill()
        if other is not None:
            other.kill()
