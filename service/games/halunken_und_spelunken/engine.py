"""Halunken und Spelunken (Alex Randolph, Kosmos): introductory, standard and two-player games.

The board is a ring of 14 spaces (0..13, clockwise), one in front of each tavern. Seats are
clockwise in seat order. Pirate cards are strings ``"<colour>-<value>"``; movement cards are
the integers 1..7 (1..12 for Black Jack's standard deck) and the string ``"rum"``.

A round: (auction for Black Jack) -> secret simultaneous choice of movement cards -> reveal ->
cancelling of equal cards -> a Rum value -> captains who stay take a card -> pieces move lowest
card first, then in ascending order (landing, stealing, pushing) -> (Black Jack's own move in the
standard game).
Everything is driven by a queue of small steps in the state; a step that needs a decision
sets ``pending`` and the match waits for that seat.
"""

from __future__ import annotations

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
from service.games.halunken_und_spelunken.state import (
    HalunkenState,
    Movement,
    Pending,
    Piece,
    StealPending,
    Step,
    black_jack_space,
    captain_space,
    current_auction,
    current_reveal,
    pending_decision,
    upgrade_state,
)

GAME_ID = "halunken-und-spelunken"
INTRO, STANDARD, TWO = "introductory", "standard", "two-player"
BJ = "bj"


def _data() -> dict[str, Any]:
    return load_seed(GAME_ID, "game")


def _card_value(card: str) -> int:
    return int(card.rsplit("-", 1)[1])


def _card_colour(card: str) -> str:
    return card.rsplit("-", 1)[0]


def _card_key(card: str) -> tuple[int, int]:
    """Order of pirate cards for the start cards: value, then colour (yellow > green > purple > red)."""
    return (_card_value(card), _data()["colour_rank"].index(_card_colour(card)))


def _start_card(state: HalunkenState, seat: int) -> str:
    """The card ``seat`` took when placing its captain (every tavern has cards at set-up)."""
    card = state["start_cards"][seat]
    assert card is not None, f"seat {seat} has no start card yet"
    return card


def score_collection(cards: list[str]) -> dict[str, Any]:
    """Total value, with the colour the player holds most of doubled (best colour on a tie)."""
    by_colour: dict[str, list[int]] = {}
    for card in cards:
        by_colour.setdefault(_card_colour(card), []).append(_card_value(card))
    total = sum(_card_value(c) for c in cards)
    doubled = None
    bonus = 0
    if by_colour:
        most = max(len(v) for v in by_colour.values())
        for colour in reversed(_data()["colour_rank"]):  # yellow first: deterministic on equal sums
            values = by_colour.get(colour, [])
            if len(values) == most and sum(values) > bonus:
                doubled, bonus = colour, sum(values)
    return {
        "score": total + bonus,
        "face_value": total,
        "doubled_colour": doubled,
        "doubled_bonus": bonus,
        "cards_by_colour": {c: len(v) for c, v in sorted(by_colour.items())},
    }


_CARD = {"type": "string", "pattern": "^(red|purple|green|yellow)-[0-9]+$"}
_SPACE = {"type": "integer", "minimum": 0, "maximum": 13}
_MOVEMENT = {"type": ["integer", "string"], "enum": [1, 2, 3, 4, 5, 6, 7, "rum"]}


class HalunkenUndSpelunken(Game[HalunkenState]):
    id = GAME_ID
    title = "Halunken und Spelunken"
    min_players = 2
    max_players = 4
    options = (
        Option(
            "variant",
            "enum",
            STANDARD,
            "introductory (no Black Jack, 3-4 players), standard (with Black Jack, 3-4 players) "
            "or two-player (the rulebook's variant for 2 players).",
            choices=(INTRO, STANDARD, TWO),
            default_for=lambda n: TWO if n == 2 else STANDARD,
        ),
    )
    action_types = (
        ActionType(
            "place_captain",
            "Set-up: place your captain on a free space and take the top card of its tavern.",
            {"space": _SPACE},
        ),
        ActionType(
            "place_black_jack",
            "Set-up (holder of the lowest start card): place Black Jack on a free space.",
            {"space": _SPACE},
        ),
        ActionType(
            "bid",
            "Auction: offer one of your pirate cards for Black Jack (takes back your previous offer).",
            {"card": _CARD},
        ),
        ActionType("pass", "Auction: pass (you are out of this auction).", {}),
        ActionType("play", "Commit one movement card from your hand, face down.", {"card": _MOVEMENT}),
        ActionType(
            "play_black_jack",
            "Two-player variant, Black Jack's controller: commit a movement card from Black Jack's deck, face down.",
            {"card": _MOVEMENT},
        ),
        ActionType(
            "rum",
            "Declare the movement value of your Rum card (1-7, not revealed by another piece this round).",
            {"value": {"type": "integer", "minimum": 1, "maximum": 7}},
        ),
        ActionType("steal", "Take this card from the captain you robbed.", {"card": _CARD}),
        ActionType(
            "decline",
            "Two-player variant, Black Jack's controller: leave the opponent's cards alone (Black Jack "
            "'può rubare': the theft is optional).",
        ),
        ActionType(
            "move_black_jack",
            "Landed on Black Jack: move it to this free space beside it (you choose when both are free).",
            {"space": _SPACE},
        ),
        ActionType(
            "give", "Robbed by the unowned Black Jack: choose the card you hand to the harbour.", {"card": _CARD}
        ),
        ActionType("take_harbour", "Landed on Black Jack: take this card from the harbour.", {"card": _CARD}),
    )

    # -- options -------------------------------------------------------------------------

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        variant = options["variant"]
        if players == 2 and variant != TWO:
            raise InvalidOptions(
                "invalid_option",
                f"The {variant} game is for 3 or 4 players; with 2 players the rulebook plays the two-player variant.",
            )
        if players > 2 and variant == TWO:
            raise InvalidOptions("invalid_option", "The two-player variant is for exactly 2 players.")

    # -- set-up --------------------------------------------------------------------------

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> HalunkenState:
        data = _data()
        variant = options["variant"]
        deck = [f"{colour}-{v}" for colour, values in data["pirates"].items() for v in values]
        rng.shuffle(deck)
        per = data["cards_per_tavern"]
        taverns = [deck[i * per : (i + 1) * per] for i in range(data["spaces"])]
        bj_deck: list[Movement] = []
        if variant == STANDARD:
            bj_deck = list(data["black_jack_movement"])
        elif variant == TWO:
            bj_deck = list(data["two_player_black_jack_movement"])
        rng.shuffle(bj_deck)
        return {
            "players": players,
            "variant": variant,
            "round": 0,
            "phase": "place_captain",
            "placer": 0,
            "taverns_open": False,
            "taverns": taverns,
            "captains": [None] * players,
            "black_jack": None,
            "collections": [[] for _ in range(players)],
            "start_cards": [None] * players,
            "hands": [list(data["captain_movement"]) for _ in range(players)],
            "played": [[] for _ in range(players)],
            "commits": [None] * players,
            "black_jack_commit": None,
            "black_jack_deck": bj_deck,
            "black_jack_used": [],
            "harbour": [],
            "controller": None,
            "last_controller": None,
            "auction": None,
            "reveal": None,
            "queue": [],
            "pending": None,
        }

    def upgrade_state(self, stored: State) -> HalunkenState:
        """States stored with the first, terse keys read with today's (:mod:`.state`)."""
        return upgrade_state(stored)

    # -- whose turn ----------------------------------------------------------------------

    def to_act(self, state: HalunkenState) -> list[int]:
        phase = state["phase"]
        if phase == "place_captain" and state["placer"] is not None:
            return [state["placer"]]
        if phase == "place_black_jack":
            return [self._lowest_start(state)]
        if phase == "auction":
            return [current_auction(state)["turn"]]
        if phase == "choose":
            seats = [s for s in range(state["players"]) if state["commits"][s] is None]
            c = state["controller"]
            if state["variant"] == TWO and c is not None and state["black_jack_commit"] is None and c not in seats:
                seats = sorted(seats + [c])
            return seats
        if phase == "resolve" and state["pending"] is not None:
            return [state["pending"]["seat"]]
        return []

    def legal_actions(self, state: HalunkenState, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "place_captain":
            return [{"type": "place_captain", "space": s} for s in self._free_spaces(state)]
        if phase == "place_black_jack":
            return [{"type": "place_black_jack", "space": s} for s in self._free_spaces(state)]
        if phase == "auction":
            return [{"type": "pass"}] + [{"type": "bid", "card": c} for c in self._biddable(state, seat)]
        if phase == "choose":
            out: list[Action] = []
            if state["commits"][seat] is None:
                out += [{"type": "play", "card": c} for c in state["hands"][seat]]
            if state["variant"] == TWO and seat == state["controller"] and state["black_jack_commit"] is None:
                out += [{"type": "play_black_jack", "card": c} for c in self._sorted_moves(state["black_jack_deck"])]
            return out
        return self._pending_actions(state)

    def _pending_actions(self, state: HalunkenState) -> list[Action]:
        p = pending_decision(state)
        if p["kind"] == "rum":
            return [{"type": "rum", "value": v} for v in range(1, 8) if v not in p["forbidden"]]
        if p["kind"] == "steal":
            thefts: list[Action] = [{"type": "steal", "card": c} for c in state["collections"][p["victim"]]]
            return thefts + [{"type": "decline"}] if p.get("optional") and thefts else thefts
        if p["kind"] == "black_jack_step":
            return [{"type": "move_black_jack", "space": s} for s in p["spaces"]]
        if p["kind"] == "give":
            return [{"type": "give", "card": c} for c in state["collections"][p["seat"]]]
        # a harbour card, or (two-player) a card robbed from the controller instead
        out: list[Action] = [{"type": "take_harbour", "card": c} for c in state["harbour"]]
        if p["victim"] is not None:
            out += [{"type": "steal", "card": c} for c in state["collections"][p["victim"]]]
        return out

    # -- helpers -------------------------------------------------------------------------

    @staticmethod
    def _sorted_moves(cards: list[Movement]) -> list[Movement]:
        return sorted(cards, key=lambda c: 99 if c == "rum" else c)

    def _free_spaces(self, state: HalunkenState, ignore: int | None = None) -> list[int]:
        taken = {p for i, p in enumerate(state["captains"]) if p is not None and i != ignore}
        if state["black_jack"] is not None:
            taken.add(state["black_jack"])
        return [s for s in range(_data()["spaces"]) if s not in taken]

    def _next_free(self, state: HalunkenState, start: int, ignore: int | None = None, bj_counts: bool = True) -> int:
        """The first free space clockwise after ``start``."""
        n = _data()["spaces"]
        taken = {p for i, p in enumerate(state["captains"]) if p is not None and i != ignore}
        if bj_counts and state["black_jack"] is not None:
            taken.add(state["black_jack"])
        for k in range(1, n + 1):
            s = (start + k) % n
            if s not in taken:
                return s
        raise AssertionError("no free space")  # pragma: no cover - at most 5 pieces on 14 spaces

    def _captain_at(self, state: HalunkenState, space: int, ignore: int | None = None) -> int | None:
        for i, p in enumerate(state["captains"]):
            if p == space and i != ignore:
                return i
        return None

    def _lowest_start(self, state: HalunkenState) -> int:
        return min(range(state["players"]), key=lambda s: _card_key(_start_card(state, s)))

    def _highest_start(self, state: HalunkenState) -> int:
        return max(range(state["players"]), key=lambda s: _card_key(_start_card(state, s)))

    def _biddable(self, state: HalunkenState, seat: int) -> list[str]:
        high = current_auction(state)["high_card"]
        floor = -1 if high is None else _card_value(high)
        two = state["variant"] == TWO
        cards = [c for c in state["collections"][seat] if _card_value(c) > floor or (two and _card_value(c) == floor)]
        return sorted(cards, key=_card_key)

    @staticmethod
    def _take_tavern(state: HalunkenState, seat: int, space: int, events: list[Event]) -> None:
        stack = state["taverns"][space]
        if not stack:
            events.append({"type": "tavern_empty", "seat": seat, "space": space})
            return
        card = stack.pop(0)
        state["collections"][seat].append(card)
        events.append(
            {
                "type": "took_tavern_card",
                "seat": seat,
                "space": space,
                "card": card,
                "next_top": stack[0] if stack and state["taverns_open"] else None,
            }
        )

    # -- perform -------------------------------------------------------------------------

    def perform(self, state: HalunkenState, seat: int, action: Action, rng: Rng) -> tuple[HalunkenState, list[Event]]:
        events: list[Event] = []
        kind = action["type"]
        if kind == "place_captain":
            self._place_captain(state, seat, action["space"], events)
        elif kind == "place_black_jack":
            state["black_jack"] = action["space"]
            events.append({"type": "black_jack_placed", "seat": seat, "space": action["space"]})
            self._start_round(state, events)
        elif kind in ("bid", "pass"):
            self._auction_step(state, seat, action, events)
        elif kind == "play":
            state["commits"][seat] = action["card"]
            events.append({"type": "committed", "seat": seat})
            self._maybe_reveal(state, events)
        elif kind == "play_black_jack":
            state["black_jack_commit"] = action["card"]
            events.append({"type": "committed_black_jack", "seat": seat})
            self._maybe_reveal(state, events)
        else:
            self._resolve_pending(state, seat, action, events)
        if state["phase"] == "resolve":
            self._run(state, events, rng)
        return state, events

    def _place_captain(self, state: HalunkenState, seat: int, space: int, events: list[Event]) -> None:
        state["captains"][seat] = space
        events.append({"type": "captain_placed", "seat": seat, "space": space})
        stack = state["taverns"][space]
        if stack:
            card = stack.pop(0)
            state["collections"][seat].append(card)
            state["start_cards"][seat] = card
            events.append({"type": "start_card", "seat": seat, "card": card})
        if seat + 1 < state["players"]:
            state["placer"] = seat + 1
            return
        state["placer"] = None
        state["taverns_open"] = True
        events.append({"type": "taverns_revealed", "tops": [t[0] if t else None for t in state["taverns"]]})
        if state["variant"] == INTRO:
            self._start_round(state, events)
        else:
            state["phase"] = "place_black_jack"

    def _start_round(self, state: HalunkenState, events: list[Event]) -> None:
        state["round"] += 1
        state["controller"] = None
        state["commits"] = [None] * state["players"]
        state["black_jack_commit"] = None
        state["reveal"] = None
        events.append({"type": "round_started", "round": state["round"]})
        if state["variant"] == INTRO:
            state["phase"] = "choose"
            return
        starter = state["last_controller"]
        if starter is None:
            starter = self._highest_start(state)
        state["phase"] = "auction"
        state["auction"] = {
            "starter": starter,
            "turn": starter,
            "high_card": None,
            "high_seat": None,
            "out": [False] * state["players"],
        }

    def _auction_step(self, state: HalunkenState, seat: int, action: Action, events: list[Event]) -> None:
        a = current_auction(state)
        n = state["players"]
        if action["type"] == "bid":
            a["high_card"], a["high_seat"] = action["card"], seat
            events.append({"type": "bid", "seat": seat, "card": action["card"]})
        else:
            a["out"][seat] = True
            events.append({"type": "passed", "seat": seat})
        active = [s for s in range(n) if not a["out"][s]]
        over = (a["high_seat"] is None and not active) or (a["high_seat"] is not None and active == [a["high_seat"]])
        if not over:
            t = seat
            while True:
                t = (t + 1) % n
                if not a["out"][t]:
                    break
            a["turn"] = t
            return
        winner, card = a["high_seat"], a["high_card"]
        if winner is not None and card is not None:
            state["collections"][winner].remove(card)
            state["harbour"].append(card)
            state["controller"] = winner
            state["last_controller"] = winner
            events.append({"type": "auction_won", "seat": winner, "card": card})
        else:
            events.append({"type": "auction_no_bids"})
        state["phase"] = "choose"

    def _maybe_reveal(self, state: HalunkenState, events: list[Event]) -> None:
        if any(c is None for c in state["commits"]):
            return
        two = state["variant"] == TWO
        if two and state["controller"] is not None and state["black_jack_commit"] is None:
            return
        cards: dict[Piece, Movement] = {}
        for s, card in enumerate(state["commits"]):
            assert card is not None, "every seat has committed"
            state["hands"][s].remove(card)
            state["played"][s].append(card)
            cards[str(s)] = card
        if two:
            committed = state["black_jack_commit"]
            if committed is not None:  # the controller chose it
                bj_card = committed
                state["black_jack_deck"].remove(bj_card)
            else:
                bj_card = state["black_jack_deck"].pop(0)
            state["black_jack_used"].append(bj_card)
            cards[BJ] = bj_card
        state["commits"] = [None] * state["players"]
        state["black_jack_commit"] = None
        counts: dict[str, int] = {}
        for c in cards.values():
            counts[str(c)] = counts.get(str(c), 0) + 1
        cancelled = [k for k, c in cards.items() if counts[str(c)] > 1]
        values: dict[Piece, int | None] = {
            k: (c if isinstance(c, int) else None) for k, c in cards.items() if k not in cancelled
        }
        state["reveal"] = {"cards": cards, "cancelled": cancelled, "values": values}
        events.append({"type": "revealed", "cards": cards, "cancelled": cancelled})
        state["phase"] = "resolve"
        state["queue"] = [{"op": "order"}]
        rum = [k for k, c in cards.items() if c == "rum" and k not in cancelled]
        if rum:
            key = rum[0]
            forbidden = sorted({c for k, c in cards.items() if k != key and isinstance(c, int)})
            decider = state["controller"] if key == BJ else int(key)
            if decider is None:  # the unowned Black Jack drew the Rum: lowest value still free
                value = min(v for v in range(1, 8) if v not in forbidden)
                values[BJ] = value
                events.append({"type": "rum_value", "piece": BJ, "value": value})
            else:
                state["pending"] = {"kind": "rum", "seat": decider, "piece": key, "forbidden": forbidden}

    # -- the resolution queue --------------------------------------------------------------

    def _set_pending(self, state: HalunkenState, pending: Pending, events: list[Event]) -> None:
        """Ask for a decision, or resolve it at once when there is no choice."""
        state["pending"] = pending
        options = self._pending_actions(state)
        if not options:
            state["pending"] = None
        elif len(options) == 1:
            self._resolve_pending(state, pending["seat"], options[0], events)

    def _run(self, state: HalunkenState, events: list[Event], rng: Rng) -> None:
        while state["pending"] is None and state["phase"] == "resolve":
            if not state["queue"]:
                raise AssertionError("resolution queue ran dry")  # pragma: no cover
            op = state["queue"].pop(0)
            getattr(self, "_op_" + op["op"])(state, op, events)

    def _op_order(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        r = current_reveal(state)
        queue: list[Step] = []
        for key in r["cancelled"]:
            if key != BJ:
                queue.append({"op": "stay", "seat": int(key)})
        steps = {key: value for key, value in r["values"].items() if value is not None}  # every Rum has its value
        for key, value in sorted(steps.items(), key=lambda kv: kv[1]):
            queue.append({"op": "move", "piece": key, "steps": value})
        if state["variant"] == STANDARD:
            queue.append({"op": "black_jack_turn"})
        queue.append({"op": "end_round"})
        state["queue"] = queue

    def _op_stay(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        seat = op["seat"]
        space = captain_space(state, seat)
        events.append({"type": "stayed", "seat": seat, "space": space})
        self._take_tavern(state, seat, space, events)

    def _op_move(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        if op["piece"] == BJ:
            self._move_black_jack(state, op["steps"], events)
            return
        seat = int(op["piece"])
        n = _data()["spaces"]
        start = captain_space(state, seat)
        dest = (start + op["steps"]) % n
        state["captains"][seat] = dest
        events.append(
            {"type": "captain_moved", "seat": seat, "from_space": start, "to_space": dest, "steps": op["steps"]}
        )
        self._take_tavern(state, seat, dest, events)
        landing: list[Step] = []
        other = self._captain_at(state, dest, ignore=seat)
        if other is not None:
            landing += [{"op": "rob_landing", "seat": seat, "victim": other}, {"op": "push", "seat": other}]
        if state["black_jack"] == dest:  # alone, or still beside a captain it could not leave
            landing += [{"op": "land_on_black_jack", "seat": seat}, {"op": "push_black_jack", "seat": seat}]
        state["queue"][0:0] = landing

    def _op_rob_landing(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        thief, victim = op["seat"], op["victim"]
        cols = state["collections"]
        if len(cols[thief]) <= len(cols[victim]) and cols[victim]:
            self._set_pending(state, {"kind": "steal", "seat": thief, "victim": victim}, events)
        else:
            events.append(
                {
                    "type": "no_robbery",
                    "seat": thief,
                    "victim": victim,
                    "reason": "the newcomer holds more pirate cards" if cols[victim] else "nothing to take",
                }
            )

    def _op_push(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        seat = op["seat"]
        start = captain_space(state, seat)
        dest = self._next_free(state, start, ignore=seat)
        state["captains"][seat] = dest
        events.append({"type": "captain_pushed", "seat": seat, "from_space": start, "to_space": dest})

    def _op_land_on_black_jack(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        seat = op["seat"]
        c = state["controller"]
        cols = state["collections"]
        robs = state["variant"] == TWO and c is not None and c != seat and cols[c] and len(cols[seat]) <= len(cols[c])
        self._set_pending(state, {"kind": "harbour", "seat": seat, "victim": c if robs else None}, events)

    def _op_push_black_jack(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        """ "Infine, Black Jack viene spostato in uno spazio libero adiacente": one space either
        way, the captain who landed choosing when both are free; with neither free it stays."""
        start = black_jack_space(state)
        n = _data()["spaces"]
        beside = sorted({(start - 1) % n, (start + 1) % n})
        free = [s for s in beside if self._captain_at(state, s) is None]
        if not free:
            events.append({"type": "black_jack_stays", "space": start, "reason": "no free space beside it"})
            return
        self._set_pending(state, {"kind": "black_jack_step", "seat": op["seat"], "spaces": free}, events)

    def _op_black_jack_turn(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        card = state["black_jack_deck"].pop(0)
        assert isinstance(card, int), "Black Jack's deck of the standard game holds no Rum"
        state["black_jack_used"].append(card)
        events.append({"type": "black_jack_card", "card": card, "controller": state["controller"]})
        self._move_black_jack(state, card, events)

    def _move_black_jack(self, state: HalunkenState, steps: int, events: list[Event]) -> None:
        """Black Jack's move of ``steps`` spaces clockwise, on to the first free space when it
        ends on a captain, then its thefts: from every captain it overtakes (standard game),
        or from the captain on the space where its move ended (two-player variant)."""
        n = _data()["spaces"]
        start = black_jack_space(state)
        overtaken: list[int] = []
        space = start
        for k in range(steps):
            space = (space + 1) % n
            who = self._captain_at(state, space)
            if who is not None and k < steps - 1:
                overtaken.append(who)
        ended_on = who = self._captain_at(state, space)
        while who is not None:  # ends on a captain: on to the first free space
            overtaken.append(who)
            space = (space + 1) % n
            who = self._captain_at(state, space)
        state["black_jack"] = space
        c = state["controller"]
        events.append(
            {
                "type": "black_jack_moved",
                "from_space": start,
                "to_space": space,
                "steps": steps,
                "overtaken": overtaken,
                "ended_on": ended_on,
                "controller": c,
            }
        )
        victims: list[int]
        if state["variant"] == TWO:
            victims = [] if ended_on is None or ended_on == c else [ended_on]
        else:
            victims = [v for v in overtaken if v != c]
        state["queue"][0:0] = [{"op": "rob_black_jack", "victim": v} for v in victims]

    def _op_rob_black_jack(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        victim = op["victim"]
        cols = state["collections"]
        c = state["controller"]
        if not cols[victim]:
            events.append({"type": "no_robbery", "seat": c, "victim": victim, "reason": "nothing to take"})
            return
        if c is None:
            self._set_pending(state, {"kind": "give", "seat": victim}, events)
        elif len(cols[c]) <= len(cols[victim]):
            pending: StealPending = {"kind": "steal", "seat": c, "victim": victim}
            if state["variant"] == TWO:  # "egli può rubare una carta all'avversario"
                pending["optional"] = True
            self._set_pending(state, pending, events)
        else:
            events.append(
                {
                    "type": "no_robbery",
                    "seat": c,
                    "victim": victim,
                    "reason": "the victim holds fewer pirate cards than Black Jack's controller",
                }
            )

    def _op_end_round(self, state: HalunkenState, op: Step, events: list[Event]) -> None:
        state["reveal"] = None
        if state["round"] >= _data()["rounds"]:
            state["phase"] = "over"
            state["controller"] = None
            events.append({"type": "game_over", "outcome": self.outcome(state)})
            return
        self._start_round(state, events)

    def _resolve_pending(self, state: HalunkenState, seat: int, action: Action, events: list[Event]) -> None:
        p = pending_decision(state)
        state["pending"] = None
        kind = action["type"]
        cols = state["collections"]
        if kind == "rum" and p["kind"] == "rum":
            current_reveal(state)["values"][p["piece"]] = action["value"]
            events.append(
                {
                    "type": "rum_value",
                    "piece": p["piece"] if p["piece"] == BJ else int(p["piece"]),
                    "seat": seat,
                    "value": action["value"],
                }
            )
        elif kind == "steal" and p["kind"] in ("steal", "harbour"):
            victim = p["victim"]
            assert victim is not None, "a theft has a victim"
            cols[victim].remove(action["card"])
            cols[seat].append(action["card"])
            events.append({"type": "stole", "seat": seat, "victim": victim, "card": action["card"]})
        elif kind == "decline" and p["kind"] == "steal":
            events.append({"type": "theft_declined", "seat": seat, "victim": p["victim"]})
        elif kind == "move_black_jack":
            events.append(
                {
                    "type": "black_jack_pushed",
                    "seat": seat,
                    "from_space": state["black_jack"],
                    "to_space": action["space"],
                }
            )
            state["black_jack"] = action["space"]
        elif kind == "give":
            cols[seat].remove(action["card"])
            state["harbour"].append(action["card"])
            events.append({"type": "robbed_by_black_jack", "seat": seat, "card": action["card"]})
        elif kind == "take_harbour":
            state["harbour"].remove(action["card"])
            cols[seat].append(action["card"])
            events.append({"type": "took_harbour_card", "seat": seat, "card": action["card"]})

    # -- views, outcome, history -----------------------------------------------------------

    def view(self, state: HalunkenState, seat: int | None) -> View:
        open_ = state["taverns_open"]
        taverns = [
            {"space": i, "top": (t[0] if t and open_ else None), "cards": len(t)}
            for i, t in enumerate(state["taverns"])
        ]
        n = state["players"]
        v: dict[str, Any] = {
            "variant": state["variant"],
            "players": n,
            "round": state["round"],
            "rounds": _data()["rounds"],
            "phase": state["phase"],
            "to_act": self.to_act(state),
            "captains": list(state["captains"]),
            "black_jack": state["black_jack"],
            "taverns": taverns,
            "collections": [list(c) for c in state["collections"]],
            "card_counts": [len(c) for c in state["collections"]],
            "start_cards": list(state["start_cards"]),
            "harbour": list(state["harbour"]),
            "played": [list(p) for p in state["played"]],
            "hand_sizes": [len(h) for h in state["hands"]],
            "committed": [c is not None for c in state["commits"]],
            "controller": state["controller"],
            "last_controller": state["last_controller"],
            "reveal": None
            if state["reveal"] is None
            else {
                "cards": dict(state["reveal"]["cards"]),
                "cancelled": list(state["reveal"]["cancelled"]),
                "values": dict(state["reveal"]["values"]),
            },
            "pending": None,
        }
        if state["variant"] != INTRO:
            bj: dict[str, Any] = {"cards": len(state["black_jack_deck"]), "used": list(state["black_jack_used"])}
            if state["variant"] == TWO:
                # the two-player deck's contents are public (its 8 cards are known and used ones are
                # revealed); a committed card stays in it until the reveal, so nothing leaks.
                bj["remaining"] = self._sorted_moves(state["black_jack_deck"])
                bj["committed"] = state["black_jack_commit"] is not None
            v["black_jack_deck"] = bj
        if state["auction"] is not None and state["phase"] == "auction":
            v["auction"] = dict(state["auction"], out=list(state["auction"]["out"]))
        if state["pending"] is not None:
            p = state["pending"]
            v["pending"] = {k: (list(x) if isinstance(x, list) else x) for k, x in p.items()}
        if seat is not None:
            v["seat"] = seat
            v["hand"] = self._sorted_moves(state["hands"][seat])
            v["my_commit"] = state["commits"][seat]
            if state["variant"] == TWO and seat == state["controller"]:
                v["my_black_jack_commit"] = state["black_jack_commit"]
        return v

    def outcome(self, state: HalunkenState) -> Outcome | None:
        if state["phase"] != "over":
            return None
        details = [score_collection(c) for c in state["collections"]]
        scores = [d["score"] for d in details]
        ranks = [1 + sum(1 for o in scores if o > s) for s in scores]
        best = max(scores)
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [i for i, s in enumerate(scores) if s == best],
            "detail": {"seats": details, "end_reason": "eight_rounds_played"},
        }

    def redact_action(self, action: Action, actor: int, viewer: int | None) -> Action:
        if action.get("type") in ("play", "play_black_jack") and viewer != actor:
            return {"type": action["type"], "card": None}
        return action

    # -- reasons ---------------------------------------------------------------------------

    def check(self, state: HalunkenState, seat: int, action: Action) -> None:
        super().check(state, seat, action)
        # Python's True == 1 and 1.0 == 1 must not sneak a boolean or float into the state
        if any(type(v) in (bool, float) for v in action.values()):
            raise IllegalAction("bad_action", "Card values and spaces are JSON integers or strings.")

    def explain(self, state: HalunkenState, seat: int, action: Action) -> IllegalAction:
        kind = action.get("type")
        phase = state["phase"]
        expected = {
            "place_captain": ("place_captain",),
            "place_black_jack": ("place_black_jack",),
            "auction": ("bid", "pass"),
            "choose": ("play", "play_black_jack"),
        }.get(phase)
        if expected is None and state["pending"] is not None:
            expected = {
                "rum": ("rum",),
                "steal": ("steal", "decline"),
                "give": ("give",),
                "harbour": ("take_harbour", "steal"),
                "black_jack_step": ("move_black_jack",),
            }[state["pending"]["kind"]]
        if expected is not None and kind not in expected:
            return IllegalAction("wrong_phase", f"Now ({phase}) the legal action types are: {', '.join(expected)}.")
        if kind in ("place_captain", "place_black_jack"):
            return IllegalAction(
                "space_occupied", "Pieces are placed on a free space in front of a tavern (0-13) only."
            )
        if kind == "bid":
            card = action.get("card")
            if card not in state["collections"][seat]:
                return IllegalAction("card_not_owned", "You can bid only one of your own pirate cards.")
            if state["variant"] == TWO:
                return IllegalAction(
                    "bid_too_low", "In the two-player variant a bid must be at least as high as the current one."
                )
            return IllegalAction("bid_too_low", "A raise must be a card of higher value than the current bid.")
        if kind == "play":
            if state["commits"][seat] is not None:
                return IllegalAction(
                    "already_committed", "You have already committed your movement card for this round."
                )
            return IllegalAction("card_not_in_hand", "You can play only a movement card still in your hand.")
        if kind == "play_black_jack":
            if state["variant"] != TWO or seat != state["controller"]:
                return IllegalAction(
                    "not_controller", "Only Black Jack's controller in the two-player variant chooses its card."
                )
            if state["black_jack_commit"] is not None:
                return IllegalAction("already_committed", "Black Jack's card is already committed this round.")
            return IllegalAction("card_not_in_deck", "That card is no longer in Black Jack's deck.")
        if kind == "rum":
            return IllegalAction(
                "rum_value_taken", "Rum must take a value from 1 to 7 that no other piece revealed this round."
            )
        if kind in ("steal", "give", "take_harbour"):
            return IllegalAction("card_not_available", "That card is not among the cards you may take or give now.")
        if kind == "decline":
            return IllegalAction(
                "theft_not_optional", "Only Black Jack's controller in the two-player variant may leave a theft."
            )
        if kind == "move_black_jack":
            return IllegalAction(
                "space_not_beside_black_jack", "Black Jack moves to a free space directly beside it, never farther."
            )
        return super().explain(state, seat, action)
