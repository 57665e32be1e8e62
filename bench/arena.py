"""What playing over HTTP costs the arena: decisions per second of ``referee arena``'s runner
against the same bots deciding in process without a referee (the baseline, same run).

The runner plays seeded built-in-bot tournaments against an in-process referee (the command's
default) or ``--url``, at each ``--concurrency``; the baseline plays the same number of matches
of the same game with the engine and bots called directly, one at a time. Usage::

    python bench/arena.py [--game halunken-und-spelunken] [--bots random,heuristic]
        [--matches 8] [--concurrency 1,4] [--url http://127.0.0.1:8000]
"""

from __future__ import annotations

import argparse
import random
import time
from contextlib import nullcontext

from service.arena.client import RefereeClient
from service.arena.runner import Plan, parse_bots, run_tournament
from service.arena.schedule import lineups
from service.bots.registry import make_bot
from service.engine import Rng
from service.games import get_game
from service.server import inprocess


def baseline(game_id: str, bots: list[str], players: int, matches: int) -> tuple[int, float]:
    """Decisions and seconds of ``matches`` matches played by calling the engine directly."""
    game = get_game(game_id)
    assert game is not None, game_id
    decisions = 0
    started = time.perf_counter()
    for index, lineup in enumerate(lineups(len(bots), players, matches)):
        rng, chooser = Rng(index.to_bytes(32, "big")), random.Random(index)
        seated = [make_bot(game_id, bots[i]) for i in lineup]
        state = game.setup(players, game.resolve_options(players, {}), rng)
        while to_act := game.to_act(state):
            for seat in to_act:
                if seat not in game.to_act(state):
                    continue
                action = seated[seat].choose(game.view(state, seat), game.legal_actions(state, seat), chooser)
                state, _ = game.apply(state, seat, action, rng)
                decisions += 1
    return decisions, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="halunken-und-spelunken")
    parser.add_argument("--bots", default="random,heuristic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--concurrency", default="1,4")
    parser.add_argument("--url", help="a running referee (default: in process, as referee arena)")
    args = parser.parse_args()
    bots = parse_bots(args.bots)
    base_decisions, base_seconds = baseline(args.game, [b.name for b in bots], args.players, args.matches)
    base_rate = base_decisions / base_seconds
    print(f"{args.game}, {args.players} seats, bots {args.bots}, {args.matches} matches per row\n")
    print("| runner | concurrency | decisions | seconds | decisions/s | ratio to baseline |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| in process, no HTTP (baseline) | 1 | {base_decisions} | {base_seconds:.2f} | {base_rate:.0f} | 1.00 |")
    with nullcontext(args.url) if args.url else inprocess.serving() as url:
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            client = RefereeClient(url, connections=2 * concurrency)
            plan = Plan(args.game, args.players, bots, args.matches, seed="bench", concurrency=concurrency)
            started = time.perf_counter()
            records = run_tournament(client, plan)
            seconds = time.perf_counter() - started
            client.close()
            decisions = sum(r.version for r in records)
            where = args.url or "referee arena, in-process referee"
            rate = decisions / seconds
            print(f"| {where} | {concurrency} | {decisions} | {seconds:.2f} | {rate:.0f} | {rate / base_rate:.3f} |")


if __name__ == "__main__":
    main()
