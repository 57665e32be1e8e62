"""How well a game's judge stands in for whole-match rollouts: the search's evidence, checked.

A search level (``service/bots/search.py``) stops a rollout where the heuristic bot can judge
the position and compares the heuristic's move with a challenger by the judged reward
difference, world by world. This plays seeded matches with the heuristic bot in every seat;
at some decisions of seat 0 it takes the two moves level 3 would compare (the heuristic's and
its first challenger) and plays both out on the same drawn worlds, with the same dice, once
to the end of the match and once judged at each horizon given (``stage`` steps ahead: rounds,
or Viaggio al centro della Terra's rows of the journey). It prints, per horizon:

- how closely the judged difference follows the whole-match one (Pearson correlation) on the
  same world, over every world of every decision, and in the mean over a decision's worlds;
  the whole-match means carry the noise of ``--worlds`` worlds, so even a perfect judge's
  per-decision correlation stays below the square root of their systematic share;
- the share of the spread of the per-decision mean differences that is not the noise of
  ``--worlds`` worlds (the between-decision variance less the mean within-decision variance
  over the worlds, as a share of the former): how much the verdicts differ from decision to
  decision for reasons every world shares. For whole-match rollouts that is the true
  difference between the two moves; for a judge, the true difference plus the judge's bias.

Usage::

    python bench/judge_agreement.py --game viaggio-al-centro-della-terra [--players 2]
        [--matches 16] [--worlds 12] [--ahead 3,6,12,24] [--every 3] [--workers 2]
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots.base import Bot
from service.bots.registry import heuristic_bot, sampler_of
from service.bots.search import _rollout, candidates
from service.engine import Rng
from service.games import get_game

TO_THE_END = 10**9
"""A horizon no match reaches: the rollout plays to the end."""


def seat_bots(game_id: str, ahead: int) -> Callable[[], Bot]:
    """A rollout's seats, as the search plays them (the bot's rollout copy where it has one),
    stopping ``ahead`` stages on."""
    blank = heuristic_bot(game_id)
    lighter = getattr(blank, "for_rollouts", None)
    rollout_blank: Bot = blank if lighter is None else lighter()

    def fresh() -> Bot:
        bot = copy.deepcopy(rollout_blank)
        object.__setattr__(bot, "stages_ahead", ahead)  # on frozen dataclasses too (Isola's)
        return bot

    return fresh


def match(
    game_id: str, players: int, seed: int, worlds: int, horizons: list[int], every: int
) -> list[dict[int, list[float]]]:
    """One seeded match of heuristic bots; for every ``every``-th decision of seat 0 with a
    choice, the reward differences (challenger less the heuristic's move) per world and horizon."""
    game, sample = get_game(game_id), sampler_of(game_id)
    assert game is not None, game_id
    rng, chooser = Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    bots = [heuristic_bot(game_id) for _ in range(players)]
    seats = {ahead: seat_bots(game_id, ahead) for ahead in horizons}
    found: list[dict[int, list[float]]] = []
    choices = 0
    while to_act := game.to_act(state):
        seat = to_act[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        if seat == 0 and len(legal) > 1:
            if choices % every == 0:
                search_rng = random.Random(seed * 100_000 + choices)
                moves = candidates(heuristic_bot(game_id), view, legal, 2, search_rng, asker=heuristic_bot(game_id))
                if len(moves) == 2:
                    differences: dict[int, list[float]] = {ahead: [] for ahead in horizons}
                    for _ in range(worlds):
                        world = orjson.dumps(sample(game, view, seat, search_rng))
                        dice, bots_seed = search_rng.getrandbits(64).to_bytes(8, "big"), search_rng.getrandbits(64)
                        for ahead in horizons:
                            rewards = [
                                _rollout(
                                    game,
                                    seats[ahead],
                                    orjson.loads(world),
                                    seat,
                                    move,
                                    Rng(dice),
                                    random.Random(bots_seed),
                                    math.inf,
                                    plan,
                                )
                                for move, plan in moves
                            ]
                            differences[ahead].append(rewards[1] - rewards[0])
                    found.append(differences)
            choices += 1
        action = bots[seat].choose(view, legal, chooser)
        state, _ = game.apply(state, seat, action, rng)
    return found


def batch(args: tuple[str, int, range, int, list[int], int]) -> list[dict[int, list[float]]]:
    game_id, players, seeds, worlds, horizons, every = args
    return [d for seed in seeds for d in match(game_id, players, seed, worlds, horizons, every)]


def systematic_share(decisions: list[list[float]]) -> float:
    """The share of the variance of the per-decision means that the worlds' noise does not
    explain (0 when it explains all of it)."""
    means = [statistics.fmean(d) for d in decisions]
    between = statistics.variance(means)
    noise = statistics.fmean(statistics.variance(d) / len(d) for d in decisions)
    return max(0.0, (between - noise) / between) if between else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--worlds", type=int, default=12)
    parser.add_argument("--ahead", default="3,6,12,24", help="judged horizons, in the bot's stages")
    parser.add_argument("--every", type=int, default=3, help="look at every n-th decision of seat 0")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    horizons = [int(a) for a in args.ahead.split(",")] + [TO_THE_END]
    jobs = [(args.game, args.players, range(s, s + 1), args.worlds, horizons, args.every) for s in range(args.matches)]
    with ProcessPoolExecutor(args.workers) as pool:
        decisions = [d for part in pool.map(batch, jobs) for d in part]
    print(
        f"{args.game}, {args.players} players, {len(decisions)} decisions of {args.matches} matches, "
        f"{args.worlds} worlds each\n"
    )
    print("| rollouts | correlation with the whole match: per world | per decision | systematic share of the spread |")
    print("| --- | --- | --- | --- |")
    whole = [x for d in decisions for x in d[TO_THE_END]]
    whole_means = [statistics.fmean(d[TO_THE_END]) for d in decisions]
    for ahead in horizons:
        name = "to the end" if ahead == TO_THE_END else f"judged {ahead} on"
        judged = [x for d in decisions for x in d[ahead]]
        means = [statistics.fmean(d[ahead]) for d in decisions]
        per_world, per_decision = statistics.correlation(judged, whole), statistics.correlation(means, whole_means)
        share = systematic_share([d[ahead] for d in decisions])
        print(f"| {name} | {per_world:.2f} | {per_decision:.2f} | {share:.2f} |")


if __name__ == "__main__":
    main()
