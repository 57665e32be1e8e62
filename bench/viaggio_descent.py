"""How long the descent (phase 1) of Viaggio al centro della terra lasts under purposeful play.

Plays seeded matches with the game's heuristic bot in every seat (or the lineup given) and
counts, in phase 1, the moves of each explorer, the moves of the explorer that reached the
arrival, and the turns. The design target (GAPS.md) is about 8-12 moves of each explorer;
the figure in ``docs/viaggio-al-centro-della-terra.md`` comes from here. Usage::

    python bench/viaggio_descent.py [--players 4] [--matches 200] [--lineup heuristic,random]
"""

from __future__ import annotations

import argparse
import random
from statistics import mean
from typing import Any

from service.bots.registry import make_bot
from service.engine import Rng
from service.games.viaggio import GAME


def descent(lineup: list[str], seed: int) -> dict[str, Any]:
    """Phase-1 figures of one seeded match."""
    players = len(lineup)
    bots = [make_bot(GAME.id, name) for name in lineup]
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(players, {}, rng)
    moves = {"blue": 0, "red": 0, "yellow": 0}
    arrived = None
    while state["phase"] == 1 and (to_act := GAME.to_act(state)):
        seat = to_act[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, events = GAME.apply(state, seat, action, rng)
        for e in events:
            if e["type"] == "moved":
                moves[e["colour"]] += 1
                if e["dest"] == "end":
                    arrived = e["colour"]
    return {"moves": moves, "arrived": arrived}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--lineup", default="")
    args = parser.parse_args()
    lineup = args.lineup.split(",") if args.lineup else ["heuristic"] * args.players
    results = [descent(lineup, seed) for seed in range(args.matches)]
    per_explorer = mean(mean(r["moves"].values()) for r in results)
    arriving = mean(r["moves"][r["arrived"]] for r in results if r["arrived"])
    fewest = mean(min(r["moves"].values()) for r in results)
    print(
        f"{len(lineup)} players ({','.join(lineup)}), {len(results)} matches: phase-1 moves per explorer "
        f"{per_explorer:.1f} (arriving explorer {arriving:.1f}, least-moved explorer {fewest:.1f})"
    )


if __name__ == "__main__":
    main()
