"""Esploratore's 250-resource variant with the heuristic bot in every seat: how soon it ends.

The rulebook offers the variant "per abbreviare la durata del gioco"; with purposeful play most
matches must end before round 12. Plays seeded matches per player count and prints a Markdown
table: the share won by reaching 250 before round 12, the distribution of the round the match
ended in, and the share of all yields that came from the far planets (Uranus, Neptune, Pluto).
The table in ``docs/esploratore.md`` comes from here. ``REFEREE_SEEDS_DIR`` measures other card
data. Usage::

    python bench/esploratore_race.py [--players 2,3,4,5,6,7] [--matches 200] [--workers 2]
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from service.bots.esploratore import EsploratoreBot
from service.engine import Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R

FAR = {R.POS_INDEX[p] for p in ("uranus", "neptune", "pluto")}


def race(players: int, seed: int) -> tuple[int | None, int, int]:
    """One match: (round it was won in, or None; far-planet yield; all yield)."""
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    bots = [EsploratoreBot() for _ in range(players)]
    state = GAME.setup(players, GAME.resolve_options(players, {"race_250": True}), rng)
    far = total = 0
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        positions = {v["id"]: v["pos"] for v in state["vehicles"]}
        state, events = GAME.apply(state, seat, action, rng)
        for e in events:
            if e["type"] == "yield":
                total += sum(e["resources"])
                far += sum(e["resources"]) if positions[e["vehicle"]] in FAR else 0
    outcome = GAME.outcome(state)
    assert outcome is not None
    won = outcome["detail"]["end_reason"] == "reached_250"
    return (outcome["detail"]["rounds_played"] if won else None), far, total


def batch(args: tuple[int, range]) -> list[tuple[int | None, int, int]]:
    players, seeds = args
    return [race(players, seed) for seed in seeds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,3,4,5,6,7")
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(
        "| players | matches | won before round 12 | ended in round (share) | no 250 by round 12 "
        "| far-planet share of yields |"
    )
    print("|---|---|---|---|---|---|")
    for players in (int(p) for p in args.players.split(",")):
        chunk = max(1, args.matches // (args.workers * 4))
        jobs = [(players, range(s, min(s + chunk, args.matches))) for s in range(0, args.matches, chunk)]
        with ProcessPoolExecutor(args.workers) as pool:
            results = [r for part in pool.map(batch, jobs) for r in part]
        n = len(results)
        rounds = Counter(r for r, _, _ in results if r is not None)
        early = sum(v for r, v in rounds.items() if r < R.ROUNDS)
        spread = ", ".join(f"{r}: {rounds[r] / n:.0%}" for r in sorted(rounds))
        far = sum(f for _, f, _ in results) / max(1, sum(t for _, _, t in results))
        unfinished = sum(1 for r, _, _ in results if r is None) / n
        print(f"| {players} | {n} | **{early / n:.0%}** | {spread} | {unfinished:.0%} | {far:.0%} |", flush=True)


if __name__ == "__main__":
    main()
