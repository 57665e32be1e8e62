"""How strong each house bot level is: every level against the one below, per game and player count.

Seeded matches in process (levels 1-5 of ``service/bots/registry.py``), spread over worker
processes. For a competitive game, the stronger level plays one seat (rotating through the
seats) and the level below every other seat; reported with 95% intervals: the stronger
level's win rate (a shared win counts) and mean rank, beside what an equal opponent would
score (win rate 1/n, mean rank (n+1)/2). The Game is cooperative, so every seat plays the
same level and the table gives each level's mean cards left and games beaten, and how many
fewer cards it leaves and more games it beats than the level below, deal by deal on the same
deals.

Levels 3-5 stop on their iteration budget or their time cap, whichever comes first; on a
busy machine the cap comes first more often, so say the machine's load beside a table.
``--uncapped`` lifts the time caps: every search decision runs its whole iteration budget,
which measures what a level is on a machine fast enough for its caps never to bite.

    python bench/levels.py [--games the-game,esploratore] [--players 2,3] [--matches 20]
        [--first-match 0] [--levels 1,2,3,4] [--workers 2] [--uncapped] [--results FILE]

Match ``m`` of a row is seeded ``1000 * level + m`` (competitive) or ``1000 + m`` (The Game's
deals, the same for every level); ``--first-match`` starts a row further on, so a second run
plays matches disjoint from the first's and the two pool. A row is printed once all its matches
are played, which for a level-5 row can take hours; ``--results FILE`` appends each match to
FILE as one JSON line the moment it ends (game, players, level, lineup, match, seed, outcome,
seconds), so a run that is stopped keeps what it played, and runs pool match by match.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import random
import statistics
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from threading import Lock
from typing import Any, TextIO

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots.base import Bot
from service.bots.registry import HEURISTIC_BOTS, SEARCH_BUDGETS, NoSampler, heuristic_bot, make_bot, sampler_of
from service.bots.search import SearchBot
from service.games import get_game
from tests.support.playout import play_out


def interval(values: list[float]) -> str:
    """Mean ± the half-width of its 95% interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return f"{mean:.2f} ± {half:.2f}"


def bot(game_id: str, name: str, uncapped: bool) -> Bot:
    """Level ``name``; a search level without its time cap when ``uncapped``."""
    if uncapped and name in SEARCH_BUDGETS:
        budget = replace(SEARCH_BUDGETS[name], seconds=math.inf)
        return SearchBot(get_game(game_id), sampler_of(game_id), heuristic_bot(game_id), budget)
    return make_bot(game_id, name)


def play(game_id: str, lineup: list[str], seed: int, uncapped: bool = False) -> dict[str, Any]:
    """One seeded match with ``lineup[seat]`` in each seat: the outcome and the seconds it took."""
    game = get_game(game_id)
    started = time.perf_counter()
    played = play_out(game, [bot(game_id, name, uncapped) for name in lineup], seed)
    return {"outcome": played.outcome, "seconds": time.perf_counter() - started}


class Matches:
    """The run's matches: played in the pool, each also appended to ``out`` as one JSON line
    the moment it ends (``--results``) when given."""

    def __init__(self, pool: ProcessPoolExecutor, out: TextIO | None, uncapped: bool) -> None:
        self._pool, self._out, self._uncapped, self._lock = pool, out, uncapped, Lock()

    def submit(self, game_id: str, lineup: list[str], seed: int, **about: Any) -> Future[dict[str, Any]]:
        """``play`` in the pool; ``about`` (level, match, seat) goes into its line."""
        job = self._pool.submit(play, game_id, lineup, seed, self._uncapped)
        if self._out is not None:
            line = {"game": game_id, "players": len(lineup), **about, "lineup": lineup, "seed": seed}
            job.add_done_callback(lambda done: self._write(line, done))
        return job

    def _write(self, line: dict[str, Any], done: Future[dict[str, Any]]) -> None:
        if done.exception() is not None:
            return  # the row's ``result()`` raises it
        assert self._out is not None
        with self._lock:
            self._out.write(json.dumps({**line, "uncapped": self._uncapped, **done.result()}) + "\n")
            self._out.flush()


def has_level(game_id: str, level: int) -> bool:
    if level < 3:
        return game_id in HEURISTIC_BOTS or level == 1
    try:
        sampler_of(game_id)
    except NoSampler:
        return False
    return True


def duel(matches: Matches, game_id: str, players: int, level: int, numbers: range) -> str:
    """A table row: level ``level`` in one seat against level ``level - 1`` in the others."""
    strong, weak = f"level{level}", f"level{level - 1}"
    jobs = []
    for match in numbers:
        seat = match % players
        lineup = [strong if s == seat else weak for s in range(players)]
        jobs.append((seat, matches.submit(game_id, lineup, 1000 * level + match, level=level, match=match, seat=seat)))
    wins, ranks, seconds = [], [], []
    for seat, job in jobs:
        result = job.result()
        wins.append(1.0 if seat in result["outcome"]["winners"] else 0.0)
        ranks.append(float(result["outcome"]["ranks"][seat]))
        seconds.append(result["seconds"])
    return (
        f"| {game_id} | {players} | {strong} vs {weak} | {len(numbers)} | {interval(wins)} (even {1 / players:.2f}) | "
        f"{interval(ranks)} (even {(players + 1) / 2:.2f}) | {statistics.fmean(seconds):.1f} |"
    )


Played = dict[tuple[str, int, int], list[Future[dict[str, Any]]]]
"""A run's cooperative deals by (game, players, level), each level's played once."""


def deals(
    matches: Matches, played: Played, game_id: str, players: int, level: int, numbers: range
) -> list[Future[dict[str, Any]]]:
    """Level ``level`` in every seat of the seeded deals ``numbers``, submitted once per run: the
    row of the level above compares itself with these very games."""
    key = (game_id, players, level)
    if key not in played:
        lineup = [f"level{level}"] * players
        played[key] = [matches.submit(game_id, lineup, 1000 + match, level=level, match=match) for match in numbers]
    return played[key]


def tallies(jobs: list[Future[dict[str, Any]]]) -> tuple[list[float], list[float]]:
    """Cards left and games beaten (1 or 0), deal by deal."""
    outcomes = [job.result()["outcome"] for job in jobs]
    return [float(o["detail"]["cards_left"]) for o in outcomes], [1.0 if o["winners"] else 0.0 for o in outcomes]


def cooperative(matches: Matches, played: Played, game_id: str, players: int, level: int, numbers: range) -> str:
    """A table row: level ``level`` in every seat of a cooperative game, and how it does against
    the level below on the same deals; on a line of its own, on how many deals it leaves fewer
    or more cards and beats or loses a game the other does not. Cards left vary far more from
    deal to deal than from level to level, so the difference deal by deal tells two levels
    apart where their means over the same deals do not."""
    jobs = deals(matches, played, game_id, players, level, numbers)
    below = deals(matches, played, game_id, players, level - 1, numbers) if level > 1 else []
    left, won = tallies(jobs)
    seconds = statistics.fmean(job.result()["seconds"] for job in jobs)
    fewer = more = "–"
    counts = ""
    if below:
        left_below, won_below = tallies(below)
        fewer = interval([theirs - mine for theirs, mine in zip(left_below, left, strict=True)])
        more = interval([mine - theirs for theirs, mine in zip(won_below, won, strict=True)])
        pairs = list(zip(left, left_below, won, won_below, strict=True))
        counts = (
            f"\n  level{level} against level{level - 1} deal by deal: fewer cards on "
            f"{sum(mine < theirs for mine, theirs, _, _ in pairs)} deals, "
            f"more on {sum(mine > theirs for mine, theirs, _, _ in pairs)}; "
            f"beats {sum(mine > theirs for _, _, mine, theirs in pairs)} games that level{level - 1} loses, "
            f"loses {sum(mine < theirs for _, _, mine, theirs in pairs)} that it beats"
        )
    return (
        f"| {game_id} | {players} | level{level} | {len(numbers)} | {interval(left)} | {interval(won)} | "
        f"{fewer} | {more} | {seconds:.1f} |{counts}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(sorted(HEURISTIC_BOTS)), help="comma-separated game ids")
    parser.add_argument("--players", default="", help="comma-separated player counts (default: each game's all)")
    parser.add_argument("--matches", type=int, default=20, help="matches per row")
    parser.add_argument("--first-match", type=int, default=0, help="number of a row's first match (its seed)")
    parser.add_argument("--levels", default="1,2,3,4,5", help="levels to measure (each against the one below)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing matches at once")
    parser.add_argument("--uncapped", action="store_true", help="search levels without their time caps")
    parser.add_argument("--results", type=Path, help="append each match to this file as a JSON line when it ends")
    args = parser.parse_args()
    levels = [int(level) for level in args.levels.split(",")]
    numbers = range(args.first_match, args.first_match + args.matches)
    played: Played = {}
    with (
        ProcessPoolExecutor(args.workers) as pool,
        args.results.open("a") if args.results else contextlib.nullcontext() as out,
    ):
        matches = Matches(pool, out, args.uncapped)
        for game_id in args.games.split(","):
            game = get_game(game_id)
            counts = [int(p) for p in args.players.split(",")] if args.players else None
            for players in counts or range(game.min_players, game.max_players + 1):
                if not game.min_players <= players <= game.max_players:
                    continue
                for level in levels:
                    if not has_level(game_id, level):
                        print(f"| {game_id} | {players} | level{level} | – | no sampler on this tree | | |")
                        continue
                    if game.cooperative:
                        print(cooperative(matches, played, game_id, players, level, numbers), flush=True)
                    elif level > 1:
                        print(duel(matches, game_id, players, level, numbers), flush=True)


if __name__ == "__main__":
    random.seed(0)
    main()
