"""``referee arena`` end to end: every game, a bot in another language, the table, the JSON
lines, seat rotation, and a tournament over ``--url`` against a real ``referee serve``."""

from __future__ import annotations

import random
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from service.arena.client import RefereeClient
from service.arena.players import BuiltinPlayer, Observation
from service.arena.runner import Plan, parse_bots, run_tournament
from service.server import inprocess
from service.server.cli import main
from tests.support.servers import BIN, clean_env, free_port, running

ROOT = Path(__file__).resolve().parents[2]
NODE_BOT = f"first=node {ROOT / 'docs' / 'examples' / 'arena-first-legal.js'}"
GAMES = ["the-game", "halunken-und-spelunken", "viaggio-al-centro-della-terra", "isola-dei-vulcani", "esploratore"]


def read_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def table_rows(text: str) -> dict[str, list[str]]:
    """The table's body rows by bot name (rich draws cells between │)."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        if line.startswith("│") and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


@pytest.mark.parametrize("game", GAMES)
def test_a_small_tournament_of_every_game_with_a_node_bot(
    game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results.jsonl"
    code = main(
        [
            "arena",
            "--game",
            game,
            "--bots",
            f"random,heuristic,{NODE_BOT}",
            "--matches",
            "3",
            "--seed",
            "arena-test",
            "--concurrency",
            "3",
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    printed = capsys.readouterr()
    assert code == 0, printed.err
    lines = read_lines(out)
    assert [line["index"] for line in lines] == [0, 1, 2]
    for line in lines:
        assert line["game"] == game and line["players"] == 3 and line["status"] == "finished"
        assert line["error"] is None and line["faults"] == []
        assert set(line["outcome"]) == {"scores", "ranks", "winners", "end_reason"}
        assert line["replay_url"].endswith(f"/v1/matches/{line['match_id']}/replay")
    # One rotation cycle: every bot played every seat once.
    seats = Counter((seat["bot"], seat["seat"]) for line in lines for seat in line["seats"])
    assert seats == Counter({(bot, seat): 1 for bot in ("random", "heuristic", "first") for seat in range(3)})
    rows = table_rows(printed.out)
    assert set(rows) == {"random", "heuristic", "first"}
    for bot, cells in rows.items():
        mine = [(line, seat["seat"]) for line in lines for seat in line["seats"] if seat["bot"] == bot]
        assert cells[0] == "3"  # matches
        assert int(cells[1]) == sum(seat in line["outcome"]["winners"] for line, seat in mine)
        assert float(cells[3]) == pytest.approx(sum(line["outcome"]["scores"][s] for line, s in mine) / 3, abs=0.05)
        assert float(cells[4]) == pytest.approx(sum(line["outcome"]["ranks"][s] for line, s in mine) / 3, abs=0.01)
        assert cells[5] == "0"  # faults
    if game == "the-game":  # cooperative: no ratings, and the footnote says why
        assert len(rows["random"]) == 6 and "Cooperative game" in printed.out
    else:
        rating, spread = rows["heuristic"][6].split(" ± ")
        assert 1000 < float(rating) < 2000 + float(spread)
    # Each match's watch link was printed when it started.
    for line in lines:
        lineup = " vs ".join(seat["bot"] for seat in line["seats"])
        assert f"match {line['index']} ({lineup}): {line['watch_url']}" in printed.err
        assert line["watch_url"].endswith(f"/watch/{line['match_id']}")
    assert all(len(row) <= 80 for row in printed.out.splitlines())


def test_a_simultaneous_decision_asks_every_seat_and_takes_answers_as_they_come(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Halunken's movement cards are chosen by every seat at once: all seats are asked first,
    and a slow seat 0 does not hold back the answers of the others."""
    calls: list[tuple[str, int]] = []

    class Recording(BuiltinPlayer):
        def __init__(self, game: str, name: str, rng: random.Random, seat: int) -> None:
            super().__init__(game, name, rng)
            self.seat, self.asked_at = seat, 0.0

        def ask(self, observation: Observation) -> None:
            calls.append(("ask", self.seat))
            self.asked_at = time.monotonic()
            super().ask(observation)

        def poll(self, wait_s: float | None) -> dict[str, Any] | None:
            thinking_s = self.asked_at + 0.05 - time.monotonic() if self.seat == 0 else 0.0
            if thinking_s > 0:
                time.sleep(thinking_s if wait_s is None else min(wait_s, thinking_s))
                return None
            calls.append(("take", self.seat))
            return super().poll(wait_s)

    seats = iter(range(3))
    monkeypatch.setattr(
        "service.arena.runner.make_player", lambda name, command, game, rng: Recording(game, name, rng, next(seats))
    )
    plan = Plan("halunken-und-spelunken", 3, parse_bots("random,heuristic"), matches=1, seed="simultaneous")
    with inprocess.serving() as url:
        client = RefereeClient(url)
        [record] = run_tournament(client, plan)
        client.close()
    assert record.status == "finished"
    blocks: list[tuple[list[int], list[int]]] = []
    for kind, seat in calls:
        if kind == "ask" and (not blocks or blocks[-1][1]):
            blocks.append(([], []))
        blocks[-1][0 if kind == "ask" else 1].append(seat)
    assert all(sorted(asked) == sorted(taken) for asked, taken in blocks)  # every asked seat answers once
    together = [taken for asked, taken in blocks if len(asked) == 3]
    assert together  # all three seats asked at once ...
    assert all(taken[-1] == 0 for taken in together)  # ... and the slow one taken last


def test_over_url_against_referee_serve(tmp_path: Path) -> None:
    """The real command against a real server in other processes; the replay URLs answer."""
    port = free_port()
    with running([str(BIN / "referee"), "serve", "--port", str(port)], clean_env(), port) as server:
        out = tmp_path / "results.jsonl"
        done = subprocess.run(
            [
                str(BIN / "referee"),
                "arena",
                "--url",
                f"http://127.0.0.1:{port}",
                "--game",
                "halunken-und-spelunken",
                "--bots",
                f"random,{NODE_BOT}",
                "--matches",
                "4",
                "--seed",
                "url",
                "--out",
                str(out),
            ],
            check=False,
            capture_output=True,
            text=True,
            timeout=300,
            env=clean_env(),
        )
        assert done.returncode == 0, done.stderr
        assert "4/4" in done.stderr  # the progress bar's last state
        assert "halunken-und-spelunken: 4 matches of 2 seats" in done.stdout
        assert set(table_rows(done.stdout)) == {"random", "first"}
        lines = read_lines(out)
        assert len(lines) == 4
        assert Counter((s["bot"], s["seat"]) for line in lines for s in line["seats"]) == Counter(
            {(bot, seat): 2 for bot in ("random", "first") for seat in range(2)}
        )
        for line in lines:
            assert line["replay_url"] == f"http://127.0.0.1:{port}/v1/matches/{line['match_id']}/replay"
            watch = f"http://127.0.0.1:{port}/watch/{line['match_id']}"
            assert line["watch_url"] == watch and f"): {watch}" in done.stderr  # watchable on that server
            assert server.client.get(watch.removeprefix(f"http://127.0.0.1:{port}")).status_code == 200
            replay = server.client.get(line["replay_url"].removeprefix(f"http://127.0.0.1:{port}"))
            assert replay.status_code == 200
            assert replay.get_json()["outcome"]["ranks"] == line["outcome"]["ranks"]
