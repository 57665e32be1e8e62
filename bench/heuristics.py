"""How often each game's heuristic bot beats the random bot, at every player count, with a 95%
(Wilson) interval.

Competitive games: the heuristic in one seat and random bots in the others, the heuristic's seat
rotating with the seed (``bot_duel.play``); it beats random when its seat is among the winners
(a shared win counts). The Game is cooperative: on each seed an all-heuristic table and an
all-random table play the same deal (``the_game_bot.play``); the heuristic beats random when
it leaves fewer cards, and the table also gives both tables' games won and mean cards left.
The issue's bar is 90% at every player count. Usage::

    python bench/heuristics.py [--matches 200] [--games the-game,halunken-und-spelunken]
        [--players 3,4] [--workers 2] [--first-seed 0]

``--first-seed`` plays seeds ``first .. first + matches - 1``: a second, disjoint range checks
that a change tuned on seeds 0-399 did not just fit them.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot_duel import play as duel
from the_game_bot import play as cooperative

from service.bots.registry import HEURISTIC_BOTS, make_bot
from service.games import get_game

COOPERATIVE = "the-game"


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate of ``wins`` in ``n``: sound near 0 and 1,
    where the normal approximation is not."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def table_batch(args: tuple[str, int, range]) -> list[dict[str, Any]]:
    """One worker's seeds of one game and player count."""
    game_id, players, seeds = args
    if game_id == COOPERATIVE:
        out = []
        for seed in seeds:
            smart = cooperative(players, seed, make_bot(game_id, "heuristic"), {})
            blind = cooperative(players, seed, make_bot(game_id, "random"), {})
            out.append({"beats": smart[0] < blind[0], "left": (smart[0], blind[0]), "won": (smart[1], blind[1])})
        return out
    lineup = ["heuristic"] + ["random"] * (players - 1)
    results = [duel(game_id, lineup, seed, {}) for seed in seeds]
    return [{"beats": any(r["seats"][s] == "heuristic" for s in r["winners"])} for r in results]


def measure(
    pool: ProcessPoolExecutor, game_id: str, players: int, matches: int, workers: int, first: int = 0
) -> list[dict[str, Any]]:
    chunk = max(1, matches // (workers * 4))
    end = first + matches
    jobs = [(game_id, players, range(s, min(s + chunk, end))) for s in range(first, end, chunk)]
    return [r for part in pool.map(table_batch, jobs) for r in part]


def row(game_id: str, players: int, results: list[dict[str, Any]]) -> str:
    n = len(results)
    wins = sum(r["beats"] for r in results)
    low, high = wilson(wins, n)
    extra = ""
    if game_id == COOPERATIVE:
        won = [sum(r["won"][i] for r in results) / n for i in (0, 1)]
        left = [sum(r["left"][i] for r in results) / n for i in (0, 1)]
        extra = f" won {won[0]:.1%} vs {won[1]:.1%}, cards left {left[0]:.1f} vs {left[1]:.1f}"
    return f"| {game_id} | {players} | {n} | {wins / n:.1%} | {low:.1%} – {high:.1%} |{extra} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=200, help="seeded matches per game and player count")
    parser.add_argument("--games", default=",".join(HEURISTIC_BOTS), help="game ids, comma-separated")
    parser.add_argument("--players", default="", help="player counts (default: every count the game allows)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first-seed", type=int, default=0, help="the first seed (then the next ones)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    seeds = f"seeds {args.first_seed}-{args.first_seed + args.matches - 1}"
    print(f"commit {commit}, {seeds}, load average {os.getloadavg()[0]:.2f} at the start\n")
    print("| game | players | matches | beats random | 95% interval (Wilson) | notes |")
    print("|---|---|---|---|---|---|")
    with ProcessPoolExecutor(args.workers) as pool:
        for game_id in args.games.split(","):
            game = get_game(game_id)
            assert game is not None, game_id
            counts = range(game.min_players, game.max_players + 1)
            if args.players:
                counts = [p for p in map(int, args.players.split(",")) if p in counts]
            for players in counts:
                results = measure(pool, game_id, players, args.matches, args.workers, args.first_seed)
                print(row(game_id, players, results), flush=True)
    print(f"\nload average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
