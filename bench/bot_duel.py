"""How a game's heuristic bot fares against the random bot, and how its matches end.

Plays seeded matches of one game in process, the bots rotating through the seats so each
plays every seat equally, and prints a Markdown table: the heuristic bot's win rate (it is
among the winners; a shared win counts), mean decisions per match, and how matches ended
(``outcome.detail.end_reason`` where the game reports one). The tables in ``docs/<game>.md``
come from here. Usage::

    python bench/bot_duel.py --game halunken-und-spelunken [--players 2] [--matches 200]
        [--lineup heuristic,random] [--options '{"variant": "standard"}'] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.bots.registry import make_bot
from service.engine import Rng
from service.games import get_game

MAX_DECISIONS = 50_000


def play(game_id: str, lineup: list[str], seed: int, options: dict[str, Any]) -> dict[str, Any]:
    """One seeded match; seat ``s`` is played by ``lineup[(s + seed) % len(lineup)]``."""
    game = get_game(game_id)
    assert game is not None, game_id
    players = len(lineup)
    seats = [lineup[(s + seed) % players] for s in range(players)]
    bots = [make_bot(game_id, name) for name in seats]
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    state = game.setup(players, game.resolve_options(players, options), rng)
    decisions = 0
    while to_act := game.to_act(state):
        if decisions >= MAX_DECISIONS:
            return {"seats": seats, "winners": [], "decisions": decisions, "end": "no_end"}
        seat = to_act[0]
        action = bots[seat].choose(game.view(state, seat), game.legal_actions(state, seat), chooser)
        state, _ = game.apply(state, seat, action, rng)
        decisions += 1
    outcome = game.outcome(state)
    assert outcome is not None
    end = outcome["detail"].get("end_reason", "-")
    return {"seats": seats, "winners": outcome["winners"], "decisions": decisions, "end": str(end)}


def batch(args: tuple[str, list[str], range, dict[str, Any]]) -> list[dict[str, Any]]:
    game_id, lineup, seeds, options = args
    return [play(game_id, lineup, seed, options) for seed in seeds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--lineup", default="", help="bot names per seat (default: heuristic then random)")
    parser.add_argument("--options", default="{}")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    lineup = args.lineup.split(",") if args.lineup else ["heuristic"] + ["random"] * (args.players - 1)
    options = json.loads(args.options)
    chunk = max(1, args.matches // (args.workers * 4))
    jobs = [(args.game, lineup, range(s, min(s + chunk, args.matches)), options) for s in range(0, args.matches, chunk)]
    with ProcessPoolExecutor(args.workers) as pool:
        results = [r for part in pool.map(batch, jobs) for r in part]
    wins: Counter[str] = Counter()  # matches in which a seat of that bot is among the winners
    for r in results:
        for name in {r["seats"][seat] for seat in r["winners"]}:
            wins[name] += 1
    ends = Counter(r["end"] for r in results)
    mean_decisions = sum(r["decisions"] for r in results) / len(results)
    print(f"{args.game}, {len(lineup)} players, lineup {','.join(lineup)}, options {options}, {len(results)} matches\n")
    print("| bot | seats per match | wins | mean decisions per match | how matches ended |")
    print("|---|---|---|---|---|")
    endings = ", ".join(f"{k} {v / len(results):.0%}" for k, v in ends.most_common())
    for name in dict.fromkeys(lineup):
        share = wins[name] / len(results)
        print(f"| {name} | {lineup.count(name)} | {share:.1%} | {mean_decisions:.0f} | {endings} |")


if __name__ == "__main__":
    main()
