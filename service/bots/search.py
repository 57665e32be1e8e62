"""The search behind levels 3-5: information-set Monte Carlo tree search over the engine contract.

The bot is handed what every bot is handed, its seat's view and legal actions, and never a
state: each iteration asks the game's sampler (:mod:`service.bots.samplers`) for a full state
the seat cannot tell apart from the real one, its hidden parts drawn at random, and plays one
descent of a single shared tree on it. This is single-observer ISMCTS (Cowling, Powley and
Whitehouse, 2012): a node is a sequence of (seat, action) choices from the root, so one tree
gathers the statistics of every sampled world, and selection only considers the children the
current sample allows (UCB1 with availability counts instead of the parent's visits).

Choices made along the way:

- **Rollouts are uniformly random** from the first new node to the end of the match. The
  heuristic bots play far better but cost 20-150 ms a match (they recompute a view at every
  step), which would leave level 3 a handful of iterations; random rollouts cost 0.5-40 ms a
  match, depending on the game.
- **Several seats owing a decision at once** (simultaneous or out-of-turn decisions) are put
  in an order at random in each descent: one of them moves, the others then choose with that
  move already made. The bot's own seat always moves first at the root.
- **Rewards** come from the outcome: ``(n - rank) / (n - 1)`` for each seat of a competitive
  game (1 for the winner, 0 for the last); in a cooperative game every seat shares
  ``-score`` (a cooperative score is a cost: The Game's cards left), normalised to [0, 1]
  over the scores the search has seen so far, so UCB's exploration term keeps its scale.
- **The move played** is the root child visited most (the first of the legal list on a tie).
- **Budgets:** a level is an iteration budget, which makes a level the same on any machine and
  a decision reproducible under the seed of the ``rng`` handed to :meth:`SearchBot.choose`; a
  time cap stops the search earlier when the iterations take too long (a slow game, a busy
  machine, or a house seat's clock running low), and only then does the machine's speed show.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from service.engine import Action, Game, Rng, State, View

Sampler = Callable[[Game[Any], View, int, random.Random], State]
"""``sample_state(game, view, seat, rng)`` of a game's sampler module."""

EXPLORATION = math.sqrt(2)
"""UCB1's exploration constant for rewards in [0, 1]."""


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: ``iterations`` descents, and never past ``seconds``."""

    iterations: int
    seconds: float


class _Node:
    """One (seat, action) choice after its parent's, with the statistics of the descents
    through it: ``total`` is the reward of ``actor`` summed over ``visits``; ``available``
    counts the descents in which its parent was reached and this choice was legal."""

    __slots__ = ("actor", "action", "children", "visits", "available", "total")

    def __init__(self, actor: int, action: Action | None) -> None:
        self.actor = actor
        self.action = action
        self.children: dict[tuple[int, bytes], _Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


class _Rewards:
    """Outcome -> reward of each seat, in [0, 1] (see the module docstring)."""

    def __init__(self, cooperative: bool) -> None:
        self.cooperative = cooperative
        self.low = math.inf
        self.high = -math.inf

    def of(self, game: Game[Any], state: State) -> list[float]:
        outcome = game.outcome(state)
        assert outcome is not None, "rollouts end at the end of the match"
        if self.cooperative:
            value = -sum(outcome["scores"]) / len(outcome["scores"])
            self.low, self.high = min(self.low, value), max(self.high, value)
            return [value] * len(outcome["scores"])
        players = len(outcome["ranks"])
        return [(players - rank) / max(1, players - 1) for rank in outcome["ranks"]]

    def ucb(self, node: _Node) -> float:
        """UCB1 of a visited node, its mean reward scaled to [0, 1] and its exploration term
        counted over the descents in which it was available."""
        mean = node.total / node.visits
        if self.cooperative:
            mean = 0.5 if self.high <= self.low else (mean - self.low) / (self.high - self.low)
        return mean + EXPLORATION * math.sqrt(math.log(node.available) / node.visits)


def _key(actor: int, action: Action) -> tuple[int, bytes]:
    return actor, orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


def seat_of(view: View) -> int:
    """The seat a view belongs to: every game's seat view names it, as ``seat`` or (Isola dei
    Vulcani) ``you``."""
    seat = view.get("seat", view.get("you"))
    if not isinstance(seat, int):
        raise ValueError("a search needs a seat's view, not a spectator's")
    return seat


def search(
    game: Game[Any],
    sample: Sampler,
    view: View,
    legal: list[Action],
    budget: Budget,
    rng: random.Random,
) -> Action:
    """The action of ``legal`` the search prefers for the seat of ``view``.

    Only ``view`` and ``legal`` describe the match: hidden parts come from ``sample``, and all
    chance (samples, engine dice, rollouts, ties among simultaneous seats) from ``rng``.
    """
    if len(legal) == 1:
        return legal[0]
    seat = seat_of(view)
    stop_at = time.monotonic() + budget.seconds
    root = _Node(seat, None)
    rewards = _Rewards(game.cooperative)
    for _ in range(budget.iterations):
        if time.monotonic() >= stop_at:
            break
        _descend(game, sample(game, view, seat, rng), root, seat, legal, rewards, rng)
    keys = [_key(seat, action) for action in legal]
    visits = [root.children[k].visits if k in root.children else 0 for k in keys]
    if not any(visits):
        return rng.choice(legal)  # no time for a single descent
    return legal[visits.index(max(visits))]


def _descend(
    game: Game[Any],
    state: State,
    root: _Node,
    seat: int,
    legal: list[Action],
    rewards: _Rewards,
    rng: random.Random,
) -> None:
    """One ISMCTS iteration on a sampled ``state``: select, expand one node, roll out, back up."""
    chance = Rng(rng.getrandbits(64).to_bytes(8, "big"))
    node, path = root, [root]
    while to_act := game.to_act(state):
        actor = seat if node is root else rng.choice(to_act)
        choices = legal if node is root else game.legal_actions(state, actor)
        keyed = [(_key(actor, action), action) for action in choices]
        untried = [(k, a) for k, a in keyed if k not in node.children]
        for k, _ in keyed:
            if k in node.children:
                node.children[k].available += 1
        if untried:
            k, action = rng.choice(untried)
            child = node.children[k] = _Node(actor, action)
            child.available = 1
            state, _ = game.perform(state, actor, action, chance)
            path.append(child)
            break
        node = max((node.children[k] for k, _ in keyed), key=rewards.ucb)
        assert node.action is not None
        state, _ = game.perform(state, actor, node.action, chance)
        path.append(node)
    while to_act := game.to_act(state):
        actor = rng.choice(to_act)
        state, _ = game.perform(state, actor, rng.choice(game.legal_actions(state, actor)), chance)
    reward = rewards.of(game, state)
    for visited in path[1:]:
        visited.visits += 1
        visited.total += reward[visited.actor]


class SearchBot:
    """A bot of levels 3-5: :func:`search` within ``budget``, capped further by ``within_s``
    (the time a house seat has left on its clock, less a margin) when given."""

    def __init__(self, game: Game[Any], sample: Sampler, budget: Budget, within_s: float | None = None) -> None:
        self.game = game
        self.sample = sample
        self.budget = budget if within_s is None else Budget(budget.iterations, min(budget.seconds, within_s))

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        return search(self.game, self.sample, view, legal, self.budget, rng)
