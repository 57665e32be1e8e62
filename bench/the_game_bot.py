"""How well the heuristic bot plays The Game: seeded games per player count, no table talk.

Every seat is a :class:`~service.bots.the_game.TheGameBot` deciding from its own view. The
baseline, played on the same seeds in the same run, is the random bot. Prints a Markdown
table (win rate = 0 cards left; mean cards left; share under 10, "brillante"), the one in
``docs/the-game.md``. Usage::

    python bench/the_game_bot.py [--games 10000] [--workers 2] [--professional] [--on-fire]
"""

from __future__ import annotations

import argparse
import random
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.bots import RandomBot
from service.bots.the_game import TheGameBot
from service.engine import Rng
from service.games.the_game import GAME


def play(players: int, seed: int, bot: Any, options: dict[str, Any]) -> int:
    """Cards left at the end of one seeded match in which every seat is ``bot``."""
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, options), rng)
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        action = bot.choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, rng)
    return GAME.outcome(state)["detail"]["cards_left"]


def batch(args: tuple[int, range, str, dict[str, Any]]) -> list[int]:
    players, seeds, which, options = args
    bot = TheGameBot() if which == "heuristic" else RandomBot()
    return [play(players, seed, bot, options) for seed in seeds]


def run(players: int, games: int, which: str, options: dict[str, Any], workers: int) -> list[int]:
    chunk = max(1, games // (workers * 4))
    jobs = [(players, range(s, min(s + chunk, games)), which, options) for s in range(0, games, chunk)]
    with ProcessPoolExecutor(workers) as pool:
        return [left for part in pool.map(batch, jobs) for left in part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--professional", action="store_true")
    parser.add_argument("--on-fire", action="store_true")
    args = parser.parse_args()
    options = {"professional": args.professional, "on_fire": args.on_fire}
    print(f"{args.games} seeded games per player count, options {options}\n")
    print("| players | bot | wins (0 left) | mean cards left | under 10 left |")
    print("|---|---|---|---|---|")
    for players in range(1, 6):
        for which in ("heuristic", "random"):
            left = run(players, args.games, which, options, args.workers)
            wins = sum(1 for n in left if n == 0) / len(left)
            brilliant = sum(1 for n in left if n < 10) / len(left)
            mean = sum(left) / len(left)
            print(f"| {players} | {which} | {wins:.1%} | {mean:.1f} | {brilliant:.1%} |", flush=True)


if __name__ == "__main__":
    main()
