"""A heuristic bot for The Game, playing from its own view only (no table talk).

It scores a position by the cards still to be laid (in hands or the draw pile) and how many
piles could still take each of them: a card with one home left is at risk, one with none is
lost unless a backwards move reopens a pile. A play is worth the change in that risk: the
cards it jumps over lose a home, the card laid stops being at risk, and a backwards move gives
homes back. The bot lays its cheapest card until the minimum is met, looking one card ahead
(to find a card that opens a backwards move, or two cards best laid together), then goes on
only while a card is nearly free, which leaves room on the piles for the next players. When its
hand is the last one and the draw pile is empty, everything is known: it searches for the best
order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import accumulate

from service.engine import Action, View

LOWEST, HIGHEST = 2, 99


@dataclass(frozen=True)
class Table:
    """The risk picture of one position: for every number, whether it is still to be laid
    and the running sums of what losing or regaining a home costs, so the cost of any jump
    is two lookups."""

    ups: tuple[bool, ...]
    tops: tuple[int, ...]
    homes: tuple[int, ...]
    lose: tuple[float, ...]
    regain: tuple[float, ...]

    def between(self, sums: tuple[float, ...], low: int, high: int) -> float:
        """The sum over the numbers strictly between ``low`` and ``high``."""
        return sums[high] - sums[low + 1] if high > low + 1 else 0.0


@dataclass(frozen=True)
class TheGameBot:
    """``risk[h]``: the cost of a card still to be laid that ``h`` piles can take;
    ``extra_cost``: the largest cost of a card laid beyond the minimum; ``lookahead``: how
    many of the cheapest cards are looked one card further; ``search_budget``: positions the
    endgame search may visit; ``step``: the backwards move (10)."""

    risk: tuple[float, ...] = (12.0, 2.0, 0.6, 0.2, 0.0)
    extra_cost: float = 0.2
    lookahead: int = 6
    search_budget: int = 20_000
    step: int = 10

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if not any(a["type"] == "play" for a in legal):
            return legal[-1]
        if view["draw_pile"] == 0 and sum(view["hand_counts"]) == len(view["hand"]):
            planned = self.last_hand(view)
            if planned is not None:
                return planned
        ups = tuple(p["direction"] == "up" for p in view["piles"])
        tops = tuple(p["top"] for p in view["piles"])
        still = set(range(LOWEST, HIGHEST + 1)) - set(view["laid"])
        hand = list(view["hand"])
        owed = max(0, view["minimum"] - view["played_this_turn"])
        table = self.table(ups, tops, still)
        ranked = sorted(self.plays(table, hand))
        best: tuple[float, int, int] | None = None
        for cost, card, p in ranked[: self.lookahead]:
            after = self.table(ups, (*tops[:p], card, *tops[p + 1 :]), still - {card})
            follow = [c for c, _, _ in self.plays(after, [h for h in hand if h != card])]
            if owed > 1:
                value = cost + (min(follow) if follow else self.risk[0] * 4)
            else:
                value = cost + min([0.0, *follow])
            if best is None or value < best[0]:
                best = (value, card, p)
        assert best is not None
        value, card, p = best
        if owed > 0 or value <= self.extra_cost:
            return {"type": "play", "card": card, "pile": p}
        return {"type": "end_turn"}

    def table(self, ups: tuple[bool, ...], tops: tuple[int, ...], still: set[int]) -> Table:
        risk = self.risk
        homes = [0] * (HIGHEST + 2)
        lose = [0.0] * (HIGHEST + 2)
        regain = [0.0] * (HIGHEST + 2)
        for n in still:
            h = sum(1 for up, top in zip(ups, tops) if (n > top if up else n < top))
            homes[n] = h
            if h > 0:
                lose[n] = risk[h - 1] - risk[h]
            if h < len(risk) - 1:
                regain[n] = risk[h + 1] - risk[h]
        return Table(ups, tops, tuple(homes), tuple(accumulate(lose, initial=0.0)), tuple(accumulate(regain, initial=0.0)))

    def plays(self, table: Table, hand: list[int]) -> list[tuple[float, int, int]]:
        """Every legal play from ``hand`` with its cost: ``(cost, card, pile)``."""
        found = []
        for card in hand:
            placed = -self.risk[table.homes[card]]
            for p, (up, top) in enumerate(zip(table.ups, table.tops)):
                if card == (top - self.step if up else top + self.step):
                    low, high = (card, top) if up else (top, card)
                    found.append((placed + table.between(table.regain, low, high), card, p))
                elif card > top if up else card < top:
                    low, high = (top, card) if up else (card, top)
                    found.append((placed + table.between(table.lose, low, high), card, p))
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
                    fits = (card > top or card == top - step) if ups[p] else (card < top or card == top + step)
                    if not fits:
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
