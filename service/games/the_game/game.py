"""The Game (Steffen Benndorf), with the professional version and the "On Fire" expansion.

Everyone plays as one team against the deck: 98 cards (2–99) onto two ascending piles
(from 1) and two descending piles (from 100). A turn is atomic actions: ``play`` one card on
one pile, as often as the player likes once the minimum is met, then ``end_turn``, which draws
back up to the hand size. The numbers come from ``seeds/the-game/cards.json``.

The sections of the rulebook, as the methods below follow them:

- *Preparazione*: :meth:`TheGame.setup` deals 8 (solo), 7 (two players) or 6 cards.
- *Svolgimento*: "dopo aver guardato le carte, i giocatori si accordano su chi inizia" — the
  seats agree on the starter with public ``propose_starter`` / ``accept_starter`` actions
  (:mod:`.starter`); solo, or with the ``first_seat`` option, play starts at once. Then at
  least two cards a turn (three in the professional version) while the
  draw pile lasts, one after (*Fine della partita*); players with an empty hand are skipped.
- *La mossa al contrario*: :mod:`.piles`.
- *Fine della partita*: the match ends as soon as the player to act cannot play their
  minimum — checked when a turn starts, and again after each card while the minimum is not
  yet met (can the cards still owed be laid in some order?) — or when every card has been
  played. The result is "brillante" under ten cards left, unless the match was lost to fire.
- *On Fire*: a fire card not covered by the end of the next player's turn loses at once.
"""

from __future__ import annotations

import functools
from typing import Any

from service.engine import (
    Action,
    ActionType,
    Event,
    Game,
    IllegalAction,
    InvalidOptions,
    Option,
    Outcome,
    Rng,
    State,
    View,
    load_seed,
)
from service.games.the_game import piles as P
from service.games.the_game import starter as S

GAME_ID = "the-game"
AGREE = "agree"


def rules() -> dict[str, Any]:
    """The numbers of the game (``seeds/the-game/cards.json``)."""
    return load_seed(GAME_ID, "cards")


class TheGame(Game[State]):
    id = GAME_ID
    title = "The Game"
    min_players = 1
    max_players = 5
    cooperative = True
    options = (
        Option(
            "professional",
            "bool",
            False,
            "Versione per professionisti: play at least three cards a turn instead of two while the draw pile lasts.",
        ),
        Option(
            "smaller_hands",
            "bool",
            False,
            "One card fewer in hand (7 solo, 6 with two players, 5 with three to five); the "
            "rulebook offers it with the professional version, and it is allowed on its own.",
        ),
        Option(
            "on_fire",
            "bool",
            False,
            "Espansione 'On Fire': 22, 33, 44, 55, 66 and 77 are fire cards; one left "
            "uncovered at the end of the next player's turn loses the match.",
        ),
        Option(
            "first_seat",
            "enum",
            AGREE,
            "Who starts: 'agree' (the default: after the deal the seats agree on it with "
            "propose_starter / accept_starter), or a seat number to skip that negotiation.",
            choices=(AGREE, 0, 1, 2, 3, 4),
        ),
    )
    action_types = (
        ActionType(
            "propose_starter",
            "Before the first turn: propose the seat that starts (each seat proposes at most "
            "once; a new proposal replaces the one on the table).",
            {"seat": {"type": "integer", "minimum": 0, "maximum": 4}},
        ),
        ActionType(
            "accept_starter",
            "Before the first turn: agree with the proposal on the table; when every seat agrees, that seat starts.",
        ),
        ActionType(
            "play",
            "Lay one card from your hand on a pile: higher on an ascending pile, lower on a "
            "descending one, or exactly 10 the other way.",
            {
                "card": {"type": "integer", "minimum": 2, "maximum": 99},
                "pile": {"type": "integer", "minimum": 0, "maximum": 3},
            },
        ),
        ActionType(
            "end_turn",
            "End your turn once you have played your minimum, drawing back up to your hand size.",
        ),
    )

    # -- set-up --------------------------------------------------------------------------

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        if options["first_seat"] != AGREE and options["first_seat"] >= players:
            raise InvalidOptions(
                "invalid_option",
                f"first_seat must be a seat of this match (0–{players - 1}), not {options['first_seat']}.",
            )

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        data = rules()
        deck = list(range(data["lowest"], data["highest"] + 1))
        rng.shuffle(deck)
        hand_size = data["hand_size"][str(players)] - (1 if options["smaller_hands"] else 0)
        hands = [sorted(deck[seat * hand_size : (seat + 1) * hand_size]) for seat in range(players)]
        state: State = {
            "players": players,
            "options": dict(options),
            "hand_size": hand_size,
            "hands": hands,
            "deck": deck[players * hand_size :],
            "piles": [
                {"direction": p["direction"], "top": p["start"], "count": 0, "burning": None} for p in data["piles"]
            ],
            "turn": None,
            "agreement": None,
            "played": 0,
            "over": False,
            "reason": None,
        }
        first = options["first_seat"]
        if first == AGREE and players > 1:
            state["agreement"] = S.opening()
        else:
            state["turn"] = 0 if first == AGREE else first
            self._start_turn(state, [])
        return state

    # -- whose turn, what is legal -------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        if state["over"]:
            return []
        if state["agreement"] is not None:
            return [state["agreement"]["speaker"]]
        return [state["turn"]]

    def minimum(self, state: State) -> int:
        """Cards the player to act must lay this turn: two (three for professionals) while the
        draw pile lasts, then one."""
        data = rules()
        if not state["deck"]:
            return data["minimum_without_draw_pile"]
        return data["minimum_professional"] if state["options"]["professional"] else data["minimum"]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        if state["agreement"] is not None:
            return S.choices(state["agreement"], state["players"])
        step = rules()["backwards_step"]
        actions: list[Action] = [
            {"type": "play", "card": card, "pile": p}
            for card in state["hands"][seat]
            for p, pile in enumerate(state["piles"])
            if P.fits(pile, card, step)
        ]
        if state["played"] >= self.minimum(state):
            actions.append({"type": "end_turn"})
        return actions

    def check(self, state: State, seat: int, action: Action) -> None:
        if self._plainly_legal(state, seat, action):
            return
        super().check(state, seat, action)
        # True == 1 and 37.0 == 37 in Python: they must not pass for a seat or a card
        if any(type(v) in (bool, float) for v in action.values()):
            raise IllegalAction("bad_action", "Cards, piles and seats are JSON integers.")

    def _plainly_legal(self, state: State, seat: int, action: Action) -> bool:
        """Whether ``action`` is, exactly, one :meth:`legal_actions` would list for a seat
        whose turn it is with no starter to agree (a card laid, or the turn ended), decided
        on that card and pile alone rather than by listing the whole hand's moves. False
        sends the action to the general check, which explains a refusal."""
        if state["over"] or state["agreement"] is not None or state["turn"] != seat:
            return False
        kind = action.get("type")
        if kind == "end_turn":
            return len(action) == 1 and state["played"] >= self.minimum(state)
        if kind != "play" or action.keys() != {"type", "card", "pile"}:
            return False
        card, p = action["card"], action["pile"]
        return (
            type(card) is int
            and type(p) is int
            and card in state["hands"][seat]
            and 0 <= p < len(state["piles"])
            and P.fits(state["piles"][p], card, rules()["backwards_step"])
        )

    def explain(self, state: State, seat: int, action: Action) -> IllegalAction:
        agreement = state["agreement"]
        if action["type"] in ("propose_starter", "accept_starter"):
            return self._explain_agreement(state, action)
        if agreement is not None:
            return IllegalAction(
                "starter_not_agreed",
                "The players first agree on who starts (propose_starter, accept_starter).",
                rule="who starts",
            )
        step = rules()["backwards_step"]
        if action["type"] == "end_turn":
            need = self.minimum(state)
            return IllegalAction(
                "minimum_not_met",
                f"You must lay at least {need} card(s) this turn "
                f"({'the draw pile is empty' if not state['deck'] else 'while the draw pile lasts'}); "
                f"you have laid {state['played']}.",
                rule="minimum cards per turn",
            )
        card, p = action["card"], action["pile"]
        if card not in state["hands"][seat]:
            return IllegalAction("card_not_in_hand", f"You do not hold the {card}.", rule="own hand")
        if not isinstance(p, int) or not 0 <= p < len(state["piles"]):
            return IllegalAction("no_such_pile", f"There is no pile {p!r}; piles are 0–3.", rule="piles")
        pile = state["piles"][p]
        other = "higher" if pile["direction"] == "up" else "lower"
        back = pile["top"] - step if pile["direction"] == "up" else pile["top"] + step
        return IllegalAction(
            "pile_rule",
            f"The {card} cannot go on the {P.describe(pile, p)}: a card there must be {other}, "
            f"or exactly {back} (the backwards move).",
            rule="pile order",
        )

    @staticmethod
    def _explain_agreement(state: State, action: Action) -> IllegalAction:
        agreement = state["agreement"]
        if agreement is None:
            return IllegalAction(
                "starter_already_agreed", "Who starts is settled: the match is under way.", rule="who starts"
            )
        if action["type"] == "accept_starter":
            return IllegalAction(
                "nothing_to_accept", "Nobody has proposed a starter yet: propose one.", rule="who starts"
            )
        if agreement["speaker"] in agreement["proposed"]:
            return IllegalAction(
                "proposal_used",
                "Each seat proposes a starter once; accept the proposal on the table.",
                rule="who starts",
            )
        if action["seat"] == agreement["proposal"]:
            return IllegalAction(
                "already_proposed", "That seat is already proposed: accept_starter agrees with it.", rule="who starts"
            )
        return IllegalAction("no_such_seat", f"Seat {action['seat']!r} is not a seat of this match.", rule="who starts")

    # -- moves -----------------------------------------------------------------------------

    def perform(self, state: State, seat: int, action: Action, rng: Rng) -> tuple[State, list[Event]]:
        events: list[Event] = []
        if action["type"] == "play":
            self._play(state, seat, action["card"], action["pile"], events)
        elif action["type"] == "end_turn":
            self._end_turn(state, seat, events)
        else:
            self._negotiate(state, seat, action, events)
        return state, events

    def _negotiate(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        agreement, players = state["agreement"], state["players"]
        if action["type"] == "propose_starter":
            S.propose(agreement, players, action["seat"])
            events.append({"type": "starter_proposed", "seat": seat, "starter": action["seat"]})
        else:
            S.accept(agreement, players)
            events.append({"type": "starter_accepted", "seat": seat, "starter": agreement["proposal"]})
        starter = S.agreed_starter(agreement, players)
        if starter is None:
            return
        state["agreement"] = None
        state["turn"] = starter
        events.append({"type": "starter_agreed", "starter": starter})
        self._start_turn(state, events)

    def _play(self, state: State, seat: int, card: int, p: int, events: list[Event]) -> None:
        data = rules()
        pile = state["piles"][p]
        backwards = P.is_backwards(pile, card, data["backwards_step"])
        state["hands"][seat].remove(card)
        pile["top"] = card
        pile["count"] += 1
        fire = state["options"]["on_fire"] and card in data["fire_cards"]
        pile["burning"] = 0 if fire else None
        state["played"] += 1
        events.append({"type": "played", "seat": seat, "card": card, "pile": p, "backwards": backwards, "fire": fire})
        owed = self.minimum(state) - state["played"]
        if owed > 0 and not P.can_lay(state["hands"][seat], state["piles"], owed, data["backwards_step"]):
            self._finish(state, "stuck", events)

    def _end_turn(self, state: State, seat: int, events: list[Event]) -> None:
        hand = state["hands"][seat]
        draw = min(state["hand_size"] - len(hand), len(state["deck"]))
        drawn, state["deck"] = state["deck"][:draw], state["deck"][draw:]
        hand.extend(drawn)
        hand.sort()
        events.append({"type": "turn_ended", "seat": seat, "laid": state["played"], "drew": draw})
        if drawn:
            events.append({"type": "drew", "seat": seat, "cards": drawn, "to": [seat]})
        for p, pile in enumerate(state["piles"]):
            if pile["burning"] is None:
                continue
            pile["burning"] += 1
            if pile["burning"] >= rules()["fire_deadline_turns"]:
                events.append({"type": "fire_uncovered", "pile": p, "card": pile["top"]})
                self._finish(state, "fire", events)
                return
        state["played"] = 0
        following = [(seat + k) % state["players"] for k in range(1, state["players"] + 1)]
        holders = [s for s in following if state["hands"][s]]
        if not holders:
            self._finish(state, "all_played", events)
            return
        state["turn"] = holders[0]
        self._start_turn(state, events)

    def _start_turn(self, state: State, events: list[Event]) -> None:
        seat = state["turn"]
        events.append({"type": "turn_started", "seat": seat, "minimum": self.minimum(state)})
        if not P.can_lay(state["hands"][seat], state["piles"], self.minimum(state), rules()["backwards_step"]):
            self._finish(state, "stuck", events)

    def _finish(self, state: State, reason: str, events: list[Event]) -> None:
        state["over"] = True
        state["reason"] = reason
        events.append({"type": "match_over", "reason": reason, "cards_left": cards_left(state)})

    # -- what a seat sees --------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> View:
        view: View = {
            "piles": [
                {
                    "direction": pile["direction"],
                    "top": pile["top"],
                    "count": pile["count"],
                    "on_fire": pile["burning"] is not None,
                }
                for pile in state["piles"]
            ],
            "hand_counts": [len(h) for h in state["hands"]],
            "draw_pile": len(state["deck"]),
            "turn": state["turn"],
            "starter_agreement": None
            if state["agreement"] is None
            else {k: (list(v) if isinstance(v, list) else v) for k, v in state["agreement"].items()},
            "played_this_turn": state["played"],
            "minimum": self.minimum(state),
            "cards_left": cards_left(state),
            "laid": laid_cards(state),
            "options": state["options"],
            "over": state["over"],
            "reason": state["reason"],
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = list(state["hands"][seat])
        return view

    def outcome(self, state: State) -> Outcome | None:
        if not state["over"]:
            return None
        left = cards_left(state)
        won = left == 0 and state["reason"] == "all_played"
        burnt = state["reason"] == "fire"
        players = state["players"]
        return {
            "scores": [left] * players,
            "ranks": [1] * players,
            "winners": list(range(players)) if won else [],
            "detail": {
                "cards_left": left,
                "won": won,
                "brilliant": left < rules()["brilliant_below"] and not burnt,
                "end_reason": state["reason"],
                "score_means": "cards not laid (hands plus draw pile); 0 beats the game",
            },
        }


def cards_left(state: State) -> int:
    """The team score: cards still in hands or in the draw pile."""
    return len(state["deck"]) + sum(len(h) for h in state["hands"])


def laid_cards(state: State) -> list[int]:
    """Every card already on a pile, in order: public, as every player saw each one laid."""
    return sorted(_every_card().difference(state["deck"], *state["hands"]))


@functools.cache
def _every_card() -> frozenset[int]:
    """Every number on a card, from ``lowest`` to ``highest`` (``seeds/the-game/cards.json``)."""
    data = rules()
    return frozenset(range(data["lowest"], data["highest"] + 1))
