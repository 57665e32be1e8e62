"""A heuristic bot for The Game, playing from its own view only (no table talk).

It scores a position by the cards still to be laid (in hands or the draw pile) and how many
piles could still take each of them: a card with one home left is at risk, one with none is
lost unless a backwards move reopens a pile. A play is worth the change in that risk: the
cards it jumps over lose a home, the card laid stops being at risk, and a backwards move gives
homes back. The bot searches the sequences of cards it could lay this turn (the cheapest few at
each step, two cards deep: this finds a card that opens a backwards move, or two cards best
laid together), lays until the minimum is met, then goes on only while a card is nearly free,
which leaves room on the piles for the next players. When its
hand is the last one and the draw pile is empty, everything is known: it searches for the best
order.

Before the first turn the seats agree on who starts. The bot judges only its own hand (the
cost of its cheapest opening): it proposes itself when that opening is cheap, and otherwise
proposes the next seat or accepts what is on the table — unless its opening is so cheap that it
claims the start with its one proposal.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, replace
from itertools import accumulate

from service.engine import Action, View
from service.games.the_game.game import rules
from service.games.the_game.piles import fits_top

GONE = -1  # the count of homes of a number that is laid (or no card)

ROLLOUT_WIDTHS = (4, 2)
"""The turn search's widths when the bot plays the seats of a search's rollout
(:meth:`TheGameBot.for_rollouts`): a rollout is mostly those turn searches, and with the widths
it decides with, (10, 4), a two-player rollout from the match's start cost 80 ms on a quiet
core, so level 3 rarely had the 4 worlds it needs in its 0.1 s to overturn a move and played
level 2's. With (4, 2) a match of heuristic bots costs less than half as much and leaves about
as many cards (docs/the-game.md)."""


@dataclass(frozen=True)
class Table:
    """The risk picture of one position: for every number, how many piles could take it,
    and the running sums of what losing or regaining a home costs, so the cost of any jump
    is two lookups."""

    ups: tuple[bool, ...]
    tops: tuple[int, ...]
    homes: list[int]  # GONE for numbers already laid
    lose: list[float]
    regain: list[float]
    lose_sums: list[float]
    regain_sums: list[float]

    @staticmethod
    def between(sums: list[float], low: int, high: int) -> float:
        """The sum over the numbers strictly between ``low`` and ``high``."""
        return sums[high] - sums[low + 1] if high > low + 1 else 0.0


@dataclass(frozen=True)
class TheGameBot:
    """``risk[h]``: the cost of a card still to be laid that ``h`` piles can take;
    ``extra_cost``: the largest cost of a card laid beyond the minimum; ``widths``: how many
    of the cheapest cards the turn search tries at each depth; ``search_budget``: positions the
    endgame search may visit; ``good_opening`` and ``claim_opening``: the opening costs under
    which it proposes itself as the starter, and under which it overrides another proposal.
    The card range and the backwards step come from the game's seed data."""

    risk: tuple[float, ...] = (12.0, 2.0, 0.6, 0.2, 0.0)
    extra_cost: float = 0.2
    good_opening: float = 2.0
    claim_opening: float = 0.6
    widths: tuple[int, ...] = (10, 4)
    search_budget: int = 20_000

    @property
    def step(self) -> int:
        return int(rules()["backwards_step"])

    @property
    def size(self) -> int:
        """Length of the per-number tables: index ``n`` for every card number ``n``."""
        return int(rules()["highest"]) + 2

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if view["starter_agreement"] is not None:
            return self.negotiate(view, legal)
        if not any(a["type"] == "play" for a in legal):
            return legal[-1]
        if view["draw_pile"] == 0 and sum(view["hand_counts"]) == len(view["hand"]):
            planned = self.last_hand(view)
            if planned is not None:
                return planned
        ups = tuple(p["direction"] == "up" for p in view["piles"])
        tops = tuple(p["top"] for p in view["piles"])
        data = rules()
        still = set(range(data["lowest"], data["highest"] + 1)) - set(view["laid"])
        owed = max(0, view["minimum"] - view["played_this_turn"])
        value, move = self.search(self.table(ups, tops, still), list(view["hand"]), owed, 0)
        if move is None:
            return {"type": "end_turn"}
        if owed > 0 or value <= self.extra_cost:
            return {"type": "play", "card": move[0], "pile": move[1]}
        return {"type": "end_turn"}

    def for_rollouts(self) -> TheGameBot:
        """The bot a search's rollouts play every seat with: this one, trying fewer cards at
        each step of its turn search (:data:`ROLLOUT_WIDTHS`), so that a level's time holds
        more worlds."""
        return replace(self, widths=ROLLOUT_WIDTHS)

    def ranked(self, view: View, legal: list[Action]) -> list[Action]:
        """``legal`` cheapest first by the turn search's cost of each first play (ending the
        turn costs what a card beyond the minimum may): the moves the search (levels 3-5)
        tries against this bot's own choice. Outside the play, ``legal`` as it is."""
        if view["starter_agreement"] is not None or not any(a["type"] == "play" for a in legal):
            return list(legal)
        ups = tuple(p["direction"] == "up" for p in view["piles"])
        tops = tuple(p["top"] for p in view["piles"])
        data = rules()
        still = set(range(data["lowest"], data["highest"] + 1)) - set(view["laid"])
        table, hand = self.table(ups, tops, still), list(view["hand"])
        costs = {(card, p): cost for cost, card, p in self.plays(table, hand)}
        owed = max(0, view["minimum"] - view["played_this_turn"])

        def cost(action: Action) -> float:
            if action["type"] != "play":
                return self.extra_cost if owed == 0 else self.stuck
            card, pile = action["card"], action["pile"]
            rest, _ = self.search(self.child(table, card, pile), [h for h in hand if h != card], owed - 1, 1)
            return costs.get((card, pile), self.stuck) + rest

        return sorted(legal, key=cost)

    def negotiate(self, view: View, legal: list[Action]) -> Action:
        """Who should start, judged from this seat's own hand only."""
        me, players = view["seat"], len(view["hand_counts"])
        proposal = view["starter_agreement"]["proposal"]
        opening = self.opening_cost(view)
        can_propose = any(a["type"] == "propose_starter" for a in legal)
        if proposal is None:
            starter = me if opening <= self.good_opening else (me + 1) % players
            return {"type": "propose_starter", "seat": starter}
        if proposal != me and can_propose and opening <= self.claim_opening:
            return {"type": "propose_starter", "seat": me}
        return {"type": "accept_starter"}

    def opening_cost(self, view: View) -> float:
        """What the cheapest first turn from this hand would cost on the piles as they are."""
        ups = tuple(p["direction"] == "up" for p in view["piles"])
        tops = tuple(p["top"] for p in view["piles"])
        data = rules()
        still = set(range(data["lowest"], data["highest"] + 1)) - set(view["laid"])
        value, _ = self.search(self.table(ups, tops, still), list(view["hand"]), view["minimum"], 0)
        return value

    def search(self, table: Table, hand: list[int], owed: int, level: int) -> tuple[float, tuple[int, int] | None]:
        """The cheapest way on from here within this turn: ``(cost, first play)``.

        Level ``i`` tries the ``widths[i]`` cheapest cards; below the last level the cheapest
        single card stands for the rest. Once nothing more is owed, stopping costs nothing.
        """
        ranked = sorted(self.plays(table, hand))
        if level == len(self.widths):
            if owed > 0:
                return (ranked[0][0] if ranked else self.stuck), None
            return (min(0.0, ranked[0][0]) if ranked else 0.0), None
        best: tuple[float, tuple[int, int] | None] = (0.0, None) if owed <= 0 and level > 0 else (self.stuck, None)
        for cost, card, p in ranked[: self.widths[level]]:
            rest, _ = self.search(self.child(table, card, p), [h for h in hand if h != card], owed - 1, level + 1)
            if cost + rest < best[0] or best[1] is None and owed > 0:
                best = (cost + rest, (card, p))
        return best

    @property
    def stuck(self) -> float:
        """The cost of owing a card that nothing lets you lay: the match would end."""
        return self.risk[0] * 4

    def table(self, ups: tuple[bool, ...], tops: tuple[int, ...], still: set[int]) -> Table:
        """The risk picture of a position. Every number's homes are counted at once, as a
        running sum of where each pile starts and stops taking cards: counting pile by pile for
        each number was a quarter of a rollout's time."""
        starts = [0] * (self.size + 1)
        for up, top in zip(ups, tops, strict=True):
            if up:  # takes every number above its top
                starts[top + 1] += 1
            else:  # takes every number below its top
                starts[0] += 1
                starts[top] -= 1
        counts = list(accumulate(starts))
        homes = [counts[n] if n in still else GONE for n in range(self.size)]
        return self._priced(ups, tops, homes, still, None)

    def child(self, table: Table, card: int, p: int) -> Table:
        """The table after laying ``card`` on pile ``p``: only the numbers between the old
        and the new top gain or lose a home, and ``card`` is gone."""
        up, top = table.ups[p], table.tops[p]
        homes = list(table.homes)
        low, high = min(top, card), max(top, card)
        change = -1 if (card > top) == up else 1
        changed = [n for n in range(low + 1, high) if homes[n] != GONE]
        for n in changed:
            homes[n] += change
        homes[card] = GONE
        changed.append(card)
        return self._priced(table.ups, (*table.tops[:p], card, *table.tops[p + 1 :]), homes, changed, table)

    def _priced(
        self, ups: tuple[bool, ...], tops: tuple[int, ...], homes: list[int], changed: Iterable[int], base: Table | None
    ) -> Table:
        """Prices of the ``changed`` numbers; the others are copied from ``base``."""
        risk = self.risk
        top_risk = len(risk) - 1
        lose = list(base.lose) if base else [0.0] * self.size
        regain = list(base.regain) if base else [0.0] * self.size
        for n in changed:
            h = homes[n]
            lose[n] = risk[h - 1] - risk[h] if h > 0 else 0.0
            regain[n] = risk[h + 1] - risk[h] if GONE < h < top_risk else 0.0
        return Table(
            ups, tops, homes, lose, regain, list(accumulate(lose, initial=0.0)), list(accumulate(regain, initial=0.0))
        )

    def plays(self, table: Table, hand: list[int]) -> list[tuple[float, int, int]]:
        """Every legal play from ``hand`` with its cost: ``(cost, card, pile)``."""
        found = []
        step, risk, homes, between = self.step, self.risk, table.homes, table.between
        regain, lose = table.regain_sums, table.lose_sums
        piles = list(enumerate(zip(table.ups, table.tops, strict=True)))
        for card in hand:
            placed = -risk[homes[card]]
            for p, (up, top) in piles:
                if card == (top - step if up else top + step):
                    low, high = (card, top) if up else (top, card)
                    found.append((placed + between(regain, low, high), card, p))
                elif card > top if up else card < top:
                    low, high = (top, card) if up else (card, top)
                    found.append((placed + between(lose, low, high), card, p))
        return found

    def last_hand(self, view: View) -> Action | None:
        """The endgame when only this hand is left and nothing more can be drawn: search for
        the order that lays the most cards (every card, if any order does) and take its first
        step; ``None`` when the search would be too long (the heuristic decides)."""
        ups = tuple(p["direction"] == "up" for p in view["piles"])
        step = self.step
        memo: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, tuple[int, int] | None]] = {}
        budget = [self.search_budget]

        def best(hand: tuple[int, ...], tops: tuple[int, ...]) -> tuple[int, tuple[int, int] | None]:
            key = (hand, tops)
            if key in memo:
                return memo[key]
            budget[0] -= 1
            if budget[0] < 0:
                raise TimeoutError
            result: tuple[int, tuple[int, int] | None] = (0, None)
            for i, card in enumerate(hand):
                for p, top in enumerate(tops):
                    if not fits_top(ups[p], top, card, step):
                        continue
                    count = 1 + best(hand[:i] + hand[i + 1 :], (*tops[:p], card, *tops[p + 1 :]))[0]
                    if count > result[0]:
                        result = (count, (card, p))
                        if count == len(hand):
                            memo[key] = result
                            return result
            memo[key] = result
            return result

        try:
            _, move = best(tuple(view["hand"]), tuple(p["top"] for p in view["piles"]))
        except TimeoutError:
            return None
        if move is None:
            return {"type": "end_turn"}
        return {"type": "play", "card": move[0], "pile": move[1]}
