"""How often any bot can beat random rivals in Halunken und Spelunken: the heuristic's win rate
beside two searches built to beat random bots, one fair and one that peeks.

The issue asks the heuristic to beat random bots in 90% of matches at every player count; with
three random rivals (four players) it wins about 81%. This measures how much room a better bot
would have, on the same seeds and seats as ``bench/heuristics.py`` (``bot_duel.play``: the bot
in one seat rotating with the seed, random bots in the others; a shared win counts), with the
seeds each bot won where the heuristic lost (+) and lost where it won (-):

- ``heuristic``: level 2, the game's heuristic bot.
- ``fair``: the search of levels 3-5 (:mod:`service.bots.search`) with no time cap, whose
  rollouts play the rivals as what they are, random bots, and its own seat as the heuristic: the
  best answer to random rivals this search can give from the seat's view.
- ``peeking``: the same search on the true state instead of worlds drawn from the view: it
  knows the face-down tavern cards, Black Jack's deck order and the movement cards the rivals
  have laid face down this round. No house bot may do this (every search draws its worlds from
  its seat's view, tests/bots/test_samplers.py); it bounds what knowing more is worth.

Both searches run the iteration budget of level 5 (256 rollouts over 4 candidate moves) to the
end, so a decision is the same on any machine. Usage::

    python bench/halunken_ceiling.py [--players 4] [--matches 100] [--first-seed 0]
        [--bots heuristic,fair,peeking] [--workers 2]
"""

from __future__ import annotations

import argparse
import copy
import math
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from heuristics import wilson

from service.bots.base import Bot
from service.bots.halunken_und_spelunken import ROLLOUT_WORLDS, HalunkenBot
from service.bots.random_bot import RandomBot
from service.bots.registry import SEARCH_BUDGETS, heuristic_bot, sampler_of
from service.bots.search import Budget, SearchBot, seat_of
from service.engine import Action, Game, State, View
from service.games import get_game
from tests.support.playout import play_out

GAME_ID = "halunken-und-spelunken"
BUDGET = Budget(SEARCH_BUDGETS["level5"].iterations, math.inf, SEARCH_BUDGETS["level5"].candidates)
"""Level 5's rollouts and candidates, with no time cap."""


class RandomRivals(HalunkenBot):
    """A rollout seat's bot for a search that knows its rivals are random bots: its own seat is
    played by the heuristic's rollout bot (which also judges a stopped rollout), every other seat
    at random."""

    def __init__(self, seat: int) -> None:
        super().__init__(ROLLOUT_WORLDS)
        self.seat = seat

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if seat_of(view) == self.seat:
            return super().choose(view, legal, rng)
        return rng.choice(legal)


class TrueState:
    """The peeking search's sampler: the state of the match being played. The match loop is
    handed this in place of the game, so every view it draws for a decision records the state
    it came from; the search itself plays on the game."""

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.state: State = {}

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def view(self, state: State, seat: int) -> View:
        self.state = state
        return self.game.view(state, seat)

    def __call__(self, game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
        return copy.deepcopy(self.state)


def contender(name: str, game: Game[Any], seat: int, truth: TrueState) -> Bot:
    """The bot called ``name`` for ``seat``."""
    if name == "heuristic":
        return heuristic_bot(GAME_ID)
    sample = truth if name == "peeking" else sampler_of(GAME_ID)
    bot = SearchBot(game, sample, heuristic_bot(GAME_ID), BUDGET)
    bot.rollout_blank = RandomRivals(seat)
    return bot


def play(name: str, players: int, seed: int) -> dict[str, Any]:
    """One match as ``bot_duel.play`` seats it (and ``play_out`` plays it): the contender at the
    seat where ``(seat + seed) % players == 0``, random bots elsewhere."""
    game = get_game(GAME_ID)
    assert game is not None
    started = time.perf_counter()
    mine = -seed % players
    truth = TrueState(game)
    bots = [contender(name, game, s, truth) if s == mine else RandomBot() for s in range(players)]
    outcome = play_out(cast(Game[Any], truth), bots, seed).outcome  # it stands in for the game
    return {"won": mine in outcome["winners"], "seconds": time.perf_counter() - started}


def batch(args: tuple[str, int, range]) -> list[dict[str, Any]]:
    name, players, seeds = args
    return [play(name, players, seed) for seed in seeds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--bots", default="heuristic,fair,peeking")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    seeds = range(args.first_seed, args.first_seed + args.matches)
    print(f"players {args.players}, seeds {seeds.start}-{seeds.stop - 1}")
    print("| bot | matches | wins | 95% interval (Wilson) | against the heuristic | s per match |")
    print("|---|---|---|---|---|---|")
    won: dict[str, list[bool]] = {}
    with ProcessPoolExecutor(args.workers) as pool:
        for name in args.bots.split(","):
            jobs = [(name, args.players, seeds[i : i + 5]) for i in range(0, len(seeds), 5)]
            results = [r for part in pool.map(batch, jobs) for r in part]
            won[name] = [r["won"] for r in results]
            wins = sum(won[name])
            low, high = wilson(wins, len(results))
            seconds = sum(r["seconds"] for r in results) / len(results)
            print(
                f"| {name} | {len(results)} | {wins / len(results):.1%} | {low:.1%} – {high:.1%} "
                f"| {against(won[name], won.get('heuristic'))} | {seconds:.1f} |",
                flush=True,
            )


def against(mine: list[bool], heuristic: list[bool] | None) -> str:
    """On how many seeds a bot won where the heuristic lost, and lost where it won."""
    if heuristic is None or mine is heuristic:
        return ""
    gained = sum(m and not h for m, h in zip(mine, heuristic, strict=True))
    lost = sum(h and not m for m, h in zip(mine, heuristic, strict=True))
    return f"+{gained} / -{lost}"


if __name__ == "__main__":
    main()
