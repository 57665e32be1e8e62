"""A heuristic bot for Viaggio al centro della terra, playing from its own view only.

At the start of a turn it plans a whole move for each colour: a cheapest-path search over the
board (the seed data) from the explorer (or the raft) with the cards in its own hand, rating
each space where the move could end by what it brings (fossils of a discovery it can still
pay, water it needs, event cards, depth, the arrival bonus) against what it costs (explorer
and equipment cards). It moves when the best plan is worth more than drawing, and then plays
the plan action by action (rope before a chasm, compass before a diagonal, pickaxe and biscuits
before finishing). Every other decision is a one-step rule: discover with the cheapest
payment, take the lamp, keep the fossils worth most to its own collection, accept every sea
adventure it can pay, protect itself from the ball lightning, and save fossils with equipment
or kept events whenever it may. It never reads the full state.

For a search's rollouts (:mod:`service.bots.search`) it judges a position: the journey's
progress (rows gone down, then columns crossed) counts the stages, and a seat's chance of
finishing ahead of each rival comes from the standings, its score with its hand on the bot's
own scale and the water check to come.
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass, field

from service.bots.search import expected_rank_reward
from service.engine import Action, State, View
from service.games.viaggio import GAME
from service.games.viaggio.board import BLOCKING, Board
from service.games.viaggio.data import (
    BISCUIT,
    BOARDS,
    BONUSES,
    COLOURS,
    EQUIP,
    LIQUID,
    MAX_CARDS,
    PER_TOKEN,
    fossil_points,
)

# What the bot thinks things are worth, in points.
FOSSIL = 2.6  # one more fossil card, on average
EVENT = 1.2  # one event card
DEPTH = 0.35  # one row (phase 1) or column (phase 2) nearer the arrival
EXPLORER_CARD = 0.45
EQUIPMENT_CARD = {"rope": 0.8, "pickaxe": 0.8, "compass": 0.6, "biscuits": 0.9, "lamp": 0.5}
LAMP = 1.6  # two more fossils to look at, two of them returned
DRAW = 1.6  # a turn spent drawing three cards
WATER_NEEDED, WATER_SPARE = 2.2, 0.8  # a token that keeps three fossils, or one that only scores


DESCENT = 3 * (BOARDS[1].max_depth + 2)
"""Rows the three explorers go down from the crater to the arrival, together."""
FULL_JOURNEY = DESCENT + BOARDS[2].max_depth + 2
"""The descent and the raft's columns across the sea: :func:`progress` at the end."""

SPREAD = 12.0
"""How far (in points) a rival's final score may still move from its standing, as one standard
deviation of a normal law, from the start of the journey; it shrinks with the square root of
the journey left. Final scores of two heuristic bots run 40-60 points."""

FOSSIL_LOSS = 2.0
"""Points a fossil that the seat's water will not cover at the end of the descent is expected
to cost (the water check takes the fossils worth least)."""


def _advance(board: Board, cell: str | None) -> int:
    """Rows (columns at sea) a piece on ``cell`` has come from its start."""
    if cell in (None, "start", "raft"):
        return 0
    return board.max_depth + 2 if cell == "end" else board.depth(cell) + 1


def progress(state: State) -> int:
    """How far the journey has come: the rows the explorers went down, then the raft's
    columns. Every move goes deeper or nearer the far shore, so it grows with every move and
    stands still while players draw: a search's rollout counts its stages in it."""
    if state["phase"] == 1:
        return sum(_advance(BOARDS[1], cell) for cell in state["explorers"].values())
    if state["phase"] == 2:
        return DESCENT + _advance(BOARDS[2], state["raft"])
    return FULL_JOURNEY


def standing(state: State, seat: int) -> float:
    """``seat``'s score as it stands, and what its hand is worth on the bot's own scale, less
    what the water check at the end of the descent would take; a fossil card more breaks a
    tie, as at the end. Once the match is over, the score alone."""
    scored = GAME.score_detail(state, seat)
    total = scored["total"] + 0.001 * scored["fossil_cards"]
    if state["over"]:
        return total
    hand = state["hands"][seat]
    total += EXPLORER_CARD * sum(hand["explorer"].values())
    total += sum(EQUIPMENT_CARD[t] * n for t, n in hand["equipment"].items())
    if state["phase"] == 1 or any(task["kind"] == "water_check" for task in state["tasks"]):
        count, water = scored["fossil_cards"], state["water"][seat]
        total -= min(water, -(-count // PER_TOKEN))  # the tokens it spends score nothing
        cover = PER_TOKEN * (water + 2 * state["kept"][seat].count(LIQUID))
        total -= FOSSIL_LOSS * max(0, count - cover)
    return total


@dataclass(frozen=True)
class Path:
    """One way to end a move: the spaces in order, with a flag per step for a rope (chasm,
    whirlpool) and for a compass (diagonal), and its cost in explorer cards."""

    cells: tuple[str, ...]
    roped: tuple[bool, ...]
    diagonal: tuple[bool, ...]
    cost: int


def _valid_end(board: Board, cid: str, start_depth: int, occupied: frozenset[str]) -> bool:
    if cid == "end":
        return True
    return board.depth(cid) > start_depth and board.kind(cid) not in BLOCKING and cid not in occupied


def end_paths(
    board: Board, start: str, budget: int, ropes: int, compasses: int, pickaxe: bool, occupied: frozenset[str]
) -> list[Path]:
    """The cheapest path to every space where a move from ``start`` may end, paying at most
    ``budget`` explorer cards (biscuits included) and the ropes and compasses given."""
    start_depth = board.depth(start)
    best: dict[tuple[str, int, int], int] = {(start, 0, 0): 0}
    came: dict[tuple[str, int, int], tuple[tuple[str, int, int], bool, bool]] = {}
    queue: list[tuple[int, str, int, int]] = [(0, start, 0, 0)]
    ends: dict[str, tuple[int, tuple[str, int, int]]] = {}
    while queue:
        cost, cid, r, c = heapq.heappop(queue)
        key = (cid, r, c)
        if cost > best[key]:
            continue
        if cid != start and _valid_end(board, cid, start_depth, occupied) and (cid not in ends or ends[cid][0] > cost):
            ends[cid] = (cost, key)
        if cid == "end":
            continue
        for diag, nbs in ((False, board.ortho[cid]), (True, board.diag[cid] if c < compasses else ())):
            for nb in nbs:
                roped = board.kind(nb) in BLOCKING
                if roped and r >= ropes:
                    continue
                step = board.entry_cost(nb, pickaxe)
                nkey = (nb, r + roped, c + diag)
                if cost + step <= budget and cost + step < best.get(nkey, budget + 1):
                    best[nkey] = cost + step
                    came[nkey] = (key, roped, diag)
                    heapq.heappush(queue, (cost + step, nb, r + roped, c + diag))
    paths = []
    for cost, key in ends.values():
        cells, roped_flags, diag_flags = [], [], []
        while key in came:
            prev, roped, diag = came[key]
            cells.append(key[0])
            roped_flags.append(roped)
            diag_flags.append(diag)
            key = prev
        paths.append(Path(tuple(reversed(cells)), tuple(reversed(roped_flags)), tuple(reversed(diag_flags)), cost))
    return paths


def payment(symbols: list[str], equipment: dict[str, int]) -> list[str] | None:
    """The cheapest equipment cards that pay a discovery's symbols, or None."""
    left = dict(equipment)
    paid = []
    for s in symbols:
        if s != "star":
            if left.get(s, 0) < 1:
                return None
            left[s] -= 1
            paid.append(s)
    for s in symbols:
        if s == "star":
            spare = [t for t in EQUIP if left.get(t, 0) > 0]
            if not spare:
                return None
            cheapest = min(spare, key=lambda t: (EQUIPMENT_CARD[t], -left[t]))
            left[cheapest] -= 1
            paid.append(cheapest)
    return paid


def marginal(fossils: dict[str, int], kind: str) -> int:
    """Points that one card of ``kind`` adds to (or its loss takes from) ``fossils``."""
    base = sum(fossil_points(fossils).values())
    if fossils[kind] > 0:
        fewer = {**fossils, kind: fossils[kind] - 1}
        return base - sum(fossil_points(fewer).values())
    more = {**fossils, kind: 1}
    return sum(fossil_points(more).values()) - base


@dataclass
class ViaggioBot:
    """Plans a move at the start of its turn and keeps the plan until it is played out."""

    plan: list[Action] = field(default_factory=list)

    stages_ahead = 6
    """A search's rollout stops once the journey has come this many rows further (about two
    moves), and :meth:`judge` scores it: a rollout to the end of the match costs about 50 ms,
    and level 3 had time for one or two a decision."""

    @staticmethod
    def stage(state: State) -> int:
        return progress(state)

    @staticmethod
    def judge(state: State, seat: int) -> float:
        """``seat``'s rank reward expected from the standings (:func:`standing`), the gaps
        still moving by :data:`SPREAD` over the journey left: a stopped rollout's reward."""
        totals = [standing(state, s) for s in range(state["players"])]
        left = (FULL_JOURNEY - progress(state)) / FULL_JOURNEY
        return expected_rank_reward(totals, seat, SPREAD * math.sqrt(left))

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            self.plan = []
            return legal[0]
        kinds = {a["type"] for a in legal}
        if self.plan and self.plan[0] in legal:
            return self.plan.pop(0)
        self.plan = []
        if "choose" in kinds or "draw" in kinds and "discard" not in kinds:
            return self.turn(view, legal)
        if kinds & {"step", "finish", "finish_mixed"}:
            return self.finish_move(view, legal)
        if "discard" in kinds:
            return self.discard(view, legal)
        if "discover" in kinds or "pass_discovery" in kinds:
            return self.discover(legal)
        if "lamp_return" in kinds:
            return self.lamp_return(view, legal)
        if "keep_fossils" in kinds:
            return self.favorable(view, legal)
        if "accept_adventure" in kinds or "decline_adventure" in kinds:
            return self.cheapest_colours(view, [a for a in legal if a["type"] == "accept_adventure"]) or legal[-1]
        if "protect" in kinds or "take_strike" in kinds:
            mine = view["players"][view["seat"]]["fossil_count"]
            protect = self.cheapest_colours(view, [a for a in legal if a["type"] == "protect"])
            return protect if protect and mine else {"type": "take_strike"}
        if "lose_fossil" in kinds:
            return self.lose(view, legal)
        return legal[0]

    # ------------------------------------------------------------------ the turn

    def turn(self, view: View, legal: list[Action]) -> Action:
        """The best move if it is worth more than the turn's alternative: drawing three cards,
        or, with nothing left to draw, passing (worth nothing). The search also asks with its
        earlier picks withheld, which may leave no alternative: then the best move there is."""
        can_draw = any(a["type"] == "draw" for a in legal)
        can_pass = {"type": "pass"} in legal
        floor = DRAW + self.draw_bonus(view) if can_draw else 0.0 if can_pass else -math.inf
        best_value, best_plan = floor, None
        for a in legal:
            if a["type"] == "choose":
                found = self.best_move(view, a["colour"])
                if found and found[0] > best_value:
                    best_value, best_plan = found
        if best_plan:
            self.plan = best_plan[1:]
            return best_plan[0]
        if can_draw:
            return self.draw(view, legal)
        return {"type": "pass"} if can_pass else legal[0]

    def draw_bonus(self, view: View) -> float:
        """Drawing is worth less with a full hand and more with an empty one."""
        hand = view["hand"]
        explorer = sum(hand["explorer"].values())
        equipment = sum(hand["equipment"].values())
        return 0.25 * (6 - explorer) + 0.3 * (3 - equipment)

    def best_move(self, view: View, colour: str) -> tuple[float, list[Action]] | None:
        phase = view["phase"]
        board = BOARDS[phase]
        start = view["explorers"][colour] if phase == 1 else view["raft"]
        if start in (None, "end", "raft"):
            return None
        hand = view["hand"]
        eq = hand["equipment"]
        real = min(MAX_CARDS, hand["explorer"][colour])
        if real < 1:
            return None
        occupied = frozenset(
            p for c, p in view["explorers"].items() if c != colour and p not in ("start", "end", "raft")
        )
        budget = real + BISCUIT * eq["biscuits"]
        best: tuple[float, list[Action]] | None = None
        for pickaxe in (False, True) if eq["pickaxe"] else (False,):
            for path in end_paths(board, start, budget, eq["rope"], eq["compass"], pickaxe, occupied):
                value, actions = self.rate(view, board, start, colour, path, pickaxe)
                if best is None or value > best[0]:
                    best = (value, actions)
        return best

    def rate(
        self, view: View, board: Board, start: str, colour: str, path: Path, pickaxe: bool
    ) -> tuple[float, list[Action]]:
        hand = view["hand"]
        eq = dict(hand["equipment"])
        real = min(MAX_CARDS, hand["explorer"][colour])
        biscuits = max(0, -(-(path.cost - real) // BISCUIT))
        cards = max(1, path.cost - BISCUIT * biscuits)
        rocks = any(board.kind(c) == "rocks" for c in path.cells)
        used_pickaxe = pickaxe and rocks
        ropes, compasses = sum(path.roped), sum(path.diagonal)
        eq["rope"] -= ropes
        eq["compass"] -= compasses
        eq["biscuits"] -= biscuits
        eq["pickaxe"] -= used_pickaxe
        value = -EXPLORER_CARD * cards
        value -= (
            EQUIPMENT_CARD["rope"] * ropes
            + EQUIPMENT_CARD["compass"] * compasses
            + EQUIPMENT_CARD["biscuits"] * biscuits
            + EQUIPMENT_CARD["pickaxe"] * used_pickaxe
        )
        end = path.cells[-1]
        depth_end = board.max_depth + 1 if end == "end" else board.depth(end)
        value += DEPTH * (depth_end - board.depth(start))
        me = view["players"][view["seat"]]
        seen = set()
        for cid in path.cells:
            if cid in seen or cid == "end":
                continue
            seen.add(cid)
            kind = board.kind(cid)
            if kind == "spring" and view["water_supply"] > 0:
                covered = PER_TOKEN * me["water"] >= me["fossil_count"] + 2
                value += WATER_SPARE if covered else WATER_NEEDED
            elif kind == "event":
                value += EVENT
        if end == "end":
            value += BONUSES["foresta_di_funghi" if view["phase"] == 1 else "citta_in_rovina"]["points"]
        elif board.kind(end) == "discovery":
            symbols = board.cells[end]["symbols"]
            paid = payment(symbols, eq)
            if paid is not None:
                value += FOSSIL * len(symbols) - sum(EQUIPMENT_CARD[t] for t in paid)
                for t in paid:
                    eq[t] -= 1
                if eq["lamp"] > 0:
                    value += LAMP - EQUIPMENT_CARD["lamp"]
                if view["phase"] == 2:
                    value -= 0.4 * FOSSIL * len(symbols)  # the others may discover too
        actions: list[Action] = [{"type": "choose", "colour": colour}]
        for cid, roped, diag in zip(path.cells, path.roped, path.diagonal, strict=True):
            if roped:
                actions.append({"type": "play_equipment", "card": "rope"})
            if diag:
                actions.append({"type": "play_equipment", "card": "compass"})
            actions.append({"type": "step", "to": cid})
        if used_pickaxe:
            actions.append({"type": "play_equipment", "card": "pickaxe"})
        actions += [{"type": "play_equipment", "card": "biscuits"}] * biscuits
        actions.append({"type": "finish"})
        return value, actions

    def finish_move(self, view: View, legal: list[Action]) -> Action:
        """A move whose plan went astray: end it as soon as possible, else go deepest."""
        for a in legal:
            if a["type"] == "finish":
                return a
        mixed = [a for a in legal if a["type"] == "finish_mixed"]
        if mixed:
            return self.cheapest_colours(view, mixed) or mixed[0]
        board = BOARDS[view["phase"]]
        steps = [a for a in legal if a["type"] == "step"]
        if steps:
            return max(steps, key=lambda a: board.max_depth + 1 if a["to"] == "end" else board.depth(a["to"]))
        for card in ("biscuits", "pickaxe", "rope", "compass"):
            for a in legal:
                if a.get("card") == card or a.get("as") == card:
                    return a
        return legal[0]

    # ------------------------------------------------------------------ cards

    def draw(self, view: View, legal: list[Action]) -> Action:
        hand = view["hand"]
        sources = {a["source"] for a in legal if a["type"] == "draw"}
        explorer = sum(hand["explorer"].values())
        equipment = sum(hand["equipment"].values())
        if equipment < 4 or explorer >= 9:
            for t in sorted(EQUIP, key=lambda t: (hand["equipment"][t], -EQUIPMENT_CARD[t])):
                if f"display:{t}" in sources:
                    return {"type": "draw", "source": f"display:{t}"}
            if "equipment_deck" in sources and (equipment < 3 or "explorer_deck" not in sources):
                return {"type": "draw", "source": "equipment_deck"}
        if "explorer_deck" in sources:
            return {"type": "draw", "source": "explorer_deck"}
        return next(a for a in legal if a["type"] == "draw")

    def discard(self, view: View, legal: list[Action]) -> Action:
        hand = view["hand"]
        counts = {**hand["explorer"], **hand["equipment"]}
        return max(legal, key=lambda a: (counts[a["card"]], -EQUIPMENT_CARD.get(a["card"], 0)))

    @staticmethod
    def cheapest_colours(view: View, options: list[Action]) -> Action | None:
        """The payment in explorer cards that leaves the most even hand."""
        if not options:
            return None
        hand = view["hand"]["explorer"]
        return max(options, key=lambda a: sum(hand[c] - a["colours"].count(c) for c in COLOURS if c in a["colours"]))

    # ------------------------------------------------------------------ fossils

    def discover(self, legal: list[Action]) -> Action:
        options = [a for a in legal if a["type"] == "discover"]
        if not options:
            return {"type": "pass_discovery"}

        def worth(a: Action) -> float:
            return (LAMP if a["lamp"] else 0.0) - sum(EQUIPMENT_CARD[t] for t in a["cards"]) - 1.5 * a["flexible"]

        return max(options, key=worth)

    def lamp_return(self, view: View, legal: list[Action]) -> Action:
        fossils = dict(view["players"][view["seat"]]["fossils"])
        for f in view["decision"].get("drawn", []):
            fossils[f] += 1
        return min(legal, key=lambda a: marginal(fossils, a["fossil"]))

    def favorable(self, view: View, legal: list[Action]) -> Action:
        fossils = view["players"][view["seat"]]["fossils"]
        returns = [a for a in legal if a["type"] == "return_fossil" and marginal(fossils, a["fossil"]) < 1]
        return returns[0] if returns else {"type": "keep_fossils"}

    def lose(self, view: View, legal: list[Action]) -> Action:
        for kind in ("discard_equipment", "use_luck", "play_flexible"):
            for a in legal:
                if a["type"] == kind:
                    return a
        fossils = view["players"][view["seat"]]["fossils"]
        return min((a for a in legal if a["type"] == "lose_fossil"), key=lambda a: marginal(fossils, a["fossil"]))
