"""Engine speed: ``legal_actions`` + ``apply`` per decision, for every game and player count.

Random legal play; each decision is timed (the seat's legal list, then applying one of its
actions). The baseline, measured in the same run, is one orjson dumps+loads of the same state
(what the store pays per move anyway). Usage::

    python bench/engines.py [--matches 20] [--game the-game]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import orjson

from service.engine import Rng
from service.games import games


def measure(game_id: str, players: int, matches: int) -> tuple[list[float], list[float]]:
    game = games()[game_id]
    decisions: list[float] = []
    baseline: list[float] = []
    for m in range(matches):
        chooser = random.Random(m)
        seed = m.to_bytes(32, "big")
        rng = Rng(seed)
        state = game.setup(players, game.resolve_options(players, {}), rng)
        while to_act := game.to_act(state):
            seat = chooser.choice(to_act)
            start = time.perf_counter()
            legal = game.legal_actions(state, seat)
            action = chooser.choice(legal)
            rng = Rng(seed, rng.position())
            state, _ = game.apply(state, seat, action, rng)
            middle = time.perf_counter()
            orjson.loads(orjson.dumps(state))
            end = time.perf_counter()
            decisions.append(middle - start)
            baseline.append(end - middle)
    return decisions, baseline


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--game", action="append")
    args = parser.parse_args()
    print("| game | players | decisions | median µs | p99 µs | state JSON round trip median µs | ratio |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for game_id in args.game or list(games()):
        game = games()[game_id]
        for players in range(game.min_players, game.max_players + 1):
            decisions, baseline = measure(game_id, players, args.matches)
            median, base = statistics.median(decisions), statistics.median(baseline)
            print(
                f"| {game_id} | {players} | {len(decisions)} | {median * 1e6:.0f} | "
                f"{percentile(decisions, 0.99) * 1e6:.0f} | {base * 1e6:.0f} | {median / base:.1f}× |"
            )


if __name__ == "__main__":
    main()
