"""Viaggio al centro della terra (Rüdiger Dorn, Kosmos 2008): the rules as a referee engine.

The match is a queue of *tasks* in ``state["tasks"]``. The head task is either a decision (the
seats owing it are ``to_act``) or an automatic step (end of turn, drawing event cards, turning
a sea adventure, the water check, the lava flow) that :meth:`Viaggio._run` resolves at once.
Every seat a decision concerns is asked, with a way to decline, even when it cannot pay: who
is asked must never tell what a hidden hand holds. Only what public facts settle (a loss of a
seat without fossils, the rest of a loss with one choice left) is resolved without asking.
The data lives in :mod:`.data`, the ways to pay in :mod:`.payments`, the grids in :mod:`.board`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from service.engine import ActionType, Game, IllegalAction, Outcome, Rng, State
from service.games.viaggio.board import BLOCKING, Board
from service.games.viaggio.data import (
    ADVENTURES,
    BISCUIT,
    BOARDS,
    BONUSES,
    CARDS,
    COLOURS,
    EQUIP,
    EVENTS,
    FLEX,
    FLEX_COPIES,
    FOSSILS,
    GAME_ID,
    LAVA,
    LIMIT,
    LIQUID,
    LUCK,
    MAX_CARDS,
    MIX,
    MOVE_EQUIP,
    PER_TOKEN,
    SCORING,
    fossil_points,
)
from service.games.viaggio.payments import canonical, discovery_payments, explorer_payments

DRAW_SOURCES = ["explorer_deck", "equipment_deck", *[f"display:{t}" for t in EQUIP]]
CARD_NAMES = [*COLOURS, *EQUIP]

_S = {"type": "string"}
_COLOUR = {"enum": list(COLOURS)}
_MOVE_EQ = {"enum": list(MOVE_EQUIP)}
_FOSSIL = {"enum": list(FOSSILS)}
_EQUIP = {"enum": list(EQUIP)}
_COLOUR_LIST = {"type": "array", "items": _COLOUR, "maxItems": 3}
_PAY_LIST = {"type": "array", "items": _COLOUR, "minItems": 1, "maxItems": MAX_CARDS}

ACTION_TYPES = (
    ActionType(
        "draw", "Draw one card (the first draw commits the turn to 'draw 3 cards').", {"source": {"enum": DRAW_SOURCES}}
    ),
    ActionType("discard", "Discard one card of the hand that is over its limit.", {"card": {"enum": CARD_NAMES}}),
    ActionType(
        "choose",
        "Start a move: phase 1 the explorer of this colour, phase 2 the raft with cards of this colour.",
        {"colour": _COLOUR},
    ),
    ActionType("step", "Move the pending explorer/raft one space (to a cell id 'row,col' or 'end').", {"to": _S}),
    ActionType("play_equipment", "Play an equipment card from the hand during the move.", {"card": _MOVE_EQ}),
    ActionType(
        "play_flexible",
        "Play the kept event 'Uso flessibile' as this equipment card: in a move as a movement "
        "card, in the lava flow as the revealed equipment type.",
        {"as": _EQUIP},
    ),
    ActionType("play_mix", "Play the kept event 'Miscela di colori': explorer cards of any colour pay this move.", {}),
    ActionType("finish", "End the move on the current space and pay its cost in cards of the move's colour.", {}),
    ActionType(
        "finish_mixed",
        "End the move after 'Miscela di colori' and pay its cost with these explorer cards (any order).",
        {"colours": _PAY_LIST},
    ),
    ActionType(
        "discover",
        "Make the discovery: 'cards' are the equipment cards paid from the hand (any order), "
        "'flexible' how many kept 'Uso flessibile' cards stand in for missing ones, 'lamp' adds the mover's "
        "Ruhmkorff lamp (paid by a lamp card in 'cards' or an 'Uso flessibile').",
        {
            "cards": {"type": "array", "items": _EQUIP, "maxItems": 4},
            "flexible": {"type": "integer", "minimum": 0, "maximum": FLEX_COPIES},
            "lamp": {"type": "boolean"},
        },
    ),
    ActionType("pass_discovery", "Do not make the discovery offered.", {}),
    ActionType(
        "lamp_return",
        "Ruhmkorff lamp: put one of the fossils just drawn on the bottom of the deck.",
        {"fossil": _FOSSIL},
    ),
    ActionType(
        "return_fossil",
        "'Possibilita favorevole': put one of your fossils on the bottom of the deck.",
        {"fossil": _FOSSIL},
    ),
    ActionType("keep_fossils", "'Possibilita favorevole': stop returning and draw as many fossils as returned.", {}),
    ActionType(
        "accept_adventure",
        "Pay the explorer cards of the sea adventure (colours, any order) and take its reward.",
        {"colours": _COLOUR_LIST},
    ),
    ActionType("decline_adventure", "Let the sea adventure pass to the next player.", {}),
    ActionType(
        "protect",
        "Discard these explorer cards (any order) to protect yourself from the ball lightning.",
        {"colours": _COLOUR_LIST},
    ),
    ActionType("take_strike", "Let the ball lightning strike you (you lose one fossil).", {}),
    ActionType("lose_fossil", "Lose one fossil card of this type.", {"fossil": _FOSSIL}),
    ActionType("use_luck", "Discard the kept event 'Colpo di fortuna' instead of losing 1 or 2 fossils.", {}),
    ActionType("discard_equipment", "Lava flow: discard the revealed equipment type instead of losing fossils.", {}),
    ActionType("pass", "Let the turn go when no card is left to draw (whether or not a move is possible).", {}),
)


def _count(d: dict[str, int]) -> int:
    return sum(d.values())


def _out_of_game(state: dict[str, Any]) -> dict[str, Any]:
    """The cards that have left the game, all of them shown when they left: fossils lost,
    event cards resolved or played, sea adventures turned and not kept as sightings. What
    remains of each deck is then public as a mix, though not in its order."""
    tasks = state["tasks"]
    fossils = Counter(CARDS["fossils"])
    fossils -= Counter(state["decks"]["fossil"])
    for collection in state["fossils"]:
        fossils -= Counter(collection)
    for task in tasks:
        if task["kind"] == "lamp":
            fossils -= Counter(task["drawn"])
    events = Counter({e["id"]: e["count"] for e in CARDS["events"]}) - Counter(state["decks"]["event"])
    for kept in state["kept"]:
        events -= Counter(kept)
    turned = {t["card"] for t in tasks if t["kind"] in ("offer", "lightning")}
    held = set(state["decks"]["adventure"]) | turned | {s for seen in state["sightings"] for s in seen}
    return {
        "fossils": {f: fossils[f] for f in FOSSILS},
        "events": {e: events[e] for e in EVENTS},
        "adventures": [a for a in ADVENTURES if a not in held],
    }


class Viaggio(Game[State]):
    id = GAME_ID
    title = "Viaggio al centro della terra"
    min_players = 2
    max_players = 4
    options = ()
    action_types = ACTION_TYPES

    # ------------------------------------------------------------------ set-up

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        explorer = [c for c in COLOURS for _ in range(CARDS["explorer_per_colour"])]
        equipment = [t for t in EQUIP for _ in range(CARDS["equipment_per_type"])]
        fossils = [f for f, n in CARDS["fossils"].items() for _ in range(n)]
        events = [e["id"] for e in CARDS["events"] for _ in range(e["count"])]
        adventures = [a["id"] for a in CARDS["adventures"]]
        for deck in (explorer, equipment, fossils, events, adventures):
            rng.shuffle(deck)
        hands = []
        for _ in range(players):
            hand = {"explorer": {c: 0 for c in COLOURS}, "equipment": {t: 0 for t in EQUIP}}
            for _ in range(CARDS["hand"]["explorer"]):
                hand["explorer"][explorer.pop()] += 1
            for _ in range(CARDS["hand"]["equipment"]):
                hand["equipment"][equipment.pop()] += 1
            hands.append(hand)
        display = [equipment.pop() for _ in range(CARDS["display_size"])]
        water = CARDS["water"]
        return {
            "players": players,
            "phase": 1,
            "turn": 0,
            "over": False,
            "hands": hands,
            "display": display,
            "decks": {
                "explorer": explorer,
                "equipment": equipment,
                "fossil": fossils,
                "event": events,
                "adventure": adventures,
            },
            "discards": {"explorer": {c: 0 for c in COLOURS}, "equipment": {t: 0 for t in EQUIP}},
            "fossils": [{f: 0 for f in FOSSILS} for _ in range(players)],
            "water": [water["start_each"]] * players,
            "supply": water["total"] - water["start_each"] * players,
            "kept": [[] for _ in range(players)],
            "bonuses": [[] for _ in range(players)],
            "sightings": [[] for _ in range(players)],
            "explorers": {c: "start" for c in COLOURS},
            "raft": None,
            "lava": None,
            "extra_turn": False,
            "phase_end": False,
            "end_reason": None,
            "tasks": [{"kind": "turn", "seat": 0}],
            "fossil_bottom": [],
        }

    def upgrade_state(self, stored: State) -> State:
        """States stored before ``fossil_bottom`` kept no record of the returned fossils: read
        as if none were returned (their seats lose that memory, nothing else changes)."""
        return stored if "fossil_bottom" in stored else {**stored, "fossil_bottom": []}

    # ------------------------------------------------------------------ whose decision

    def to_act(self, state: dict[str, Any]) -> list[int]:
        if state["over"] or not state["tasks"]:
            return []
        head = state["tasks"][0]
        if head["kind"] == "loss":
            return sorted(int(s) for s, e in head["seats"].items() if e["left"] > 0)
        if head["kind"] in ("offer", "lightning"):
            return [head["order"][0]]
        return [head["seat"]]

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act(state):
            return []
        head = state["tasks"][0]
        kind = head["kind"]
        if kind == "turn":
            draws: list[dict[str, Any]] = [{"type": "draw", "source": s} for s in self._sources(state)]
            moves = [{"type": "choose", "colour": c} for c in COLOURS if self._can_choose(state, seat, c)]
            # With nothing to draw, passing is always allowed: whether a move was possible stays private.
            return [*draws, *moves] if draws else [*moves, {"type": "pass"}]
        if kind == "draw":
            return [{"type": "draw", "source": s} for s in self._sources(state)]
        if kind == "discard":
            hand = state["hands"][seat][head["hand"]]
            return [{"type": "discard", "card": k} for k, n in hand.items() if n > 0]
        if kind == "move":
            return self._move_actions(state, head)
        if kind == "discover":
            return [*self._discover_options(state, head), {"type": "pass_discovery"}]
        if kind == "lamp":
            return [{"type": "lamp_return", "fossil": f} for f in FOSSILS if f in head["drawn"]]
        if kind == "favorable":
            acts = []
            if head["returned"] < 3:
                acts = [{"type": "return_fossil", "fossil": f} for f, n in state["fossils"][seat].items() if n > 0]
            return [*acts, {"type": "keep_fossils"}]
        if kind == "offer":
            pays = explorer_payments(state["hands"][seat]["explorer"], ADVENTURES[head["card"]]["cost"])
            return [*({"type": "accept_adventure", "colours": p} for p in pays), {"type": "decline_adventure"}]
        if kind == "lightning":
            pays = explorer_payments(state["hands"][seat]["explorer"], ADVENTURES[head["card"]]["cost"])
            return [*({"type": "protect", "colours": p} for p in pays), {"type": "take_strike"}]
        if kind == "loss":
            return self._loss_actions(state, head, seat)
        return []  # pragma: no cover

    def _sources(self, state: dict[str, Any]) -> list[str]:
        decks, discards = state["decks"], state["discards"]
        out = []
        if decks["explorer"] or _count(discards["explorer"]):
            out.append("explorer_deck")
        if decks["equipment"] or _count(discards["equipment"]):
            out.append("equipment_deck")
        out += [f"display:{t}" for t in EQUIP if t in state["display"]]
        return out

    # ------------------------------------------------------------------ movement

    def _new_move(self, state: dict[str, Any], seat: int, colour: str) -> dict[str, Any]:
        pos = state["explorers"][colour] if state["phase"] == 1 else state["raft"]
        return {
            "kind": "move",
            "seat": seat,
            "colour": colour,
            "from": pos,
            "at": pos,
            "path": [],
            "normal": 0,
            "rocks": [],
            "played": {t: 0 for t in MOVE_EQUIP},
            "flex": {t: 0 for t in MOVE_EQUIP},
            "ropes_used": 0,
            "compasses_used": 0,
            "mix": False,
            "springs": 0,
            "events": 0,
        }

    @staticmethod
    def _cost(mv: dict[str, Any], pickaxe: bool) -> int:
        return mv["normal"] + (len(mv["rocks"]) if pickaxe else sum(mv["rocks"]))

    def _resources(self, state: dict[str, Any], mv: dict[str, Any]) -> list[tuple[int, int, int, bool, int]]:
        """Every way the cards still held could serve the move, as ``(budget left, ropes,
        compasses, pickaxe, wild)``: hand equipment, cards already played, and each kept
        *Uso flessibile* (``wild``), which may still become a pickaxe or biscuits (one variant
        each) or, during the search, a rope or a compass. Empty when no explorer card can pay."""
        seat = mv["seat"]
        hand = state["hands"][seat]
        eq = hand["equipment"]
        played = mv["played"]
        kept = state["kept"][seat]
        mix = mv["mix"] or MIX in kept
        real = _count(hand["explorer"]) if mix else hand["explorer"][mv["colour"]]
        if real < 1:
            return []
        wild = kept.count(FLEX)
        pick = played["pickaxe"] > 0 or eq["pickaxe"] > 0
        ropes = played["rope"] - mv["ropes_used"] + eq["rope"]
        comps = played["compass"] - mv["compasses_used"] + eq["compass"]
        biscuits = played["biscuits"] + eq["biscuits"]
        out = []
        for as_pickaxe in (0, 1) if wild and not pick else (0,):
            for as_biscuits in range(wild - as_pickaxe + 1):
                with_pick = pick or as_pickaxe == 1
                budget = min(MAX_CARDS, real) + BISCUIT * (biscuits + as_biscuits)
                out.append(
                    (budget - self._cost(mv, with_pick), ropes, comps, with_pick, wild - as_pickaxe - as_biscuits)
                )
        return out

    def _occupied(self, state: dict[str, Any], mv: dict[str, Any]) -> frozenset[str]:
        if state["phase"] != 1:
            return frozenset()
        return frozenset(p for c, p in state["explorers"].items() if c != mv["colour"] and p not in ("start", "end"))

    @staticmethod
    def _valid_end(board: Board, cid: str, start_depth: int, occupied: frozenset[str]) -> bool:
        if cid == "end":
            return True
        kind = board.kind(cid)
        return board.depth(cid) > start_depth and kind not in BLOCKING and kind != "start" and cid not in occupied

    def _completable(
        self,
        board: Board,
        cid: str,
        left: int,
        ropes: int,
        comps: int,
        pick: bool,
        wild: int,
        start_depth: int,
        occupied: frozenset[str],
    ) -> bool:
        """Whether a move standing on ``cid`` can still end legally with ``left`` explorer cards,
        these ropes and compasses, and ``wild`` cards that may stand for either."""
        memo: dict[tuple[str, int, int, int, int], bool] = {}

        def rec(cid: str, left: int, ropes: int, comps: int, wild: int) -> bool:
            if self._valid_end(board, cid, start_depth, occupied):
                return True
            key = (cid, left, min(ropes, 4), min(comps, 4), wild)
            if key in memo:
                return memo[key]
            memo[key] = False
            result = False
            for nb, diag, cost, roped in self._steps(
                board, cid, left, pick, comps > 0 or wild > 0, ropes > 0 or wild > 0
            ):
                r, c, w = ropes, comps, wild
                if roped:
                    r, w = (r - 1, w) if r > 0 else (r, w - 1)
                if diag:
                    c, w = (c - 1, w) if c > 0 else (c, w - 1)
                if w >= 0 and rec(nb, left - cost, r, c, w):
                    result = True
                    break
            memo[key] = result
            return result

        return rec(cid, left, ropes, comps, wild)

    def _move_open(self, state: dict[str, Any], mv: dict[str, Any]) -> bool:
        """Whether the move, where it stands, can still end legally with what is held."""
        board = BOARDS[state["phase"]]
        start_depth, occupied = board.depth(mv["from"]), self._occupied(state, mv)
        return any(
            left >= 0 and self._completable(board, mv["at"], left, ropes, comps, pick, wild, start_depth, occupied)
            for left, ropes, comps, pick, wild in self._resources(state, mv)
        )

    def _flexible_keeps_move_open(self, state: dict[str, Any], mv: dict[str, Any], as_card: str) -> bool:
        """Whether playing a kept *Uso flessibile* as ``as_card`` leaves the move able to end:
        a stand-in that could have been any card becomes one, which may close every way on."""
        kept = state["kept"][mv["seat"]]
        where = kept.index(FLEX)
        kept.pop(where)
        mv["played"][as_card] += 1
        try:
            return self._move_open(state, mv)
        finally:
            mv["played"][as_card] -= 1
            kept.insert(where, FLEX)

    def _can_choose(self, state: dict[str, Any], seat: int, colour: str) -> bool:
        mv = self._new_move(state, seat, colour)
        return mv["from"] != "end" and self._move_open(state, mv)

    def _step_targets(self, state: dict[str, Any], mv: dict[str, Any]) -> list[str]:
        """The spaces the pending move may step to now: payable with the rope or compass
        already played, and leaving a way to end the move legally."""
        board = BOARDS[state["phase"]]
        played = mv["played"]
        rope_ready = played["rope"] - mv["ropes_used"] > 0
        comp_ready = played["compass"] - mv["compasses_used"] > 0
        start_depth = board.depth(mv["from"])
        occupied = self._occupied(state, mv)
        out: list[str] = []
        for left, ropes, comps, pick, wild in self._resources(state, mv):
            for nb, diag, cost, roped in self._steps(board, mv["at"], left, pick, comp_ready, rope_ready):
                if nb not in out and self._completable(
                    board, nb, left - cost, ropes - roped, comps - diag, pick, wild, start_depth, occupied
                ):
                    out.append(nb)
        return out

    @staticmethod
    def _steps(
        board: Board, at: str, left: int, pick: bool, compass: bool, rope: bool
    ) -> Iterator[tuple[str, bool, int, bool]]:
        """The spaces one step from ``at`` that ``left`` explorer cards can pay for, as
        ``(space, diagonal, cost, needs_rope)``: diagonal steps only with a ``compass``, a
        chasm or whirlpool only with a ``rope``."""
        for diag, nbs in ((False, board.ortho[at]), (True, board.diag[at] if compass else ())):
            for nb in nbs:
                cost = board.entry_cost(nb, pick)
                roped = board.kind(nb) in BLOCKING
                if cost <= left and (rope or not roped):
                    yield nb, diag, cost, roped

    def _finish_need(self, state: dict[str, Any], mv: dict[str, Any]) -> int | None:
        """Explorer cards the move costs now, or None when it cannot end here now."""
        board = BOARDS[state["phase"]]
        if not mv["path"] or not self._valid_end(board, mv["at"], board.depth(mv["from"]), self._occupied(state, mv)):
            return None
        played = mv["played"]
        cost = self._cost(mv, played["pickaxe"] > 0)
        need = max(1, cost - BISCUIT * played["biscuits"])
        hand = state["hands"][mv["seat"]]["explorer"]
        have = _count(hand) if mv["mix"] else hand[mv["colour"]]
        return need if need <= min(MAX_CARDS, have) else None

    def _move_actions(self, state: dict[str, Any], mv: dict[str, Any]) -> list[dict[str, Any]]:
        seat = mv["seat"]
        acts: list[dict[str, Any]] = [{"type": "step", "to": nb} for nb in self._step_targets(state, mv)]
        eq = state["hands"][seat]["equipment"]
        kept = state["kept"][seat]
        for t in MOVE_EQUIP:
            if t == "pickaxe" and mv["played"]["pickaxe"]:
                continue
            if eq[t] > 0:
                acts.append({"type": "play_equipment", "card": t})
            if FLEX in kept and self._flexible_keeps_move_open(state, mv, t):
                acts.append({"type": "play_flexible", "as": t})
        if MIX in kept and not mv["mix"]:
            acts.append({"type": "play_mix"})
        need = self._finish_need(state, mv)
        if need is not None and mv["mix"]:
            acts += [
                {"type": "finish_mixed", "colours": p}
                for p in explorer_payments(state["hands"][seat]["explorer"], {"any": need})
            ]
        elif need is not None:
            acts.append({"type": "finish"})
        return acts

    # ------------------------------------------------------------------ discovery / payments

    def _discover_options(self, state: dict[str, Any], task: dict[str, Any]) -> list[dict[str, Any]]:
        seat = task["seat"]
        return discovery_payments(
            task["symbols"], state["hands"][seat]["equipment"], state["kept"][seat].count(FLEX), task["lamp"]
        )

    # ------------------------------------------------------------------ losses

    def _loss_options(self, state: dict[str, Any], task: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        """What may replace the whole loss, before any fossil of it is lost: *Colpo di
        fortuna* for a loss of 1 or 2, and in the lava the revealed equipment type or an
        *Uso flessibile* standing for it."""
        entry = task["seats"][str(seat)]
        if entry["left"] != entry["total"]:
            return []
        out: list[dict[str, Any]] = []
        kept = state["kept"][seat]
        if entry["total"] in (1, 2) and LUCK in kept:
            out.append({"type": "use_luck"})
        equip = task.get("equip")
        if equip is not None:
            if state["hands"][seat]["equipment"][equip] > 0:
                out.append({"type": "discard_equipment"})
            if FLEX in kept:
                out.append({"type": "play_flexible", "as": equip})
        return out

    def _loss_actions(self, state: dict[str, Any], task: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        acts: list[dict[str, Any]] = [
            {"type": "lose_fossil", "fossil": f} for f, n in state["fossils"][seat].items() if n > 0
        ]
        return acts + self._loss_options(state, task, seat)

    @staticmethod
    def _settle_losses(state: dict[str, Any], task: dict[str, Any], events: list[dict[str, Any]]) -> None:
        """Drop the seats that owe nothing more: their loss is paid, or they hold no fossil.
        Once a seat has lost one fossil of this loss, the rest is settled for it when only one
        choice remains (one kind left, or no more fossils than owed). Before that every seat
        decides, whatever it holds, so that who is asked never tells what a hand contains."""
        for key in list(task["seats"]):
            entry = task["seats"][key]
            seat = int(key)
            fossils = state["fossils"][seat]
            kinds = [f for f, n in fossils.items() if n > 0]
            started = entry["left"] != entry["total"]
            if entry["left"] > 0 and kinds and started and (len(kinds) == 1 or _count(fossils) <= entry["left"]):
                lost = []
                for f in kinds:
                    k = min(fossils[f], entry["left"])
                    fossils[f] -= k
                    entry["left"] -= k
                    lost += [f] * k
                events.append({"type": "fossils_lost", "seat": seat, "fossils": lost, "why": task["why"]})
            if entry["left"] <= 0 or not kinds:
                del task["seats"][key]

    def _push_loss(
        self,
        state: dict[str, Any],
        losses: dict[int, int],
        why: str,
        equip: str | None,
        events: list[dict[str, Any]],
        at: int = 0,
    ) -> None:
        seats = {str(s): {"left": k, "total": k} for s, k in sorted(losses.items()) if k > 0}
        if seats:
            state["tasks"].insert(at, {"kind": "loss", "why": why, "equip": equip, "seats": seats})

    # ------------------------------------------------------------------ perform

    def check(self, state: dict[str, Any], seat: int, action: dict[str, Any]) -> None:
        super().check(state, seat, canonical(action))

    def perform(
        self, state: dict[str, Any], seat: int, action: dict[str, Any], rng: Rng
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        action = canonical(action)
        events: list[dict[str, Any]] = []
        tasks = state["tasks"]
        head = tasks[0]
        kind = head["kind"]
        typ = action["type"]
        if kind == "turn":
            if typ == "draw":
                tasks[0:1] = [{"kind": "draw", "seat": seat, "left": 3}, {"kind": "end_turn", "seat": seat}]
                self._do_draw(state, tasks[0], action["source"], rng, events)
            elif typ == "choose":
                tasks[0] = self._new_move(state, seat, action["colour"])
                events.append({"type": "move_started", "seat": seat, "colour": action["colour"]})
            else:
                events.append({"type": "passed", "seat": seat})
                tasks[0] = {"kind": "end_turn", "seat": seat}
        elif kind == "draw":
            self._do_draw(state, head, action["source"], rng, events)
        elif kind == "discard":
            hand = state["hands"][seat][head["hand"]]
            hand[action["card"]] -= 1
            state["discards"][head["hand"]][action["card"]] += 1
            events.append({"type": "discarded", "seat": seat, "card": action["card"]})
            tasks.pop(0)
        elif kind == "move":
            self._perform_move(state, head, action, rng, events)
        elif kind == "discover":
            if typ == "discover":
                self._do_discover(state, head, action, events)
            else:
                events.append({"type": "discovery_passed", "seat": seat})
                tasks.pop(0)
        elif kind == "lamp":
            head["drawn"].remove(action["fossil"])
            self._return_fossil(state, seat, action["fossil"], lamp=True)
            head["back"] -= 1
            events.append({"type": "lamp_returned", "seat": seat, "fossil": action["fossil"], "to": [seat]})
            events.append({"type": "lamp_returned", "seat": seat})
            if head["back"] == 0:
                self._lamp_keep(state, head, events)
                tasks.pop(0)
        elif kind == "favorable":
            if typ == "return_fossil":
                state["fossils"][seat][action["fossil"]] -= 1
                self._return_fossil(state, seat, action["fossil"], lamp=False)
                head["returned"] += 1
                events.append({"type": "fossil_returned", "seat": seat, "fossil": action["fossil"]})
            if typ == "keep_fossils" or head["returned"] >= 3:
                drawn = self._draw_fossils(state, head["returned"])
                for f in drawn:
                    state["fossils"][seat][f] += 1
                events.append(
                    {"type": "fossils_drawn", "seat": seat, "fossils": drawn, "why": "possibilita_favorevole"}
                )
                tasks.pop(0)
        elif kind == "offer":
            card = ADVENTURES[head["card"]]
            if typ == "accept_adventure":
                self._pay_explorer(state, seat, action["colours"])
                if card["kind"] == "fossil":
                    drawn = self._draw_fossils(state, 1)
                    for f in drawn:
                        state["fossils"][seat][f] += 1
                    events.append({"type": "adventure_won", "seat": seat, "card": head["card"], "fossils": drawn})
                else:
                    state["sightings"][seat].append(head["card"])
                    events.append({"type": "adventure_won", "seat": seat, "card": head["card"]})
                tasks.pop(0)
            else:
                events.append({"type": "adventure_declined", "seat": seat, "card": head["card"]})
                head["order"].pop(0)
        elif kind == "lightning":
            if typ == "protect":
                self._pay_explorer(state, seat, action["colours"])
                events.append({"type": "protected", "seat": seat, "colours": action["colours"]})
                head["order"].pop(0)
            else:
                self._strike(state, seat, events)
        elif kind == "loss":
            entry = head["seats"][str(seat)]
            if typ == "lose_fossil":
                state["fossils"][seat][action["fossil"]] -= 1
                entry["left"] -= 1
                events.append({"type": "fossils_lost", "seat": seat, "fossils": [action["fossil"]], "why": head["why"]})
            elif typ == "use_luck":
                state["kept"][seat].remove(LUCK)
                entry["left"] = 0
                events.append({"type": "luck_used", "seat": seat})
            elif typ == "play_flexible":
                state["kept"][seat].remove(FLEX)
                entry["left"] = 0
                events.append({"type": "equipment_sacrificed", "seat": seat, "card": head["equip"], "flexible": True})
            else:
                state["hands"][seat]["equipment"][head["equip"]] -= 1
                state["discards"]["equipment"][head["equip"]] += 1
                entry["left"] = 0
                events.append({"type": "equipment_sacrificed", "seat": seat, "card": head["equip"]})
            if entry["left"] == 0:
                del head["seats"][str(seat)]
            if not head["seats"]:
                tasks.pop(0)
        self._run(state, rng, events)
        return state, events

    # ------------------------------------------------------------------ card helpers

    def _take(self, state: dict[str, Any], pile: str, rng: Rng, events: list[dict[str, Any]]) -> str | None:
        deck = state["decks"][pile]
        if not deck:
            discard = state["discards"][pile]
            deck.extend(k for k, n in discard.items() for _ in range(n))
            for k in discard:
                discard[k] = 0
            rng.shuffle(deck)
            if deck:
                events.append({"type": "reshuffled", "pile": pile})
        return deck.pop() if deck else None

    def _draw_fossils(self, state: dict[str, Any], n: int) -> list[str]:
        deck = state["decks"]["fossil"]
        drawn = [deck.pop() for _ in range(min(n, len(deck)))]
        del state["fossil_bottom"][len(deck) :]
        return drawn

    @staticmethod
    def _return_fossil(state: dict[str, Any], seat: int, fossil: str, *, lamp: bool) -> None:
        """Put ``fossil`` on the bottom of the deck. ``fossil_bottom`` keeps, bottom first, who
        put each returned card still in the deck there and how: *Possibilità favorevole* in
        sight of all, a lamp in sight of its drawer only; so each seat knows those cards."""
        state["decks"]["fossil"].insert(0, fossil)
        state["fossil_bottom"].insert(0, {"seat": seat, "lamp": lamp})

    def _pay_explorer(self, state: dict[str, Any], seat: int, colours: list[str]) -> None:
        for c in colours:
            state["hands"][seat]["explorer"][c] -= 1
            state["discards"]["explorer"][c] += 1

    def _do_draw(
        self, state: dict[str, Any], task: dict[str, Any], source: str, rng: Rng, events: list[dict[str, Any]]
    ) -> None:
        seat = task["seat"]
        hand = state["hands"][seat]
        card: str | None
        if source.startswith("display:"):
            card = source.split(":", 1)[1]
            state["display"][state["display"].index(card)] = None
            which = "equipment"
            events.append({"type": "drew", "seat": seat, "source": source, "card": card})
        else:
            which = source.split("_")[0]
            card = self._take(state, which, rng, events)
            events.append({"type": "drew", "seat": seat, "source": source})
            events.append({"type": "drew", "seat": seat, "source": source, "card": card, "to": [seat]})
        if card is not None:
            hand[which][card] += 1
        task["left"] -= 1
        if task["left"] <= 0:
            state["tasks"].pop(0)
        if _count(hand[which]) > LIMIT[which]:
            state["tasks"].insert(0, {"kind": "discard", "seat": seat, "hand": which})

    # ------------------------------------------------------------------ the move

    def _perform_move(
        self, state: dict[str, Any], mv: dict[str, Any], action: dict[str, Any], rng: Rng, events: list[dict[str, Any]]
    ) -> None:
        seat = mv["seat"]
        typ = action["type"]
        eq = state["hands"][seat]["equipment"]
        if typ == "play_equipment":
            eq[action["card"]] -= 1
            mv["played"][action["card"]] += 1
            events.append({"type": "equipment_played", "seat": seat, "card": action["card"]})
        elif typ == "play_flexible":
            state["kept"][seat].remove(FLEX)
            mv["played"][action["as"]] += 1
            mv["flex"][action["as"]] += 1
            events.append({"type": "equipment_played", "seat": seat, "card": action["as"], "flexible": True})
        elif typ == "play_mix":
            state["kept"][seat].remove(MIX)
            mv["mix"] = True
            events.append({"type": "mix_played", "seat": seat})
        elif typ == "step":
            board = BOARDS[state["phase"]]
            nb = action["to"]
            diag = nb not in board.ortho[mv["at"]]
            kind = board.kind(nb)
            if kind == "rocks":
                mv["rocks"].append(board.cells[nb]["rocks"])
            else:
                mv["normal"] += 1
            if kind in BLOCKING:
                mv["ropes_used"] += 1
            if diag:
                mv["compasses_used"] += 1
            first_visit = nb not in mv["path"]  # the starting space too, when the move comes back to it
            if kind == "spring" and first_visit:
                mv["springs"] += 1
            elif kind == "event" and first_visit:
                mv["events"] += 1
            mv["path"].append(nb)
            mv["at"] = nb
            events.append({"type": "stepped", "seat": seat, "colour": mv["colour"], "cell": nb, "diagonal": diag})
        elif typ == "finish_mixed":
            self._finish_move(state, mv, list(action["colours"]), events)
        else:
            need = self._finish_need(state, mv)
            assert need is not None
            self._finish_move(state, mv, [mv["colour"]] * need, events)

    def _finish_move(
        self, state: dict[str, Any], mv: dict[str, Any], paid: list[str], events: list[dict[str, Any]]
    ) -> None:
        seat, colour, at = mv["seat"], mv["colour"], mv["at"]
        self._pay_explorer(state, seat, paid)
        for t in MOVE_EQUIP:
            state["discards"]["equipment"][t] += mv["played"][t] - mv["flex"][t]
        phase = state["phase"]
        got_water = 0
        if phase == 1:
            state["explorers"][colour] = at
            got_water = min(mv["springs"], state["supply"])
            state["supply"] -= got_water
            state["water"][seat] += got_water
        else:
            state["raft"] = at
        events.append(
            {
                "type": "moved",
                "seat": seat,
                "colour": colour,
                "from": mv["from"],
                "dest": at,
                "path": mv["path"],
                "cards": paid,
                "water": got_water,
            }
        )
        board = BOARDS[phase]
        follow: list[dict[str, Any]] = []
        if at == "end":
            bonus = "foresta_di_funghi" if phase == 1 else "citta_in_rovina"
            state["bonuses"][seat].append(bonus)
            state["phase_end"] = True
            events.append({"type": "bonus", "seat": seat, "bonus": bonus})
        elif board.kind(at) == "discovery":
            symbols = board.cells[at]["symbols"]
            seats = [seat] if phase == 1 else [(seat + i) % state["players"] for i in range(state["players"])]
            follow += [{"kind": "discover", "seat": s, "symbols": symbols, "lamp": s == seat} for s in seats]
        if phase == 1 and mv["events"]:
            follow.append({"kind": "events", "seat": seat, "n": mv["events"]})
        if phase == 2:
            follow.append({"kind": "adventure", "seat": seat})
        follow.append({"kind": "end_turn", "seat": seat})
        state["tasks"][0:1] = follow

    def _do_discover(
        self, state: dict[str, Any], task: dict[str, Any], action: dict[str, Any], events: list[dict[str, Any]]
    ) -> None:
        seat = task["seat"]
        eq = state["hands"][seat]["equipment"]
        paid = list(action["cards"])
        for t in paid:
            eq[t] -= 1
            state["discards"]["equipment"][t] += 1
        for _ in range(action["flexible"]):
            state["kept"][seat].remove(FLEX)
        n = len(task["symbols"])
        drawn = self._draw_fossils(state, n + (2 if action["lamp"] else 0))
        state["tasks"].pop(0)
        if action["lamp"]:
            back = min(2, max(0, len(drawn) - n))
            events.append(
                {
                    "type": "discovered",
                    "seat": seat,
                    "paid": paid,
                    "flexible": action["flexible"],
                    "lamp": True,
                    "drawn": len(drawn),
                }
            )
            events.append({"type": "lamp_drawn", "seat": seat, "fossils": drawn, "to": [seat]})
            lamp = {"kind": "lamp", "seat": seat, "drawn": drawn, "back": back}
            if back:
                state["tasks"].insert(0, lamp)  # asked even when the drawn fossils are all alike
            else:
                self._lamp_keep(state, lamp, events)
        else:
            for f in drawn:
                state["fossils"][seat][f] += 1
            events.append(
                {
                    "type": "discovered",
                    "seat": seat,
                    "paid": paid,
                    "flexible": action["flexible"],
                    "lamp": False,
                    "fossils": drawn,
                }
            )

    def _lamp_keep(self, state: dict[str, Any], task: dict[str, Any], events: list[dict[str, Any]]) -> None:
        seat = task["seat"]
        for f in task["drawn"]:
            state["fossils"][seat][f] += 1
        events.append({"type": "fossils_kept", "seat": seat, "fossils": list(task["drawn"])})

    def _strike(self, state: dict[str, Any], seat: int, events: list[dict[str, Any]]) -> None:
        events.append({"type": "struck", "seat": seat})
        state["tasks"].pop(0)
        self._push_loss(state, {seat: 1}, "lightning", None, events)

    # ------------------------------------------------------------------ automatic steps

    def _run(self, state: dict[str, Any], rng: Rng, events: list[dict[str, Any]]) -> None:
        tasks = state["tasks"]
        while tasks and not state["over"]:
            head = tasks[0]
            kind = head["kind"]
            if kind == "end_turn":
                self._end_turn(state, head, rng, events)
            elif kind == "events":
                self._resolve_event(state, head, rng, events)
            elif kind == "adventure":
                tasks.pop(0)
                deck = state["decks"]["adventure"]
                if deck:
                    card = deck.pop()
                    events.append({"type": "adventure", "card": card, "seat": head["seat"]})
                    order = [(head["seat"] + i) % state["players"] for i in range(state["players"])]
                    sub = "lightning" if ADVENTURES[card]["kind"] == "lightning" else "offer"
                    tasks.insert(0, {"kind": sub, "card": card, "order": order})
            elif kind == "water_check":
                tasks.pop(0)
                self._water_check(state, events)
            elif kind == "lava":
                self._lava(state, rng, events)
            elif kind == "draw":
                if not self._sources(state):
                    tasks.pop(0)
                else:
                    break
            elif kind == "favorable":
                if _count(state["fossils"][head["seat"]]):
                    break
                tasks.pop(0)
            elif kind == "offer":
                if not head["order"]:
                    events.append({"type": "adventure_unclaimed", "card": head["card"]})
                    tasks.pop(0)
                    continue
                break
            elif kind == "lightning":
                if not head["order"]:
                    events.append({"type": "lightning_gone", "card": head["card"]})
                    tasks.pop(0)
                    continue
                break
            elif kind == "loss":
                self._settle_losses(state, head, events)
                if head["seats"]:
                    break
                tasks.pop(0)
            else:
                break

    def _end_turn(self, state: dict[str, Any], task: dict[str, Any], rng: Rng, events: list[dict[str, Any]]) -> None:
        tasks = state["tasks"]
        tasks.pop(0)
        display = state["display"]
        for i, card in enumerate(display):
            if card is None:
                display[i] = self._take(state, "equipment", rng, events)
        seat = task["seat"]
        nxt = seat if state["extra_turn"] else (seat + 1) % state["players"]
        if state["extra_turn"]:
            events.append({"type": "extra_turn", "seat": seat})
        state["extra_turn"] = False
        if state["phase_end"]:
            state["phase_end"] = False
            if state["phase"] == 1:
                state["phase"] = 2
                state["explorers"] = {c: "raft" for c in COLOURS}
                state["raft"] = "start"
                events.append({"type": "phase", "phase": 2})
                tasks[0:0] = [{"kind": "water_check"}, {"kind": "turn", "seat": nxt}]
                state["turn"] = nxt
                return
            state["phase"] = 3
            state["raft"] = None
            state["lava"] = -1
            events.append({"type": "phase", "phase": 3})
            tasks.insert(0, {"kind": "lava"})
            return
        state["turn"] = nxt
        tasks.insert(0, {"kind": "turn", "seat": nxt})

    def _resolve_event(
        self, state: dict[str, Any], task: dict[str, Any], rng: Rng, events: list[dict[str, Any]]
    ) -> None:
        tasks = state["tasks"]
        deck = state["decks"]["event"]
        seat = task["seat"]
        if task["n"] <= 0 or not deck:
            tasks.pop(0)
            return
        task["n"] -= 1
        card = deck.pop()
        if EVENTS[card]["kept"]:
            # Kept like the rest of a hand: the others see that a card was kept, not which.
            events.append({"type": "event_card", "seat": seat, "kept": True})
            events.append({"type": "event_card", "seat": seat, "kept": True, "card": card, "to": [seat]})
            state["kept"][seat].append(card)
            return
        events.append({"type": "event_card", "seat": seat, "kept": False, "card": card})
        if card == "oca_gertrude":
            drawn = self._draw_fossils(state, 1)
            for f in drawn:
                state["fossils"][seat][f] += 1
            events.append({"type": "fossils_drawn", "seat": seat, "fossils": drawn, "why": card})
        elif card == "possibilita_favorevole":
            tasks.insert(0, {"kind": "favorable", "seat": seat, "returned": 0})
        elif card == "fonte_energetica":
            state["extra_turn"] = True
        elif card == "rifornimenti_graditi":
            tasks.insert(0, {"kind": "draw", "seat": seat, "left": 3})

    def _water_check(self, state: dict[str, Any], events: list[dict[str, Any]]) -> None:
        losses: dict[int, int] = {}
        for seat in range(state["players"]):
            fossils = _count(state["fossils"][seat])
            need = -(-fossils // PER_TOKEN)
            water = state["water"][seat]
            liquid = state["kept"][seat].count(LIQUID)
            if water >= need:
                tokens, cards = need, 0
            else:
                cards = -(-(need - water) // 2)
                if cards <= liquid:
                    tokens = max(0, need - 2 * cards)
                else:
                    tokens, cards = water, liquid
            state["water"][seat] -= tokens
            for _ in range(cards):
                state["kept"][seat].remove(LIQUID)
            lose = max(0, fossils - PER_TOKEN * (tokens + 2 * cards))
            events.append(
                {
                    "type": "water_check",
                    "seat": seat,
                    "fossils": fossils,
                    "tokens_used": tokens,
                    "liquid_used": cards,
                    "to_lose": lose,
                }
            )
            if lose:
                losses[seat] = lose
        self._push_loss(state, losses, "water", None, events)

    def _lava(self, state: dict[str, Any], rng: Rng, events: list[dict[str, Any]]) -> None:
        pos = state["lava"]
        if pos == len(LAVA) - 1:
            self._game_over(state, "lava_last_space", events)
            return
        colour = self._take(state, "explorer", rng, events)
        if colour is None:  # pragma: no cover - 63 cards never all in hands
            self._game_over(state, "explorer_cards_exhausted", events)
            return
        state["discards"]["explorer"][colour] += 1
        nxt = next((i for i in range(pos + 1, len(LAVA)) if LAVA[i]["colour"] == colour), None)
        events.append({"type": "lava_card", "colour": colour, "space": nxt})
        if nxt is None:
            self._game_over(state, "lava_no_space_ahead", events)
            return
        state["lava"] = nxt
        loss = LAVA[nxt]["loss"]
        if loss:
            equip = self._take(state, "equipment", rng, events)
            if equip is not None:
                state["discards"]["equipment"][equip] += 1
            events.append({"type": "lava_equipment", "card": equip, "loss": loss})
            self._push_loss(state, {s: loss for s in range(state["players"])}, "lava", equip, events, at=0)
        # else: the lava task stays at the head and runs again

    def _game_over(self, state: dict[str, Any], reason: str, events: list[dict[str, Any]]) -> None:
        """End the match; ``reason`` says how (``lava_last_space``: the raft reached the last
        space of the river; ``lava_no_space_ahead``: no space of the turned colour lies ahead)."""
        state["over"] = True
        state["end_reason"] = reason
        state["tasks"] = []
        state["phase"] = "over"
        events.append({"type": "game_over", "scores": self._scores(state)[0]})

    # ------------------------------------------------------------------ scoring

    def score_detail(self, state: dict[str, Any], seat: int) -> dict[str, int]:
        detail = fossil_points(state["fossils"][seat])
        detail.update(
            {
                "bonuses": sum(BONUSES[b]["points"] for b in state["bonuses"][seat]),
                "sightings": sum(ADVENTURES[s]["points"] for s in state["sightings"][seat]),
                "water": SCORING["water_token"] * state["water"][seat],
                "permanenza": SCORING["permanenza_unused"] * state["kept"][seat].count(LIQUID),
            }
        )
        detail["total"] = sum(detail.values())
        detail["fossil_cards"] = _count(state["fossils"][seat])
        return detail

    def _scores(self, state: dict[str, Any]) -> tuple[list[int], list[dict[str, int]]]:
        details = [self.score_detail(state, s) for s in range(state["players"])]
        return [d["total"] for d in details], details

    def outcome(self, state: dict[str, Any]) -> Outcome | None:
        if not state["over"]:
            return None
        scores, details = self._scores(state)
        keys = [(d["total"], d["fossil_cards"]) for d in details]
        ranks = [1 + sum(1 for k in keys if k > mine) for mine in keys]
        winners = [s for s, r in enumerate(ranks) if r == 1]
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": winners,
            "detail": {
                "per_seat": details,
                "tie_break": "fossil card count, then shared",
                "end_reason": state["end_reason"],
            },
        }

    # ------------------------------------------------------------------ views

    def view(self, state: dict[str, Any], seat: int | None) -> dict[str, Any]:
        players = []
        for s in range(state["players"]):
            hand = state["hands"][s]
            players.append(
                {
                    "fossils": dict(state["fossils"][s]),
                    "fossil_count": _count(state["fossils"][s]),
                    "water": state["water"][s],
                    "kept_count": len(state["kept"][s]),
                    "bonuses": list(state["bonuses"][s]),
                    "sightings": list(state["sightings"][s]),
                    "hand_sizes": {"explorer": _count(hand["explorer"]), "equipment": _count(hand["equipment"])},
                }
            )
        v: dict[str, Any] = {
            "phase": state["phase"],
            "turn": state["turn"],
            "to_act": self.to_act(state),
            "explorers": dict(state["explorers"]),
            "raft": state["raft"],
            "lava_position": state["lava"],
            "display": list(state["display"]),
            "deck_sizes": {k: len(d) for k, d in state["decks"].items()},
            "discards": {k: dict(d) for k, d in state["discards"].items()},
            "water_supply": state["supply"],
            "players": players,
            "decision": self._public_task(state["tasks"][0], seat) if state["tasks"] else None,
            "upcoming": [self._public_task(task, seat) for task in state["tasks"][1:]],
            "extra_turn": state["extra_turn"],
            "out_of_game": _out_of_game(state),
            "fossil_deck_bottom": [
                {**put, "fossil": state["decks"]["fossil"][i] if not put["lamp"] or put["seat"] == seat else None}
                for i, put in enumerate(state["fossil_bottom"])
            ],
        }
        if seat is not None:
            v["seat"] = seat
            hand = state["hands"][seat]
            v["hand"] = {
                "explorer": dict(hand["explorer"]),
                "equipment": dict(hand["equipment"]),
                "kept": list(state["kept"][seat]),
            }
        return v

    def _public_task(self, head: dict[str, Any], viewer: int | None) -> dict[str, Any]:
        """A queued task as ``viewer`` may see it: everything but a lamp's drawn fossils, which
        only its drawer sees; a move with its cost worked out."""
        kind = head["kind"]
        if kind == "move":
            pick = head["played"]["pickaxe"] > 0
            return {
                "kind": "move",
                "seat": head["seat"],
                "colour": head["colour"],
                "from": head["from"],
                "at": head["at"],
                "path": list(head["path"]),
                "cost": self._cost(head, pick),
                "cost_with_pickaxe": self._cost(head, True),
                "played": dict(head["played"]),
                "flexible": dict(head["flex"]),
                "mix": head["mix"],
                "springs": head["springs"],
                "events": head["events"],
                "cards_needed": max(1, self._cost(head, pick) - BISCUIT * head["played"]["biscuits"]),
            }
        if kind == "lamp":
            out = {"kind": "lamp", "seat": head["seat"], "back": head["back"], "drawn_count": len(head["drawn"])}
            if viewer == head["seat"]:
                out["drawn"] = list(head["drawn"])
            return out
        out = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in head.items()}
        if kind == "loss":
            out["seats"] = {k: dict(e) for k, e in head["seats"].items()}
        return out

    def redact_action(self, action: dict[str, Any], actor: int, viewer: int | None) -> dict[str, Any]:
        if action.get("type") == "lamp_return" and viewer != actor:
            return {"type": "lamp_return", "fossil": "hidden"}
        return action

    # ------------------------------------------------------------------ reasons

    def explain(self, state: dict[str, Any], seat: int, action: dict[str, Any]) -> IllegalAction:
        head = state["tasks"][0] if state["tasks"] else {"kind": "none"}
        kind = head["kind"]
        typ = action.get("type")
        expected = {
            "turn": "draw or choose",
            "draw": "draw",
            "discard": "discard",
            "move": "step, play_equipment, play_flexible, play_mix, finish or finish_mixed",
            "discover": "discover or pass_discovery",
            "lamp": "lamp_return",
            "favorable": "return_fossil or keep_fossils",
            "offer": "accept_adventure or decline_adventure",
            "lightning": "protect or take_strike",
            "loss": "lose_fossil, use_luck, discard_equipment or play_flexible",
        }.get(kind, "nothing")
        allowed = {a["type"] for a in self.legal_actions(state, seat)}
        if typ not in allowed:
            return IllegalAction(
                "illegal_action",
                f"Now the decision is '{kind}': the actions allowed are {expected}.",
                rule="turn structure",
            )
        if typ == "draw":
            return IllegalAction(
                "illegal_action",
                f"Cannot draw from {action.get('source')!r}: that pile or display card "
                "is not available (draw 3 cards from the display and the two decks).",
                rule="draw 3 cards",
            )
        if typ == "discard":
            return IllegalAction(
                "card_not_in_hand",
                "You can discard only a card of the hand over its limit (10 explorer, 5 equipment cards).",
                rule="hand limit",
            )
        if typ == "choose":
            return IllegalAction(
                "illegal_action",
                f"The {action.get('colour')} move is impossible: a move uses 1 to 5 "
                "explorer cards of that colour and must end lower (phase 2: nearer the far shore) "
                "on a free space.",
                rule="move one explorer",
            )
        if typ == "step" and kind == "move":
            board = BOARDS[state["phase"]]
            to = action.get("to")
            if to not in board.cells or (to not in board.ortho[head["at"]] and to not in board.diag[head["at"]]):
                return IllegalAction(
                    "illegal_action",
                    f"{to!r} is not a space you can step to from {head['at']}: steps go "
                    "down or sideways (never up, granite cannot be crossed), diagonally only with a compass.",
                    rule="movement",
                )
            if board.kind(to) in BLOCKING:
                return IllegalAction(
                    "illegal_action",
                    "Crossing a chasm or whirlpool needs a rope card played for it, and the move cannot end there.",
                    rule="rope",
                )
            if to in board.diag[head["at"]]:
                return IllegalAction(
                    "illegal_action", "A diagonal step needs a compass card played for it.", rule="compass"
                )
            return IllegalAction(
                "illegal_action",
                "This step cannot be paid or leaves no way to end the move legally "
                "(at most 5 explorer cards, +2 per biscuits card; rocks cost 1 card per rock "
                "without a pickaxe; one explorer per space).",
                rule="movement cost",
            )
        if typ == "finish":
            return IllegalAction(
                "illegal_action",
                "The move cannot end here: it must end lower than it began, not on a "
                "chasm/whirlpool or an occupied space, and its cost must be paid with at most 5 explorer "
                "cards (play pickaxe/biscuits first).",
                rule="end of move",
            )
        if typ == "discover":
            return IllegalAction(
                "illegal_action",
                "A discovery is paid with equipment cards you hold matching the "
                "symbols of the space (same number, same symbols, a star is any card), each kept "
                "'Uso flessibile' standing for one card; only the mover may add a lamp. The order of "
                "'cards' does not matter.",
                rule="discovery",
            )
        if typ == "finish_mixed":
            need = self._finish_need(state, head) if kind == "move" else None
            return IllegalAction(
                "illegal_action",
                f"After 'Miscela di colori' the move is paid with exactly {need} "
                "explorer cards you hold, of any colours, in any order.",
                rule="miscela di colori",
            )
        if typ in ("accept_adventure", "protect"):
            cost = ADVENTURES[head["card"]]["cost"]
            return IllegalAction(
                "illegal_action",
                f"The cards paid must be ones you hold and match the card's cost {cost} (in any order).",
                rule="sea adventure",
            )
        if typ == "play_flexible":
            return IllegalAction(
                "illegal_action",
                "'Uso flessibile' needs a kept copy; in a move it stands for a rope, "
                "pickaxe (once per move), compass or biscuits; in the lava flow only for the revealed "
                "equipment type, before any fossil of that loss is lost.",
                rule="uso flessibile",
            )
        return IllegalAction("illegal_action", f"{typ!r} with these values is not legal now (decision: {kind}).")
