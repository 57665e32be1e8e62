"""A heuristic bot for The Game, playing from its own view only (no table talk).

It scores a position by the cards still to be laid (in hands or the draw pile) and how many
piles could still take each of them: a card with one home left is at risk, one with none is
lost unless a backwards move reopens a pile. A play is worth the change in that risk: the
cards it jumps over lose a home, the card laid stops being at risk, and a backwards move gives
homes back. Cards in the bot's own hand weigh more than unseen ones (they must be laid soon).
The bot lays its cheapest card until the minimum is met, then goes on only while a card is
nearly free, which leaves room on the piles for the next players. When its hand is the last
one and the draw pile is empty, everything is known: it searches for the best order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from service.engine import Action, View


@dataclass(frozen=True)
class TheGameBot:
    """``risk[h]``: the cost of a card still to be laid that ``h`` piles can take;
    ``own_weight``: the factor for cards in the bot's own hand; ``extra_cost``: the largest
    cost of a card laid beyond the minimum; ``lookahead``: how many of the cheapest cards
    are looked one card further; ``search_budget``: positions the endgame search may visit;
    ``step``: the backwards move (10)."""

    risk: tuple[float, ...] = (12.0, 3.0, 1.2, 0.5, 0.0)
    own_weight: float = 1.5
    extra_cost: float = 0.6
    lookahead: int = 6
    search_budget: int = 20_000
    step: int = 10

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        plays = [(a["card"], a["pile"]) for a in legal if a["type"] == "play"]
        if not plays:
            return legal[-1]
        piles = view["piles"]
        if view["draw_pile"] == 0 and sum(view["hand_counts"]) == len(view["hand"]):
            planned = self.last_hand(view)
            if planned is not None:
                return planned
        laid = set(view["laid"])
        hand = set(view["hand"])
        still_owed = max(0, view["minimum"] - view["played_this_turn"])
        ranked = sorted((self.cost(piles, p, c, laid, hand), c, p) for c, p in plays)
        best: tuple[float, int, int] | None = None
        for cost, card, pile in ranked[: self.lookahead]:
            value = cost + self.follow_up(piles, pile, card, laid, hand, still_owed - 1)
            if best is None or value < best[0]:
                best = (value, card, pile)
        assert best is not None
        value, card, pile = best
        if still_owed > 0 or value <= self.extra_cost:
            return {"type": "play", "card": card, "pile": pile}
        return {"type": "end_turn"}

    def follow_up(
        self, piles: list[dict[str, Any]], index: int, card: int, laid: set[int], hand: set[int], owed: int
    ) -> float:
        """The cost of the best next card after laying ``card`` on pile ``index`` (0 when
        stopping is allowed and cheaper): one ply of lookahead, which finds a card that
        opens a backwards move or two cards best laid together."""
        after = [*piles[:index], {**piles[index], "top": card}, *piles[index + 1 :]]
        rest = hand - {card}
        now_laid = laid | {card}
        costs = [
            self.cost(after, p, c, now_laid, rest)
            for c in rest
            for p, pile in enumerate(after)
            if (c > pile["top"] or c == pile["top"] - self.step)
            if pile["direction"] == "up"
        ] + [
            self.cost(after, p, c, now_laid, rest)
            for c in rest
            for p, pile in enumerate(after)
            if pile["direction"] == "down" and (c < pile["top"] or c == pile["top"] + self.step)
        ]
        if owed > 0:
            return min(costs) if costs else self.risk[0] * 4
        return min([0.0, *costs])

    def last_hand(self, view: View) -> Action | None:
        """The endgame when only this hand is left and nothing more can be drawn: search
        for the order that lays the most cards (every card, if any order does) and take its
        first step; ``None`` when the search would be too long (the heuristic decides)."""
        directions = tuple(p["direction"] == "up" for p in view["piles"])
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
                    up = directions[p]
                    if not (card > top or card == top - step if up else card < top or card == top + step):
                        continue
                    count = 1 + best(hand[:i] + hand[i + 1 :], tops[:p] + (card,) + tops[p + 1 :])[0]
                    if count > result[0]:
                        result = (count, (card, p))
                        if count == len(hand):
                            memo[key] = result
                            return result
            memo[key] = result
            return result

        try:
            count, move = best(tuple(view["hand"]), tuple(p["top"] for p in view["piles"]))
        except TimeoutError:
            return None
        if move is None:
            return {"type": "end_turn"}
        return {"type": "play", "card": move[0], "pile": move[1]}

    def homes(self, piles: list[dict[str, Any]], card: int) -> int:
        """How many piles take ``card`` by the ordinary rule (ignoring backwards moves)."""
        return sum(1 for p in piles if (card > p["top"] if p["direction"] == "up" else card < p["top"]))

    def weight(self, card: int, hand: set[int]) -> float:
        return self.own_weight if card in hand else 1.0

    def cost(self, piles: list[dict[str, Any]], index: int, card: int, laid: set[int], hand: set[int]) -> float:
        """The change in risk from laying ``card`` on pile ``index``."""
        pile = piles[index]
        top = pile["top"]
        up = pile["direction"] == "up"
        risk = self.risk
        total = -risk[self.homes(piles, card)] * self.weight(card, hand)
        if card == top + (-self.step if up else self.step):
            reopened = range(card + 1, top) if up else range(top + 1, card)
            for n in reopened:
                if n not in laid and n != card:
                    h = self.homes(piles, n)
                    total += (risk[h + 1] - risk[h]) * self.weight(n, hand)
            return total
        jumped = range(top + 1, card) if up else range(card + 1, top)
        for n in jumped:
            if n not in laid:
                h = self.homes(piles, n)
                total += (risk[h - 1] - risk[h]) * self.weight(n, hand)
        return total
