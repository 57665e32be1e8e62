"""The search behind levels 3-5: the game's heuristic bot, improved by playing its options out.

The bot is handed what every bot is handed, its seat's view and legal actions, and never a
state. It starts from the move the game's heuristic bot (level 2) would make and asks whether
another move does better when the match is played on from it. Each **world** is a full state
the seat cannot tell apart from the real one, drawn by the game's sampler
(:mod:`service.bots.samplers`) with everything hidden at random; on it every candidate move is
played, then the heuristic bot plays every seat on from it. This is rollout
policy improvement (Bertsekas and Castañon 1999; Tesauro and Galperin's on-line rollouts):
choosing the move whose heuristic continuation scores best improves on the heuristic itself,
as far as the sampled worlds tell the truth.

Choices made along the way, and why:

- **The heuristic's move stands unless the evidence overturns it.** Every world plays the
  heuristic's move and each challenger from the same sample, with the same engine chance and
  the same seed for the bots' choices (common random numbers), so a challenger is judged by
  its reward *difference* on each world. It replaces the heuristic's move only when its mean
  difference is positive by :data:`Z` standard errors over at least :data:`MIN_WORLDS` worlds.
  With too little time for that, the search plays the heuristic's move: level 3 is never
  worse than level 2 by much, and more budget can only find more moves that are better on
  evidence.
- **Challengers are the heuristic's next choices.** A bot that can order its options
  (a ``ranked(view, legal)`` method, The Game's) names them; any other is asked again with its
  earlier picks withheld, and once it repeats itself or answers with a move outside the list
  the rest come in a seeded random order. A level fixes how many moves compete, and a bot
  may allow fewer (a ``most_candidates(view)`` method, L'Isola dei Vulcani's and
  Esploratore's: one challenger among several rivals, where a second overturned good moves on
  its judge's bias and level 4 lost to level 3). A bot that
  never plays some legal moves says so (a ``worth_trying(view, legal)`` method, Halunken und
  Spelunken's: no bid that only matches the standing one), and the search leaves them out
  too: two searches that each matched the other's bid would never end the auction.
- **Rollouts are the heuristic bot's decisions**, not random moves: random continuations
  say little about a move's worth (searches with them lost to level 2 in every game
  measured). A heuristic decision costs about a millisecond, a whole match of them 20-400 ms
  of CPU, so a rollout stops early where the heuristic bot can judge a position (a
  :class:`Judging` bot: Esploratore's, Halunken und Spelunken's, L'Isola dei Vulcani's,
  Viaggio's): at the start of the round after next (:data:`STAGES_AHEAD`; Esploratore's,
  whose rounds are long, at the start of the next round; Viaggio's, which has no rounds, six
  rows of the journey on; L'Isola dei Vulcani's at levels 4 and 5, whose budgets are deep,
  four rounds on), scored by the bot's ``judge``
  (Halunken und Spelunken: the chance of finishing ahead that its auction look-ahead weighs;
  Esploratore: the rank it expects once each seat's last yield is carried through the rounds
  left; L'Isola dei Vulcani and Viaggio: the rank it expects, :func:`expected_rank_reward`).
  A judge of the rank now scores a move that widens a lead like one that does not, and one
  that sets up yields for later below one that collects now. That makes their rollouts 3-20
  times cheaper early in a match, so a level's time cap lets it play more worlds. In Halunken und
  Spelunken it measured as strong as whole-match rollouts (bench/README.md). The Game's
  rollouts run to the end of the match: cut short and scored by its heuristic judgement of a
  position (the risk of each card left), they overturned good moves on false evidence.
- **The heuristic bot is cheap enough to roll out**: where a rollout's profile showed one
  computation dominating (Halunken und Spelunken's collection scores, L'Isola dei Vulcani's
  distance walks), the bot remembers it, deciding as before.
- **A heuristic bot may roll out lighter than it decides** (a ``for_rollouts()`` method
  returning the bot that plays a rollout's seats): Halunken und Spelunken's looks ahead over 2
  worlds instead of 16, Esploratore's weighs 2 unseen cards of each pile before a draw
  instead of all, The Game's searches its turn 4 cards wide instead of 10. Those computations
  are nearly all of a full bot's rollout (Halunken und Spelunken's and Esploratore's with four
  players), and level 3's time then holds one or two worlds a decision, too few to overturn a
  move. The heuristic's move and the challengers still come from the full bot.
- **Every seat of a rollout has a heuristic bot of its own**, a copy of the bot as it was
  before its first decision, and the challengers are asked of another: the seat's own bot
  only chooses the heuristic's move. A heuristic bot may remember things between decisions
  (Viaggio's plans its turn and plays it out step by step); one instance shared among seats
  and worlds played a sampled seat's plan in the real match, and level 3 lost every
  two-player match of Viaggio to level 2.
- **A move is rolled out with the plan it was chosen with** (a :class:`Planning` bot's, each
  move a :class:`Candidate`): the seat's bot in the rollout plays the plan on, and the seat's
  own bot takes it up when the search plays the move. A bot that had not made the plan ends a
  move it did not start at the first space it can, nearly never where the plan goes, so
  without it a rollout judged a move the heuristic would not have played.
- **Rewards** come from the outcome: ``(n - rank) / (n - 1)`` for a competitive game (1 for
  the winner, 0 for the last); in a cooperative game (The Game) minus the score, the cards left.
  A judged rollout's reward is on the same scale (:func:`rank_reward`).
- **Several seats owing a decision at once** in a rollout: one of them, drawn with the world's
  seed, moves first. The bot's own seat always moves first at the root.
- **Budgets:** a level is an iteration budget (rollouts), a number of candidates and how far
  its rollouts go before they are judged (:func:`stages_ahead`), which
  makes a level the same on any machine and a decision reproducible under the seed of the
  ``rng`` handed to :meth:`SearchBot.choose`; a time cap stops the search earlier when the
  rollouts take too long (a long match still ahead, a busy machine, a house seat's clock
  running low), and only then does the machine's speed show. A world cut short by the cap
  does not count.
"""

from __future__ import annotations

import copy
import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple, Protocol, runtime_checkable

import orjson

from service.bots.base import Bot
from service.engine import Action, Game, Rng, State, View

Sampler = Callable[[Game[Any], View, int, random.Random], State]
"""``sample_state(game, view, seat, rng)`` of a game's sampler module."""

MIN_WORLDS = 4
"""Worlds a challenger must have been played on before it may replace the heuristic's move."""

ROLLOUT_DECISIONS = 2000
"""A rollout still going after this many decisions is dropped with its world: a game's rules
may let a match go on without end (Halunken und Spelunken's two-player bids may match each
other until somebody passes), and a search must end on its iteration budget alone, whatever
its policy does."""

STAGES_AHEAD = 2
"""How far a rollout plays when the heuristic bot can judge a position: until the bot's
``stage(state)`` (a round number) has moved on by this many, then ``judge(state, seat)``. A
bot whose rounds are long sets its own ``stages_ahead`` (Esploratore's: 1)."""

Z = 1.64
"""How many standard errors a challenger's mean reward difference must stay above zero (one
sided, 95%) to replace the heuristic's move."""


@runtime_checkable
class Judging(Protocol):
    """A heuristic bot that can judge a position, so that a rollout may stop short of the end
    of the match: ``stage(state)`` counts rounds, ``judge(state, seat)`` is the seat's reward
    expected from ``state`` (on the scale of :func:`rank_reward`)."""

    def stage(self, state: State) -> int: ...

    def judge(self, state: State, seat: int) -> float: ...


@runtime_checkable
class Planning(Protocol):
    """A heuristic bot that decides several of its decisions at once and plays them out one by
    one (Viaggio's plans a whole move at the start of its turn): ``plan`` holds the decisions
    still to come."""

    plan: list[Action]


class Candidate(NamedTuple):
    """A move the search compares, with the rest of the plan the bot that chose it made
    (:class:`Planning`; empty for any other bot): a rollout plays the move on as that bot
    would, and so does the seat when the search picks it."""

    move: Action
    plan: list[Action]


def plan_of(bot: Bot) -> list[Action]:
    """What ``bot`` has planned to play next: a copy of a :class:`Planning` bot's plan."""
    return list(bot.plan) if isinstance(bot, Planning) else []


def taking_up(bot: Bot, plan: Sequence[Action]) -> Bot:
    """``bot``, given a copy of ``plan`` to play on if it is a :class:`Planning` bot."""
    if plan and isinstance(bot, Planning):
        bot.plan = list(plan)
    return bot


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: at most ``iterations`` rollouts, never past
    ``seconds``, over ``candidates`` moves (the heuristic's and its next choices); with
    ``deep``, rollouts judged as far on as the heuristic bot's ``deep_stages_ahead`` where it
    names one (see :func:`stages_ahead`)."""

    iterations: int
    seconds: float
    candidates: int
    deep: bool = False


class _OutOfTime(Exception):
    """The time cap came in the middle of a world."""


class _Endless(Exception):
    """A rollout passed :data:`ROLLOUT_DECISIONS`."""


def seat_of(view: View) -> int:
    """The seat a view belongs to: every game's seat view names it, as ``seat`` or (Isola dei
    Vulcani) ``you``."""
    seat = view.get("seat", view.get("you"))
    if not isinstance(seat, int):
        raise ValueError("a search needs a seat's view, not a spectator's")
    return seat


def candidates(
    policy: Bot,
    view: View,
    legal: list[Action],
    count: int,
    rng: random.Random,
    stop_at: float = math.inf,
    asker: Bot | None = None,
) -> list[Candidate]:
    """The heuristic's move first, then up to ``count - 1`` challengers among the moves it
    would ever play, best first by the heuristic's own judgement as far as it gives one (see
    the module docstring); only the heuristic's move once the clock passes ``stop_at`` (no
    time is left to try another). ``policy`` chooses the heuristic's move; the challengers are
    asked of ``asker`` (by default ``policy`` too), so that a bot that remembers its plan keeps
    the plan of its own move. Each move comes with the plan its bot made with it."""
    first = Candidate(policy.choose(view, legal, rng), plan_of(policy))
    policy = policy if asker is None else asker
    if time.monotonic() >= stop_at:
        return [first]
    worth_trying = getattr(policy, "worth_trying", None)
    if worth_trying is not None:
        legal = worth_trying(view, legal)
    ranked = getattr(policy, "ranked", None)
    if ranked is not None:
        return [first, *(Candidate(a, []) for a in ranked(view, legal) if a != first.move)][:count]
    order = [first]
    rest = [a for a in legal if a != first.move]
    while rest and len(order) < count and time.monotonic() < stop_at:
        pick = policy.choose(view, rest, rng)
        if pick not in rest:
            break
        order.append(Candidate(pick, plan_of(policy)))
        rest.remove(pick)
    rng.shuffle(rest)
    return [*order, *(Candidate(a, []) for a in rest)][:count]


def candidate_count(policy: Bot, view: View, budget: Budget) -> int:
    """How many moves compete in ``view``: the level's ``budget.candidates``, or fewer when the
    heuristic bot sets its own limit (a ``most_candidates(view)`` method returning a number,
    or ``None`` for none; see the module docstring)."""
    limit = getattr(policy, "most_candidates", None)
    cap = None if limit is None else limit(view)
    return budget.candidates if cap is None else min(budget.candidates, cap)


def search(
    game: Game[Any],
    sample: Sampler,
    policy: Bot,
    view: View,
    legal: list[Action],
    budget: Budget,
    rng: random.Random,
    fresh: Callable[[], Bot],
    player: Callable[[], Bot] | None = None,
) -> tuple[Candidate, bool]:
    """The action of ``legal`` the search prefers for the seat of ``view`` (with its plan), and
    whether ``policy`` chose it (a forced move is nobody's choice).

    Only ``view`` and ``legal`` describe the match: hidden parts come from ``sample``, and all
    chance (samples, engine dice, the bots' choices) from ``rng``.

    ``policy`` decides the heuristic's move and nothing else: the challengers are asked of an
    instance from ``fresh`` (the heuristic bot as it was before its first decision) and every
    seat of every rollout is played by one from ``player`` (by default ``fresh``; the bot's
    lighter rollout copy when it has one). A heuristic bot may remember things between its
    decisions (Viaggio's plans a whole turn and plays it out step by step); sharing one
    instance among the seats of a rollout, or with the real seat, would hand one seat's plan
    to another.
    """
    if len(legal) == 1:
        return Candidate(legal[0], []), False
    seat = seat_of(view)
    stop_at = time.monotonic() + budget.seconds
    moves = candidates(policy, view, legal, candidate_count(policy, view, budget), rng, stop_at, fresh())
    if len(moves) == 1:
        return moves[0], True
    differences: list[list[float]] = [[] for _ in moves[1:]]
    seats = fresh if player is None else player
    for _ in range(budget.iterations // len(moves)):
        world = orjson.dumps(sample(game, view, seat, rng))
        chance, seed = rng.getrandbits(64).to_bytes(8, "big"), rng.getrandbits(64)
        try:
            rewards = [
                _rollout(
                    game,
                    seats,
                    orjson.loads(world),
                    seat,
                    move,
                    Rng(chance),
                    random.Random(seed),
                    stop_at,
                    plan,
                    budget.deep,
                )
                for move, plan in moves
            ]
        except _OutOfTime:
            break
        except _Endless:
            continue
        for i, reward in enumerate(rewards[1:]):
            differences[i].append(reward - rewards[0])
    overturned = overturning(differences)
    return moves[overturned + 1], overturned < 0


def overturning(differences: list[list[float]]) -> int:
    """The index in ``moves`` less one of the challenger whose reward difference over the
    heuristic's move is positive on evidence and largest on average; -1 (the heuristic's
    move) when none is."""
    best, best_mean = -1, 0.0
    for i, diffs in enumerate(differences):
        if len(diffs) < MIN_WORLDS:
            continue
        mean = statistics.fmean(diffs)
        if mean - Z * statistics.stdev(diffs) / math.sqrt(len(diffs)) > 0 and mean > best_mean:
            best, best_mean = i, mean
    return best


def _rollout(
    game: Game[Any],
    fresh: Callable[[], Bot],
    state: State,
    seat: int,
    move: Action,
    chance: Rng,
    chooser: random.Random,
    stop_at: float,
    plan: Sequence[Action] = (),
    deep: bool = False,
) -> float:
    """``seat``'s reward after playing ``move`` on ``state`` and the heuristic for every
    seat to the end of the match, each seat played by its own bot from ``fresh``; ``seat``'s
    goes on with ``plan``, the rest of the plan ``move`` was chosen with (:class:`Planning`).
    A :class:`Judging` bot's rollout stops :func:`stages_ahead` stages on (``deep``: a deep
    budget's)."""
    own = taking_up(fresh(), plan)
    bots = {seat: own}
    judging = own if isinstance(own, Judging) else None
    horizon = math.inf if judging is None else judging.stage(state) + stages_ahead(judging, deep)
    state, _ = game.perform(state, seat, move, chance)
    for _ in range(ROLLOUT_DECISIONS):
        if not (to_act := game.to_act(state)):
            break
        if judging is not None and judging.stage(state) >= horizon:
            return judging.judge(state, seat)
        if time.monotonic() >= stop_at:
            raise _OutOfTime
        actor = to_act[0] if len(to_act) == 1 else chooser.choice(to_act)
        legal = game.legal_actions(state, actor)
        if actor not in bots:
            bots[actor] = fresh()
        action = legal[0] if len(legal) == 1 else bots[actor].choose(game.view(state, actor), legal, chooser)
        state, _ = game.perform(state, actor, action, chance)
    else:
        if game.to_act(state):
            raise _Endless
    outcome = game.outcome(state)
    assert outcome is not None, "rollouts end at the end of the match"
    if game.cooperative:
        return -statistics.fmean(outcome["scores"])
    return rank_share(outcome["ranks"][seat], len(outcome["ranks"]))


def stages_ahead(judging: Judging, deep: bool = False) -> int:
    """How many stages a rollout judged by ``judging`` plays before it is judged: the bot's
    ``stages_ahead`` (:data:`STAGES_AHEAD` when it names none), or on a ``deep`` budget its
    ``deep_stages_ahead`` where it names one (L'Isola dei Vulcani's: its judge four rounds on
    follows the match closer than two rounds on, at twice a rollout's cost, which levels 4 and
    5 can afford)."""
    if deep and (farther := getattr(judging, "deep_stages_ahead", None)) is not None:
        return int(farther)
    return int(getattr(judging, "stages_ahead", STAGES_AHEAD))


def round_stage(state: State) -> int:
    """The round a state is in: the ``stage`` of a :class:`Judging` bot whose game counts
    rounds in ``state["round"]`` (a rollout stops at a later round's start)."""
    return int(state["round"])


def rank_share(rank: int, players: int) -> float:
    """A seat's reward for finishing ``rank`` among ``players``: ``(n - rank) / (n - 1)``, 1 for
    the winner and 0 for the last."""
    return (players - rank) / max(1, players - 1)


def rank_reward(keys: list[Any], seat: int) -> float:
    """``seat``'s :func:`rank_share` were the match to end with these ranking keys (higher is
    better, equal keys share a rank): how a bot that can judge a position scores a stopped
    rollout."""
    return rank_share(1 + sum(1 for key in keys if key > keys[seat]), len(keys))


def expected_rank_reward(totals: list[float], seat: int, spread: float) -> float:
    """``seat``'s rank reward expected from ``totals`` (scores now) if the gap to each rival
    may still move by a normal law of ``spread`` points: the mean over rivals of the chance
    of ending ahead of it, which is :func:`rank_reward`'s ``(n - rank) / (n - 1)`` in
    expectation. Unlike the rank now, it tells a lead of one point from a lead of twenty, so a
    move that widens a lead without changing the order counts too."""
    rivals = [other for other in range(len(totals)) if other != seat]
    return sum(chance_ahead(totals[seat] - totals[r], spread) for r in rivals) / max(1, len(rivals))


def chance_ahead(gap: float, spread: float) -> float:
    """The chance that a lead of ``gap`` points (behind when negative) is still a lead or a tie
    at the end, if it may still move by a normal law of ``spread`` points; with nothing left to
    move (``spread`` 0), 1 or 0."""
    if spread == 0:
        return 1.0 if gap >= 0 else 0.0
    return 0.5 * (1 + math.erf(gap / spread / math.sqrt(2)))


class SearchBot:
    """A bot of levels 3-5: :func:`search` around the heuristic bot ``policy`` within
    ``budget``, capped further by ``within_s`` (the time a house seat has left on its clock,
    less a margin) when given."""

    def __init__(
        self, game: Game[Any], sample: Sampler, policy: Bot, budget: Budget, within_s: float | None = None
    ) -> None:
        self.game = game
        self.sample = sample
        self.policy = policy
        self.blank = copy.deepcopy(policy)
        lighter = getattr(policy, "for_rollouts", None)
        self.rollout_blank: Bot = self.blank if lighter is None else lighter()
        self.budget = budget if within_s is None else replace(budget, seconds=min(budget.seconds, within_s))

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        """The search's move; when it is not the heuristic's, the heuristic bot starts afresh
        with the plan the move was chosen with, so that a plan it made for its own move is not
        played on after another."""
        chosen, heuristics = search(
            self.game, self.sample, self.policy, view, legal, self.budget, rng, self._fresh, self._player
        )
        if not heuristics:
            self.policy = taking_up(self._fresh(), chosen.plan)
        return chosen.move

    def _fresh(self) -> Bot:
        """The heuristic bot as it was before its first decision."""
        return copy.deepcopy(self.blank)

    def _player(self) -> Bot:
        """A rollout seat's bot: the heuristic bot's rollout copy, fresh."""
        return copy.deepcopy(self.rollout_blank)
