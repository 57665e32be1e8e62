"""A heuristic bot for Halunken und Spelunken, playing from its own seat's view.

Everything it weighs is on the table: the face-up top card of every tavern, every captain's
space and pirate cards, the movement cards each seat has left, Black Jack's space and (two-player
variant) what is left of Black Jack's deck. A pirate card is worth what it adds to this seat's
score (its value, doubled while its colour is the seat's majority) plus, when it is taken from
an opponent, what the opponent loses.

- Movement: the card whose landing is worth most in expectation. The rivals' cards are secret,
  so each is assumed to play any card it has left with equal chance: that gives the chance that
  the same card cancels this one (the captain stays and takes its own tavern's card), that a
  rival lands on the space first and takes its top card (a face-down card, worth the average of
  the unseen cards, comes instead), that the captain it would rob has moved away, and that a
  rival lands on it afterwards and robs it. The Rum is kept unless it beats every numbered card
  by a margin that shrinks as the hand runs out; its value is chosen once all cards are known.
- Black Jack's own move (standard game): a rival controller robs every captain Black Jack
  overtakes, so a landing is worth less by the chance that Black Jack's next card (any one left
  in its deck) reaches it, times the card a controller would take.
- Auction: it bids the card it misses least when that costs less than Black Jack's expected
  theft from it this round, or when the card is cheap anyway; otherwise it passes.
- Black Jack (two-player controller): it aims Black Jack at the opponent's space; otherwise it
  keeps it away from its own captain.
- Choices of cards (steal, give, take from the harbour): the best for it, the least painful;
  it declines an optional theft only when no card is worth taking (for every card, what it
  would gain plus what the opponent would lose is negative).
- Placing pieces: captains far from the others, Black Jack far ahead of its own captain.
"""

from __future__ import annotations

import random
from typing import Any

from service.engine import Action, View, load_seed
from service.games.halunken_und_spelunken.engine import GAME_ID, STANDARD, score_collection

RUM_RESERVE = 1.5
"""How much better than the best numbered card the Rum must do before the bot spends it."""

CHEAP_BID = 5
"""A card the bot offers for Black Jack whatever the threat, when it is worth this little."""

CAUTION = 2.0
"""How heavily a rival Black Jack's expected theft weighs: its thefts are the standard game's
largest loss against any table (a controller chooses the card), so the bot fears them twice
over (against random rivals at four players, 150 matches: 1 won 71%, 2 won 80%, 3 won 72%)."""

RIVAL = -1
"""Stands for "a rival controls Black Jack" before the auction says which."""


def gain(cards: list[str], card: str) -> int:
    """What ``card`` adds to the score of a collection ``cards``."""
    return score_collection([*cards, card])["score"] - score_collection(cards)["score"]


def loss(cards: list[str], card: str) -> int:
    """What losing ``card`` takes from the score of ``cards``."""
    rest = list(cards)
    rest.remove(card)
    return score_collection(cards)["score"] - score_collection(rest)["score"]


class HalunkenBot:
    """The heuristic bot; stateless, so one instance may play every seat."""

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        kinds = {a["type"] for a in legal}
        if "place_captain" in kinds:
            return self._place_captain(view, legal)
        if "place_black_jack" in kinds:
            return self._place_black_jack(view, legal)
        if "bid" in kinds or kinds == {"pass"}:
            return self._auction(view, legal)
        if "play_black_jack" in kinds and view.get("my_black_jack_commit") is None and view["my_commit"] is not None:
            return self._black_jack_card(view, legal)
        if "play" in kinds:
            return self._movement(view, [a for a in legal if a["type"] == "play"])
        if "play_black_jack" in kinds:
            return self._black_jack_card(view, legal)
        if "rum" in kinds:
            return self._rum_value(view, legal)
        if "move_black_jack" in kinds:
            return self._push_black_jack(view, legal)
        return max(legal, key=lambda a: self._card_choice_worth(view, a))

    # -- set-up ----------------------------------------------------------------------------

    @staticmethod
    def _place_captain(view: View, legal: list[Action]) -> Action:
        others = [p for p in view["captains"] if p is not None]
        return max(legal, key=lambda a: (min((_ring(a["space"], p) for p in others), default=0), -a["space"]))

    @staticmethod
    def _place_black_jack(view: View, legal: list[Action]) -> Action:
        mine = view["captains"][view["seat"]]
        # Black Jack just ahead of the own captain must go almost round the board to pass it
        return min(legal, key=lambda a: (_ahead(mine, a["space"]), a["space"]))

    # -- auction ---------------------------------------------------------------------------

    @staticmethod
    def _auction(view: View, legal: list[Action]) -> Action:
        """Bid the card it misses least when that costs less than what a rival's Black Jack
        is expected to take from it this round (wherever its hand may move it), or when the
        card is cheap anyway; otherwise pass."""
        me = view["seat"]
        mine = view["collections"][me]
        bids = [a for a in legal if a["type"] == "bid"]
        if not bids:
            return {"type": "pass"}
        cheapest = min(bids, key=lambda a: (loss(mine, a["card"]), a["card"]))
        cost = loss(mine, cheapest["card"])
        spaces = len(view["taverns"])
        steps = [c for c in view["hand"] if c != "rum"] or list(range(1, 8))
        landings = [(view["captains"][me] + c) % spaces for c in steps]
        stake = sum(_black_jack_threat(view, me, space, mine, RIVAL) for space in landings) / len(landings)
        if cost < stake or (cost <= CHEAP_BID and _card_value(cheapest["card"]) <= CHEAP_BID):
            return cheapest
        return {"type": "pass"}

    # -- movement --------------------------------------------------------------------------

    def _movement(self, view: View, plays: list[Action]) -> Action:
        me = view["seat"]
        rivals = _rival_cards(view)
        unseen = _mean_unseen_gain(view, view["collections"][me])
        worth = {
            a["card"]: self._expected_worth(view, me, a["card"], rivals, unseen) for a in plays if a["card"] != "rum"
        }
        best = max(worth, key=lambda card: worth[card]) if worth else None
        if any(a["card"] == "rum" for a in plays):
            rum = max(self._expected_worth(view, me, v, rivals, unseen, rum=True) for v in range(1, 8))
            if best is None or rum > worth[best] + RUM_RESERVE * (len(plays) - 1) / 7:
                return {"type": "play", "card": "rum"}
        return {"type": "play", "card": best}

    def _rum_value(self, view: View, legal: list[Action]) -> Action:
        """The Rum's value, once every other card is known."""
        me = view["seat"]
        known = {
            int(key): {value: 1.0}
            for key, value in view["reveal"]["values"].items()
            if key != "bj" and int(key) != me and value is not None
        }
        unseen = _mean_unseen_gain(view, view["collections"][me])
        return max(
            legal, key=lambda a: self._expected_worth(view, me, a["value"], known, unseen, rum=True, revealed=True)
        )

    def _expected_worth(
        self,
        view: View,
        me: int,
        steps: int,
        rivals: dict[int, dict[int, float]],
        unseen: float,
        *,
        rum: bool = False,
        revealed: bool = False,
    ) -> float:
        """What moving ``steps`` is worth to ``me``, given what each rival might play
        (``rivals[seat][value]``: the chance it moves that many spaces) and what a face-down
        tavern card is worth to it on average (``unseen``)."""
        spaces = len(view["taverns"])
        pos, cols, taverns = view["captains"], view["collections"], view["taverns"]
        mine = cols[me]
        dest = (pos[me] + steps) % spaces
        cancel = 0.0 if revealed else _cancel_chance(view, me, "rum" if rum else steps)
        here = taverns[pos[me]]["top"]
        stay = float(gain(mine, here)) if here else 0.0

        before = after = 1.0  # chances that no rival lands on dest before / after me
        for seat, chances in rivals.items():
            reach = (dest - pos[seat]) % spaces
            if reach:
                p = chances.get(reach, 0.0)
                if reach < steps:
                    before *= 1 - p
                elif reach > steps:
                    after *= 1 - p
        top = taverns[dest]["top"]
        take = 0.0
        if top:
            later = unseen if taverns[dest]["cards"] > 1 else 0.0
            take = before * gain(mine, top) + (1 - before) * later
        holding = [*mine, top] if top else list(mine)
        rob = 0.0
        occupant = next((s for s, p in enumerate(pos) if s != me and p == dest), None)
        if occupant is not None and cols[occupant] and len(holding) <= len(cols[occupant]):
            stays_put = 1.0 - sum(p for v, p in rivals.get(occupant, {}).items() if v < steps)
            rob = stays_put * max(gain(holding, c) + loss(cols[occupant], c) for c in cols[occupant])
        if view["black_jack"] == dest and view["harbour"]:
            rob += max(gain(holding, c) for c in view["harbour"])
        robbed = 0.0
        if len(holding) > 0:
            mean_loss = sum(loss(holding, c) for c in holding) / len(holding)
            robbed = (1 - after) * mean_loss
        controller = view["controller"]
        moved = take + rob - robbed - _black_jack_threat(view, me, dest, holding, controller)
        kept = stay - _black_jack_threat(view, me, pos[me], [*mine, here] if here else list(mine), controller)
        return cancel * kept + (1 - cancel) * moved

    def _black_jack_card(self, view: View, legal: list[Action]) -> Action:
        """Two-player controller: Black Jack onto the opponent's space if a card reaches it,
        else as far as possible from the own captain's next landing."""
        me = view["seat"]
        cards = [a for a in legal if a["type"] == "play_black_jack"]
        spaces = len(view["taverns"])
        opponent = next(p for s, p in enumerate(view["captains"]) if s != me)
        own = view["my_commit"]

        def aim(a: Action) -> tuple[int, int]:
            value = a["card"]
            if value == "rum" or value == own:
                return (0, 0)
            dest = (view["black_jack"] + value) % spaces
            return (2 if dest == opponent else 1, _ring(dest, view["captains"][me]))

        return max(cards, key=aim)

    @staticmethod
    def _push_black_jack(view: View, legal: list[Action]) -> Action:
        mine = view["captains"][view["seat"]]
        return min(legal, key=lambda a: (_ahead(mine, a["space"]), a["space"]))

    # -- choosing a card ---------------------------------------------------------------------

    @staticmethod
    def _card_choice_worth(view: View, action: Action) -> float:
        me = view["seat"]
        mine = view["collections"][me]
        kind = action["type"]
        if kind == "decline":
            return 0.0
        card = action["card"]
        if kind == "give":
            return -loss(mine, card)
        if kind == "take_harbour":
            return gain(mine, card)
        victim = view["pending"]["victim"]
        return gain(mine, card) + loss(view["collections"][victim], card)


def _movement_cards() -> list[Any]:
    return list(load_seed(GAME_ID, "game")["captain_movement"])


def _black_jack_threat(view: View, me: int, space: int, holding: list[str], controller: int | None) -> float:
    """Standard game: what ``me``, standing on ``space`` with ``holding``, expects to lose to
    Black Jack's own move at the end of the round. It moves by any card left in its deck and
    robs every captain it overtakes or ends on but its ``controller``: a controller takes the
    card of its choice (when it holds no more cards than the victim), an unowned Black Jack
    the card the victim gives up."""
    if view["variant"] != STANDARD or view["black_jack"] is None or not holding or controller == me:
        return 0.0
    left = [c for c in _black_jack_deck() if c not in view["black_jack_deck"]["used"]]
    reach = (space - view["black_jack"]) % len(view["taverns"])
    if not left or reach == 0:
        return 0.0
    chance = sum(1 for c in left if c >= reach) / len(left)
    if controller is None:
        return chance * min(loss(holding, c) for c in holding)
    if controller != RIVAL and len(view["collections"][controller]) > len(holding):
        return 0.0
    return CAUTION * chance * max(loss(holding, c) for c in holding)


def _card_value(card: str) -> int:
    return int(card.rsplit("-", 1)[1])


def _black_jack_deck() -> list[int]:
    return list(load_seed(GAME_ID, "game")["black_jack_movement"])


def _rival_cards(view: View) -> dict[int, dict[int, float]]:
    """For every other seat, the chance that it moves each number of spaces this round, if it
    picks uniformly among the movement cards it has left (a Rum: any value 1-7)."""
    rivals: dict[int, dict[int, float]] = {}
    for seat, played in enumerate(view["played"]):
        if seat == view["seat"]:
            continue
        left = [c for c in _movement_cards() if c not in played]
        chances: dict[int, float] = {}
        for card in left:
            for value in range(1, 8) if card == "rum" else [card]:
                chances[value] = chances.get(value, 0.0) + (1 / 7 if card == "rum" else 1.0) / len(left)
        rivals[seat] = chances
    return rivals


def _cancel_chance(view: View, me: int, card: Any) -> float:
    """The chance that another piece reveals the same card, so that ``me`` stays put."""
    keep = 1.0
    for seat, played in enumerate(view["played"]):
        if seat != me:
            left = [c for c in _movement_cards() if c not in played]
            keep *= 1 - (card in left) / len(left) if left else 1.0
    deck = view.get("black_jack_deck", {})
    if "remaining" in deck and view["controller"] != me and deck["remaining"]:
        keep *= 1 - (card in deck["remaining"]) / len(deck["remaining"])
    return 1 - keep


def _mean_unseen_gain(view: View, mine: list[str]) -> float:
    """What a face-down tavern card is worth to ``mine`` on average: any card nobody has seen."""
    seen = {c for cards in view["collections"] for c in cards} | set(view["harbour"])
    seen |= {t["top"] for t in view["taverns"] if t["top"]}
    unseen = [c for c in _all_pirates() if c not in seen]
    return sum(gain(mine, c) for c in unseen) / len(unseen) if unseen else 0.0


def _all_pirates() -> list[str]:
    return [f"{colour}-{v}" for colour, values in load_seed(GAME_ID, "game")["pirates"].items() for v in values]


def _ring(a: int, b: int, spaces: int = 14) -> int:
    """Distance between two spaces of the ring, either way round."""
    d = abs(a - b) % spaces
    return min(d, spaces - d)


def _ahead(captain: int, black_jack: int, spaces: int = 14) -> int:
    """Clockwise steps from the captain to Black Jack: small means Black Jack is just ahead."""
    return (black_jack - captain) % spaces
