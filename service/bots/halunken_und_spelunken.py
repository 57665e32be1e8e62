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
  by a margin that shrinks as the hand runs out. Its value is chosen once all cards are known,
  by playing the rest of the round out for each value in drawn worlds, as for the auction
  (two-player variant: by the expected worth above).
- Black Jack's own move (standard game): a rival controller robs every captain Black Jack
  overtakes, so a landing is worth less by the chance that Black Jack's next card (any one left
  in its deck) reaches it, times the card a controller would take.
- Auction (standard game): it looks one round ahead. In each of a few worlds drawn from its
  view (the hidden tavern cards, Black Jack's deck order and the rivals' movement cards drawn
  at random, :mod:`service.bots.samplers.halunken_und_spelunken`) it plays the round out twice
  on the engine: once winning Black Jack with the card it misses least, once passing (the high
  bidder, or else the next rival, wins). It bids when winning leaves it the better chance of
  being ahead of every rival after the round, but never a card that costs it over 20 points.
  Counting cards and values does not weigh this well: control of Black Jack is worth what it
  stops being stolen plus what it steals, both depend on where every captain ends up, and a
  lead is lost by one theft of a doubled card.
  (Two-player variant: it bids when the card costs less than Black Jack's expected theft from
  it, or is cheap anyway; it raises a standing bid but never matches it, so that two bots do
  not match each other for ever.)
- Black Jack (two-player controller): it aims Black Jack at the opponent's space; otherwise it
  keeps it away from its own captain.
- Choices of cards (steal, give, take from the harbour): the best for it, the least painful;
  it declines an optional theft only when no card is worth taking (for every card, what it
  would gain plus what the opponent would lose is negative).
- Placing pieces: captains far from the others, Black Jack far ahead of its own captain.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import lru_cache
from typing import Any, cast

import orjson

from service.bots.samplers.halunken_und_spelunken import sample_state
from service.bots.search import chance_ahead, round_stage
from service.engine import Action, Rng, State, View, load_seed
from service.games.halunken_und_spelunken import GAME
from service.games.halunken_und_spelunken.engine import GAME_ID, STANDARD, TWO, score_collection
from service.games.halunken_und_spelunken.state import (
    HalunkenState,
    captain_space,
    current_auction,
    pending_decision,
)

RUM_RESERVE = 0.5
"""How much better than the best numbered card the Rum must do before the bot spends it, in
points, shrinking as the hand runs out. Against random rivals, seeds 0-199 of
``bench/heuristics.py``: 0.5 won 90.5% at three players and 84.0% at four, 1.5 won 89.5% and
82.5% (every match 0.5 lost, 1.5 lost too), 3.0 won 81.5% at four."""

CHEAP_BID = 5
"""A card the bot offers for Black Jack whatever the threat, when it is worth this little."""

CAUTION = 2.0
"""How heavily a rival Black Jack's expected theft weighs: its thefts are the standard game's
largest loss against any table (a controller chooses the card), so the bot fears them twice
over (against random rivals at four players, 150 matches: 1 won 71%, 2 won 80%, 3 won 72%)."""

RIVAL = -1
"""Stands for "a rival controls Black Jack" before the auction says which."""

MAX_BID_LOSS = 20
"""Standard game: the bot passes rather than bid a card that costs it more than this many
points (a doubled 11, or a 14 with its colour's doubling). The look-ahead sees one round in a
few worlds and rates control of Black Jack above such a card more often than it pays: four
players, seeds 0-199 of ``bench/heuristics.py``, no limit or 24 won 77.5%, 20 won 82.5%, 16 won
80.0%; seeds 200-399, no limit 77.5%, 20 won 81.5%; three players 90.5% and 89.5%."""

WORLDS = 16
"""Worlds drawn from the view for each look-ahead: every option is played out in the same
worlds, so their difference is less noisy than either value (four-player auctions against
random rivals, 200 matches: 8 worlds won 77%, 16 won 83%, 48 won 81.5%)."""

ROLLOUT_WORLDS = 2
"""Worlds of each look-ahead when the bot plays the seats of a search's rollout
(:meth:`HalunkenBot.for_rollouts`). At three and four players a rollout is mostly the seats'
auction look-aheads: with 16 worlds one cost about 60 ms at four players, so level 3 played
one world a decision in its 0.1 s and never had the 4 it needs to overturn a move; with 2 it
plays about five, and its level 3 beats level 2 there (docs/levels.md)."""

SPREAD = 8.0
"""How far (in points) a rival's score may still move per remaining round, as one standard
deviation of a normal law: it turns a score gap into a chance of finishing ahead. The rate
barely depends on it (four players, 200 matches: 4 won 83.5%, 8 won 83%, 14 won 83%); the
score gap itself instead of the chance won 77.5%."""

NO_CHANCE = Rng(bytes(32))
"""The engine's dice in a look-ahead: this game draws nothing after the set-up (the worlds
already hold every shuffled card), but ``perform`` takes a dice stream."""


@lru_cache(maxsize=1 << 16)
def _score_of(cards: tuple[str, ...]) -> int:
    return int(score_collection(list(cards))["score"])


def score(cards: list[str]) -> int:
    """The score of a collection ``cards``, remembered: the bot weighs thousands of collections
    a match (every landing's gain and every theft's loss), and the engine's count of them was
    five sixths of a search rollout's time. A collection's score does not depend on its order."""
    return _score_of(tuple(sorted(cards)))


def gain(cards: list[str], card: str) -> int:
    """What ``card`` adds to the score of a collection ``cards``."""
    return score([*cards, card]) - score(cards)


def loss(cards: list[str], card: str) -> int:
    """What losing ``card`` takes from the score of ``cards``."""
    rest = list(cards)
    rest.remove(card)
    return score(cards) - score(rest)


class HalunkenBot:
    """The heuristic bot; stateless, so one instance may play every seat. Its look-aheads
    (the standard game's auction and Rum) play ``worlds`` drawn worlds each."""

    stage = staticmethod(round_stage)

    def __init__(self, worlds: int = WORLDS) -> None:
        self.worlds = worlds

    def for_rollouts(self) -> HalunkenBot:
        """The bot a search's rollouts play every seat with: this one, looking ahead over
        :data:`ROLLOUT_WORLDS` worlds, so that a level's time holds enough rollouts."""
        return HalunkenBot(ROLLOUT_WORLDS)

    @staticmethod
    def judge(state: State, seat: int) -> float:
        """``seat``'s chance of finishing ahead of every rival from ``state`` (the auction
        look-ahead's measure), a stopped rollout's reward."""
        return _chance_ahead(cast(HalunkenState, state), seat)

    @staticmethod
    def worth_trying(view: View, legal: list[Action]) -> list[Action]:
        """``legal`` without the moves this bot never plays, so that a search around it
        (:mod:`service.bots.search`) leaves them out too: in the two-player auction, a bid
        that only matches the standing one (see :meth:`_auction`). Two searches matching each
        other's bids would hold the auction, and the match, for ever."""
        if view["variant"] != TWO or view["phase"] != "auction" or view["auction"]["high_card"] is None:
            return legal
        floor = _card_value(view["auction"]["high_card"])
        return [a for a in legal if a["type"] != "bid" or _card_value(a["card"]) > floor]

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        kinds = {a["type"] for a in legal}
        if "place_captain" in kinds:
            return self._place_captain(view, legal)
        if "place_black_jack" in kinds:
            return self._place_black_jack(view, legal)
        if ("bid" in kinds or kinds == {"pass"}) and view["variant"] == TWO:
            return self._auction(view, legal)
        if "bid" in kinds or kinds == {"pass"}:
            return self._auction_ahead(view, legal, rng)
        if "play_black_jack" in kinds and view.get("my_black_jack_commit") is None and view["my_commit"] is not None:
            return self._black_jack_card(view, legal)
        if "play" in kinds:
            return self._movement(view, [a for a in legal if a["type"] == "play"])
        if "play_black_jack" in kinds:
            return self._black_jack_card(view, legal)
        if "rum" in kinds and view["variant"] == TWO:
            return self._rum_value(view, legal)
        if "rum" in kinds:
            return _best_ahead(view, legal, rng, self.worlds)
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

    def _auction_ahead(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        """Standard game: bid the card it misses least when winning Black Jack with it leaves
        a better chance of being ahead after the round than passing, played out in drawn worlds
        with the movement card it would then choose (:meth:`_movement`); never a card that
        costs more than ``MAX_BID_LOSS``."""
        me = view["seat"]
        mine = view["collections"][me]
        bids = [a for a in legal if a["type"] == "bid"]
        if not bids:
            return {"type": "pass"}
        cheapest = min(bids, key=lambda a: (loss(mine, a["card"]), a["card"]))
        if loss(mine, cheapest["card"]) > MAX_BID_LOSS:
            return {"type": "pass"}
        moves: dict[tuple[int | None, str | None], Action] = {}  # (controller, own bid) -> own card

        def settle_and_move(state: HalunkenState, option: Action) -> None:
            _settle_auction(state, me, option)
            key = (state["controller"], option.get("card"))
            if key not in moves:  # the view is the same in every world: only public facts changed
                after = GAME.view(state, me)
                moves[key] = self._movement(after, [{"type": "play", "card": c} for c in after["hand"]])
            GAME.perform(state, me, moves[key], NO_CHANCE)

        return _best_ahead(view, [{"type": "pass"}, cheapest], rng, self.worlds, settle_and_move)

    @staticmethod
    def _auction(view: View, legal: list[Action]) -> Action:
        """Two-player variant: bid the card it misses least when that costs less than what a
        rival's Black Jack is expected to take from it this round (wherever its hand may move
        it), or when the card is cheap anyway; otherwise pass.

        The rulebook lets a bid equal the standing one, again and again, until a player passes:
        two players who each match the other never stop. The bot never matches: over a standing
        bid it offers a card of higher value or passes, so each of its bids tops the last and an
        auction holds at most one of its bids per card value."""
        me = view["seat"]
        mine = view["collections"][me]
        bids = [a for a in HalunkenBot.worth_trying(view, legal) if a["type"] == "bid"]
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
        """Two-player variant: the Rum's value, once every other card is known."""
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
        return _card_worth(view["collections"], view["seat"], view["pending"].get("victim"), action)


def _card_worth(collections: list[list[str]], me: int, victim: int | None, action: Action) -> float:
    """What a card taken or given is worth to ``me``: a theft counts what ``victim`` loses too."""
    mine = collections[me]
    kind = action["type"]
    if kind == "decline":
        return 0.0
    card = action["card"]
    if kind == "give":
        return -loss(mine, card)
    if kind == "take_harbour":
        return gain(mine, card)
    assert victim is not None, "a theft has a victim"
    return gain(mine, card) + loss(collections[victim], card)


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


# -- looking one round ahead -------------------------------------------------------------------


def _best_ahead(
    view: View,
    candidates: list[Action],
    rng: random.Random,
    worlds: int,
    play: Callable[[HalunkenState, Action], None] | None = None,
) -> Action:
    """The candidate of ``view``'s seat that leaves the best chance of being ahead once the
    round is played out, over the same ``worlds`` drawn worlds for every candidate (the first
    on a tie). ``play`` makes the seat's moves of a candidate in a world (by default: the
    candidate)."""
    me = view["seat"]
    sim = random.Random(rng.getrandbits(64))
    totals = [0.0] * len(candidates)
    for _ in range(worlds):
        world = sample_state(GAME, view, me, sim)
        plays = _rival_plays(world, me, sim)
        frozen = orjson.dumps(world)
        for i, action in enumerate(candidates):
            state = orjson.loads(frozen)
            start = state["round"]
            if play is None:
                GAME.perform(state, me, action, NO_CHANCE)
            else:
                play(state, action)
            totals[i] += _finish_round(state, me, start, plays, sim)
    return candidates[max(range(len(candidates)), key=lambda i: totals[i])]


def _rival_plays(world: State, me: int, sim: random.Random) -> dict[int, Any]:
    """The movement card each rival that has not committed yet plays in ``world``: any one of
    its hand, as the movement estimate assumes."""
    return {
        seat: sim.choice(hand)
        for seat, hand in enumerate(world["hands"])
        if seat != me and world["commits"][seat] is None and hand
    }


def _settle_auction(state: HalunkenState, me: int, option: Action) -> None:
    """End the auction under way with ``me`` taking ``option``: after a bid every rival passes
    (a rival that outbids it asks the bot again); after a pass the high bidder wins, or if
    nobody has bid, the next rival holding cards bids the card it misses least."""
    acted = False
    while state["phase"] == "auction":
        seat = GAME.to_act(state)[0]
        cards = state["collections"][seat]
        action: Action = {"type": "pass"}
        if seat == me and not acted:
            action, acted = option, True
        elif seat != me and option["type"] == "pass" and current_auction(state)["high_card"] is None and cards:
            action = {"type": "bid", "card": min(cards, key=lambda c: (loss(cards, c), c))}
        GAME.perform(state, seat, action, NO_CHANCE)


def _finish_round(state: HalunkenState, me: int, start: int, plays: dict[int, Any], sim: random.Random) -> float:
    """Play round ``start`` of ``state`` to its end and return ``me``'s chance of being ahead
    (:func:`_chance_ahead`). Rivals play their card of ``plays`` and declare a Rum at random;
    every seat takes, gives and steals by :func:`_card_worth` and steps Black Jack aside just
    ahead of its own captain. ``me`` declares a Rum knowing every card, so each value is played
    out and the best counts."""
    while (to_act := GAME.to_act(state)) and state["round"] == start:
        seat = to_act[0]
        if state["phase"] == "choose":
            action: Action = {"type": "play", "card": plays[seat]}
        else:
            legal = GAME.legal_actions(state, seat)
            pending = pending_decision(state)
            if pending["kind"] == "rum" and seat == me:
                frozen = orjson.dumps(state)
                outcomes = []
                for value in legal:
                    branch = orjson.loads(frozen)
                    GAME.perform(branch, seat, value, NO_CHANCE)
                    outcomes.append(_finish_round(branch, me, start, plays, sim))
                return max(outcomes)
            if pending["kind"] == "rum":
                action = sim.choice(legal)
            elif pending["kind"] == "black_jack_step":
                action = min(legal, key=lambda a: (_ahead(captain_space(state, seat), a["space"]), a["space"]))
            else:
                victim = pending["victim"] if pending["kind"] in ("steal", "harbour") else None
                action = max(legal, key=lambda a: _card_worth(state["collections"], seat, victim, a))
        GAME.perform(state, seat, action, NO_CHANCE)
    return _chance_ahead(state, me)


def _chance_ahead(state: HalunkenState, me: int) -> float:
    """The chance that ``me`` ends ahead of (or level with) every rival, if each rival's score
    still moves by a normal law of ``SPREAD`` points per remaining round (at the end: 1 or 0).
    A chance rather than the score gap: it weighs every rival, the nearest most, and a sure
    point lost when far ahead counts less than a theft that may cost the lead."""
    scores = [score(cards) for cards in state["collections"]]
    left = 0 if state["phase"] == "over" else load_seed(GAME_ID, "game")["rounds"] + 1 - state["round"]
    spread = SPREAD * math.sqrt(left)
    chance = 1.0
    for seat, theirs in enumerate(scores):
        if seat != me:
            gap = scores[me] - theirs
            chance *= chance_ahead(gap, spread)
    return chance
