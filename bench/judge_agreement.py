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
import math
import random
import statistics
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from service.bots.base import Bot
from service.bots.registry import SEARCH_BUDGETS, heuristic_bot, sampler_of
from service.bots.search import Sampler, SearchBot, _rollout, candidates, seat_of
from service.engine import Action, Game, Rng, View
from service.games import get_game

TO_THE_END = 10**9
"""A horizon no match reaches: the rollout plays to the end."""


def seat_bots(game: Game[Any], sample: Sampler, ahead: int) -> Callable[[], Bot]:
    """A rollout's seats as the level-3 search plays them (:meth:`SearchBot._player`: the
    bot's rollout copy where it has one), stopping ``ahead`` stages on."""
    searcher = SearchBot(game, sample, heuristic_bot(game.id), SEARCH_BUDGETS["level3"])

    def fresh() -> Bot:
        bot = searcher._player()
        object.__setattr__(bot, "stages_ahead", ahead)  # on frozen dataclasses too (Isola's)
        return bot

    return fresh


def differences(
    game: Game[Any],
    sample: Sampler,
    view: View,
    legal: list[Action],
    rng: random.Random,
    worlds: int,
    seats: dict[int, Callable[[], Bot]],
) -> dict[int, list[float]] | None:
    """Per horizon of ``seats``, the reward difference (challenger less the heuristic's move)
    on each of ``worlds`` drawn worlds; None when the heuristic has no challenger here."""
    game_id, seat = game.id, seat_of(view)
    moves = candidates(heuristic_bot(game_id), view, legal, 2, rng, asker=heuristic_bot(game_id))
    if len(moves) < 2:
        return None
    found: dict[int, list[float]] = {ahead: [] for ahead in seats}
    for _ in range(worlds):
        world = orjson.dumps(sample(game, view, seat, rng))
        dice, bots_seed = rng.getrandbits(64).to_bytes(8, "big"), rng.getrandbits(64)
        for ahead, fresh in seats.items():
            rewards = [
                _rollout(
                    game, fresh, orjson.loads(world), seat, move, Rng(dice), random.Random(bots_seed), math.inf, plan
                )
                for move, plan in moves
            ]
            found[ahead].append(rewards[1] - rewards[0])
    return found


def match(args: tuple[str, int, int, int, list[int], int]) -> list[dict[int, list[float]]]:
    """One seeded match of heuristic bots; :func:`differences` at every ``every``-th decision of
    seat 0 with a choice."""
    game_id, players, seed, worlds, horizons, every = args
    game, sample = get_game(game_id), sampler_of(game_id)
    assert game is not None, game_id
    rng, chooser = Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    bots = [heuristic_bot(game_id) for _ in range(players)]
    seats = {ahead: seat_bots(game, sample, ahead) for ahead in horizons}
    found: list[dict[int, list[float]]] = []
    choices = 0
    while to_act := game.to_act(state):
        seat = to_act[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        if seat == 0 and len(legal) > 1:
            if choices % every == 0:
                decision = differences(
                    game, sample, view, legal, random.Random(seed * 100_000 + choices), worlds, seats
                )
                if decision is not None:
                    found.append(decision)
            choices += 1
        state, _ = game.apply(state, seat, bots[seat].choose(view, legal, chooser), rng)
    return found


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
    jobs = [(args.game, args.players, seed, args.worlds, horizons, args.every) for seed in range(args.matches)]
    with ProcessPoolExecutor(args.workers) as pool:
        decisions = [d for part in pool.map(match, jobs) for d in part]
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
