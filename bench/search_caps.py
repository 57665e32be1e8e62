"""Which budget ends a search level's decisions: its iteration budget or its time cap.

One seeded match per game (two players unless ``--players`` says otherwise), the level in seat
0 against level 2 in every other seat; each of the level's decisions with a choice is timed,
and one that took at least 95% of the level's time cap counts as ended by the cap. The answer
depends on the machine and its load: say them beside it.

    python bench/search_caps.py [--games the-game,esploratore] [--level level3] [--seed 1] [--players 2]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots.registry import SEARCH_BUDGETS, levels_of, make_bot
from service.engine import Rng
from service.games import get_game


def capped(game_id: str, level: str, seed: int, players: int) -> tuple[int, int, float]:
    """(decisions with a choice, how many the time cap ended, the longest in seconds)."""
    cap = SEARCH_BUDGETS[level].seconds
    game, rng, chooser = get_game(game_id), Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    bots = [make_bot(game_id, level), *(make_bot(game_id, "level2") for _ in range(players - 1))]
    decisions = ended = 0
    longest = 0.0
    while to_act := game.to_act(state):
        seat = to_act[0]
        legal = game.legal_actions(state, seat)
        started = time.perf_counter()
        action = bots[seat].choose(game.view(state, seat), legal, chooser)
        took = time.perf_counter() - started
        if seat == 0 and len(legal) > 1:
            decisions, ended, longest = decisions + 1, ended + (took >= 0.95 * cap), max(longest, took)
        state, _ = game.apply(state, seat, action, rng)
    return decisions, ended, longest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="the-game,esploratore,halunken-und-spelunken,isola-dei-vulcani")
    parser.add_argument("--level", default="level3", choices=sorted(SEARCH_BUDGETS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    print("| game | level | decisions | ended by the time cap | longest s |")
    print("| --- | --- | --- | --- | --- |")
    for game_id in args.games.split(","):
        if args.level not in levels_of(game_id):
            continue
        decisions, ended, longest = capped(game_id, args.level, args.seed, args.players)
        share = f"{ended} ({ended / decisions:.0%})"
        print(f"| {game_id} | {args.level} | {decisions} | {share} | {longest:.3f} |", flush=True)


if __name__ == "__main__":
    main()
