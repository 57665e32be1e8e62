"""How well the heuristic bot plays The Game: seeded games per player count, no table talk.

Every seat is a :class:`~service.bots.the_game.TheGameBot` deciding from its own view, from
the agreement on who starts to the last card. The baseline, played on the same seeds in the
same run, is the random bot. Prints a Markdown table (win rate = the game beaten; mean cards
left; share rated "brillante": under 10 left and not lost to fire), the one in
``docs/the-game.md``. Usage::

    python bench/the_game_bot.py [--games 10000] [--players 1,2,3,4,5] [--workers 2]
        [--professional] [--on-fire]
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


def play(players: int, seed: int, bot: Any, options: dict[str, Any]) -> tuple[int, bool, bool]:
    """Cards left at the end of one seeded match in which every seat is ``bot``, whether the
    game was beaten, and whether the result is "brillante"."""
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, GAME.resolve_options(players, options), rng)
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        action = bot.choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, rng)
    detail = GAME.outcome(state)["detail"]
    return detail["cards_left"], detail["won"], detail["brilliant"]


def batch(args: tuple[int, range, str, dict[str, Any]]) -> list[tuple[int, bool, bool]]:
    players, seeds, which, options = args
    bot = TheGameBot() if which == "heuristic" else RandomBot()
    return [play(players, seed, bot, options) for seed in seeds]


def run(players: int, games: int, which: str, options: dict[str, Any], workers: int) -> list[tuple[int, bool, bool]]:
    chunk = max(1, games // (workers * 4))
    jobs = [(players, range(s, min(s + chunk, games)), which, options) for s in range(0, games, chunk)]
    with ProcessPoolExecutor(workers) as pool:
        return [result for part in pool.map(batch, jobs) for result in part]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--players", default="1,2,3,4,5", help="player counts, comma-separated")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--professional", action="store_true")
    parser.add_argument("--on-fire", action="store_true")
    args = parser.parse_args()
    options = {"professional": args.professional, "on_fire": args.on_fire}
    print(f"{args.games} seeded games per player count, options {options}\n")
    print("| players | bot | wins (game beaten) | mean cards left | brillante |")
    print("|---|---|---|---|---|")
    for players in (int(n) for n in args.players.split(",")):
        for which in ("heuristic", "random"):
            results = run(players, args.games, which, options, args.workers)
            left = [n for n, _, _ in results]
            wins = sum(1 for _, won, _ in results if won) / len(left)
            brilliant = sum(1 for _, _, rated in results if rated) / len(left)
            mean = sum(left) / len(left)
            print(f"| {players} | {which} | {wins:.1%} | {mean:.1f} | {brilliant:.1%} |", flush=True)


if __name__ == "__main__":
    main()
