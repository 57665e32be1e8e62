"""Esploratore – In viaggio verso le stelle (Großpietsch, Falkhof, Topf), 2–7 players.

A turn is split into atomic actions following the rulebook's four phases:

1. ``play`` (then possibly ``shift`` one own vehicle on that card) and ``draw``; or
   ``exchange`` and ``draw``; or ``skip_play``;
2. ``build`` a ship on Earth, or ``combine`` vehicles on a meeting point, or ``skip_build``;
3. ``move`` each own vehicle at most once, then ``end_moves``;
4. yields are scored inside ``perform``; with the upkeep variant the player then ``trade``\\ s
   with the government at factor 5 and ``pay_upkeep``.

See docs/esploratore.md for the card model and every choice where the rulebook is silent.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from service.engine import Action, ActionType, Game, IllegalAction, Option, Outcome, Rng, State

from . import rules as R

POS_SCHEMA = {"enum": list(R.POSITIONS)}
LINE_SCHEMA = {"type": "integer", "minimum": 0, "maximum": R.NLINES - 1}
RES_SCHEMA = {"enum": list(R.RESOURCES)}
CARD_SCHEMA = {"type": ["string", "null"]}
VID_SCHEMA = {"type": "integer", "minimum": 0}


def _canonical(action: Action) -> Action:
    """``action`` with a ``combine``'s vehicle ids sorted; anything else unchanged."""
    if not isinstance(action, dict) or action.get("type") != "combine":
        return action
    vids = action.get("vehicles")
    if not isinstance(vids, list) or not all(type(v) is int for v in vids):
        return action
    return {**action, "vehicles": sorted(vids)}


def _slot_has_other(state: State, pos: int, line: int, seat: int) -> bool:
    for v in state["vehicles"]:
        if v["pos"] == pos and v["line"] == line and v["owner"] != seat:
            return True
    return False


def _slot_empty(state: State, pos: int, line: int) -> bool:
    for v in state["vehicles"]:
        if v["pos"] == pos and v["line"] == line:
            return False
    return True


def top_masks(state: State, pos: int) -> tuple[int, int]:
    """(lines, meeting points) of the top card at ``pos``; (0, 0) when no card lies there."""
    stack = state["table"][pos]
    if not stack:
        return 0, 0
    top = stack[-1]
    return R.CARDS[top["card"]].masks(top["flip"])


def continuous(state: State, line: int, a: int, b: int) -> bool:
    """Whether ``line`` runs unbroken over every top card from position ``a`` to ``b``."""
    lo, hi = (a, b) if a <= b else (b, a)
    bit = 1 << line
    for p in range(lo, hi + 1):
        if not top_masks(state, p)[0] & bit:
            return False
    return True


def connected_to_earth(state: State, v: dict[str, Any]) -> bool:
    """A vehicle on a meeting point whose line runs unbroken to the Earth card."""
    meet = top_masks(state, v["pos"])[1]
    return bool(meet >> v["line"] & 1) and continuous(state, v["line"], v["pos"], R.EARTH)


def on_meeting_point(state: State, v: dict[str, Any]) -> bool:
    return bool(top_masks(state, v["pos"])[1] >> v["line"] & 1)


class Esploratore(Game[State]):
    id = R.GAME_ID
    title = "Esploratore – In viaggio verso le stelle"
    min_players = 2
    max_players = 7
    options = (
        Option(
            "beginners",
            "bool",
            False,
            "Beginners' variant: the Earth card lies face up on Earth from the start, Earth cards "
            "C1–C7 leave the game, each explorer takes a middle/far card instead of an Earth card, "
            "and cards may be played upside down.",
        ),
        Option(
            "race_250",
            "bool",
            False,
            "Alternative win: the first explorer to hold 250 resources (any types) wins at once "
            "(the match still ends after 12 rounds at the latest).",
        ),
        Option(
            "upkeep",
            "bool",
            False,
            "Upkeep variant: crews pay 1 of each resource their planet does not yield per crew "
            "member each turn; shortfalls may be bartered with explorers met at a planet's "
            "meeting points or bought from the government at factor 5.",
        ),
        Option(
            "hidden_totals",
            "bool",
            False,
            "Counters instead of the notepad: other explorers' running totals are hidden; only "
            "the yields of the current round are shown until the round is over.",
        ),
    )
    action_types = (
        ActionType(
            "play",
            "Phase 1: play a hand card on or beside a revealed card (flip: upside down, beginners' variant only).",
            {"card": {"type": "string"}, "position": POS_SCHEMA, "flip": {"type": "boolean"}},
        ),
        ActionType(
            "exchange",
            "Phase 1 instead of playing: put a hand card into the reserve, then draw.",
            {"card": CARD_SCHEMA},
        ),
        ActionType("skip_play", "Phase 1: neither play nor exchange.", {}),
        ActionType(
            "shift",
            "After playing on a position with own vehicles: move one of them to another orbit "
            "on the new card (required when its orbit is gone).",
            {"vehicle": VID_SCHEMA, "line": LINE_SCHEMA},
        ),
        ActionType("skip_shift", "Keep own vehicles where they are on the new card.", {}),
        ActionType(
            "draw",
            "Draw the replacement card (or, in the beginners' deal, the fourth card) from a pile.",
            {"pile": {"enum": list(R.PILES)}},
        ),
        ActionType("build", "Phase 2: build a ship on a free orbit of the Earth card.", {"line": LINE_SCHEMA}),
        ActionType(
            "combine",
            "Phase 2: combine vehicles on one meeting point: 2 ships into a station, or a "
            "station and a ship or 3 ships into a factory.",
            {"vehicles": {"type": "array", "items": VID_SCHEMA, "minItems": 2, "maxItems": 3}},
        ),
        ActionType("skip_build", "Phase 2: build nothing.", {}),
        ActionType(
            "move",
            "Phase 3: move a vehicle (ships along an unbroken orbit to another card, or any "
            "vehicle to another orbit of its card).",
            {"vehicle": VID_SCHEMA, "position": POS_SCHEMA, "line": LINE_SCHEMA},
        ),
        ActionType("end_moves", "Phase 3 done: score the yields (phase 4).", {}),
        ActionType(
            "trade",
            "Upkeep variant: pay 5 of one resource to the government for 1 of a resource you are short of.",
            {"give": RES_SCHEMA, "get": RES_SCHEMA},
        ),
        ActionType(
            "offer",
            "Upkeep variant: offer another explorer who has a vehicle on a meeting point of a "
            "planet where you have one a 1:1 barter: you give `amount` of `give` for as many of "
            "`get` (amount = your shortfall of `get`, at most what you hold of `give`).",
            {
                "partner": {"type": "integer", "minimum": 0, "maximum": 6},
                "give": RES_SCHEMA,
                "get": RES_SCHEMA,
                "amount": {"type": "integer", "minimum": 1},
            },
        ),
        ActionType("accept_offer", "Accept the barter offered to you.", {}),
        ActionType("decline_offer", "Decline the barter offered to you.", {}),
        ActionType(
            "pay_upkeep",
            "Upkeep variant: pay the crews; a vehicle whose upkeep cannot be paid is lost.",
            {},
        ),
    )

    # -- set-up ---------------------------------------------------------------------------

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> State:
        beginners = bool(options.get("beginners", False))
        piles: list[list[str]] = [[] for _ in range(R.NPOS)]
        for cid in R.PLAYING_CARDS:
            card = R.CARDS[cid]
            if card.wild:
                continue
            if beginners and card.pos == R.EARTH:
                continue  # C1–C7 leave the game
            piles[card.home].append(cid)
        wilds = [cid for cid in R.PLAYING_CARDS if R.CARDS[cid].wild]
        for cid, pos in zip(wilds, R.WILD_POSITIONS, strict=True):
            piles[pos].append(cid)
        for pile in piles:
            rng.shuffle(pile)
        table: list[list[dict[str, Any]]] = [[] for _ in range(R.NPOS)]
        hands: list[list[str]] = [[] for _ in range(players)]
        inner = [R.POS_INDEX[p] for p in ("mercury", "venus", "earth", "mars")]
        if beginners:
            table[R.EARTH].append({"card": R.BEGINNER_EARTH.id, "flip": False})
            inner = [p for p in inner if p != R.EARTH]
        for seat in range(players):
            for pos in inner:
                hands[seat].append(piles[pos].pop())
        if beginners:
            first = rng.below(players)
        else:

            def best_earth(seat: int) -> int:
                return max((R.CARDS[c].rank for c in hands[seat] if R.CARDS[c].pos == R.EARTH), default=0)

            first = max(range(players), key=best_earth)
        order = [(first + i) % players for i in range(players)]
        state: State = {
            "players": players,
            "opts": {
                "beginners": beginners,
                "race_250": bool(options.get("race_250", False)),
                "upkeep": bool(options.get("upkeep", False)),
                "hidden_totals": bool(options.get("hidden_totals", False)),
            },
            "piles": piles,
            "reserve": [],
            "hands": hands,
            "table": table,
            "vehicles": [],
            "next_vid": 0,
            "totals": [[0, 0, 0, 0] for _ in range(players)],
            "round_yield": [[0, 0, 0, 0] for _ in range(players)],
            "sheet": [],
            "round": 1,
            "order": order,
            "turn": 0,
            "phase": "deal" if beginners else "play",
            "deal": 0,
            "moved": [],
            "start_meeting": {},
            "shift_pos": None,
            "shift_forced": None,
            "upkeep_need": [0, 0, 0, 0],
            "offer": None,
            "asked": [],
            "race_winner": None,
            "last_order_tie": False,
            "last_yield": None,
        }
        if not beginners:
            self._start_turn(state)
        return state

    # -- whose turn -----------------------------------------------------------------------

    def to_act(self, state: State) -> list[int]:
        if state["phase"] == "over":
            return []
        if state["phase"] == "deal":
            return [state["order"][state["deal"]]]
        if state["phase"] == "barter":
            return [state["offer"]["partner"]]
        return [state["order"][state["turn"]]]

    def current(self, state: State) -> int:
        return state["order"][state["turn"]]

    # -- legal actions --------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if seat not in self.to_act(state):
            return []
        phase = state["phase"]
        if phase == "deal":
            return [
                {"type": "draw", "pile": R.POSITIONS[p]}
                for p in range(R.POS_INDEX["asteroids"], R.NPOS)
                if state["piles"][p]
            ]
        if phase == "play":
            return self._play_actions(state, seat)
        if phase == "shift":
            return self._shift_actions(state, seat)
        if phase == "draw":
            return [{"type": "draw", "pile": R.PILES[i]} for i in self._drawable(state)]
        if phase == "build":
            return self._build_actions(state, seat)
        if phase == "move":
            return self._move_actions(state, seat)
        if phase == "upkeep":
            return self._upkeep_actions(state, seat)
        if phase == "barter":
            o = state["offer"]
            gi = R.RESOURCES.index(o["get"])
            out: list[Action] = []
            if state["totals"][seat][gi] >= o["amount"]:
                out.append({"type": "accept_offer"})
            out.append({"type": "decline_offer"})
            return out
        return []

    def _drawable(self, state: State) -> list[int]:
        out = [p for p in range(R.NPOS) if state["piles"][p]]
        if state["reserve"]:
            out.append(R.RESERVE)
        return out

    def _first_play(self, state: State) -> bool:
        return not any(state["table"])

    def _placements(self, state: State, seat: int, cid: str) -> list[tuple[int, bool]]:
        """Every (position, flip) where ``cid`` may be played now."""
        card = R.CARDS[cid]
        table = state["table"]
        if self._first_play(state):
            # The first explorer lays his highest Earth card on Earth.
            hand = state["hands"][seat]
            best = max((R.CARDS[c].rank for c in hand if R.CARDS[c].pos == R.EARTH), default=0)
            if card.pos == R.EARTH and card.rank == best and best:
                return [(R.EARTH, False)]
            return []
        targets = R.WILD_POSITIONS if card.wild else [card.home]
        flips = (False, True) if state["opts"]["beginners"] else (False,)
        out: list[tuple[int, bool]] = []
        for p in targets:
            if not (table[p] or (p > 0 and table[p - 1]) or (p + 1 < R.NPOS and table[p + 1])):
                continue
            for flip in flips:
                if self._orbits_kept(state, seat, p, card.masks(flip)[0]) is None:
                    out.append((p, flip))
        return out

    def _orbits_kept(self, state: State, seat: int, pos: int, lines: int) -> str | None:
        """None if a card with ``lines`` may cover ``pos``; else the reason it may not."""
        stranded = []
        for v in state["vehicles"]:
            if v["pos"] != pos or lines >> v["line"] & 1:
                continue
            if v["owner"] != seat:
                return "orbit_kept"
            stranded.append(v)
        if not stranded:
            return None
        if len(stranded) > 1:
            return "one_shift"
        ok = any(lines >> ln & 1 and not _slot_has_other(state, pos, ln, seat) for ln in range(R.NLINES))
        return None if ok else "one_shift"

    def _play_actions(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = []
        hand = state["hands"][seat]
        for cid in hand:
            for p, flip in self._placements(state, seat, cid):
                out.append({"type": "play", "card": cid, "position": R.POSITIONS[p], "flip": flip})
        if self._first_play(state):
            return out
        for cid in hand:
            out.append({"type": "exchange", "card": cid})
        out.append({"type": "skip_play"})
        return out

    def _shift_actions(self, state: State, seat: int) -> list[Action]:
        pos = state["shift_pos"]
        lines = top_masks(state, pos)[0]
        forced = state["shift_forced"]
        out: list[Action] = []
        for v in state["vehicles"]:
            if v["owner"] != seat or v["pos"] != pos:
                continue
            if forced is not None and v["id"] != forced:
                continue
            for ln in range(R.NLINES):
                if ln != v["line"] and lines >> ln & 1 and not _slot_has_other(state, pos, ln, seat):
                    out.append({"type": "shift", "vehicle": v["id"], "line": ln})
        if forced is None:
            out.append({"type": "skip_shift"})
        return out

    def _build_actions(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = []
        own = [v for v in state["vehicles"] if v["owner"] == seat]
        if len(own) < R.MAX_VEHICLES and state["table"][R.EARTH]:
            lines = top_masks(state, R.EARTH)[0]
            for ln in range(R.NLINES):
                if lines >> ln & 1 and _slot_empty(state, R.EARTH, ln):
                    out.append({"type": "build", "line": ln})
        for group in self._combinable_groups(state, seat):
            ships = [v["id"] for v in group if v["kind"] == "ship"]
            stations = [v["id"] for v in group if v["kind"] == "station"]
            for pair in combinations(ships, 2):
                out.append({"type": "combine", "vehicles": list(pair)})
            for st in stations:
                for sh in ships:
                    out.append({"type": "combine", "vehicles": sorted([st, sh])})
            for trio in combinations(ships, 3):
                out.append({"type": "combine", "vehicles": list(trio)})
        out.append({"type": "skip_build"})
        return out

    def _combinable_groups(self, state: State, seat: int) -> list[list[dict[str, Any]]]:
        """Own ships/stations grouped by the meeting point they stood on at the start of the
        turn and still stand on ("all'inizio della mossa … sullo stesso punto d'incontro"):
        a meeting point that a card played this turn brought does not count."""
        groups: dict[str, list[dict[str, Any]]] = {}
        starts = state["start_meeting"]
        for v in sorted(state["vehicles"], key=lambda v: v["id"]):
            if v["owner"] != seat or v["kind"] == "factory":
                continue
            if starts.get(str(v["id"])) != [v["pos"], v["line"]]:
                continue
            groups.setdefault(f"{v['pos']}:{v['line']}", []).append(v)
        return [g for g in groups.values() if len(g) >= 2]

    def _destinations(self, state: State, seat: int, v: dict[str, Any]) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        pos, line = v["pos"], v["line"]
        lines = top_masks(state, pos)[0]
        for ln in range(R.NLINES):
            if ln != line and lines >> ln & 1 and not _slot_has_other(state, pos, ln, seat):
                out.append((pos, ln))
        if v["kind"] == "ship":
            bit = 1 << line
            for step in (-1, 1):
                q = pos + step
                while 0 <= q < R.NPOS and top_masks(state, q)[0] & bit:
                    if not _slot_has_other(state, q, line, seat):
                        out.append((q, line))
                    q += step
        return out

    def _move_actions(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = []
        moved = state["moved"]
        for v in sorted(state["vehicles"], key=lambda v: v["id"]):
            if v["owner"] != seat or v["id"] in moved:
                continue
            for p, ln in self._destinations(state, seat, v):
                out.append({"type": "move", "vehicle": v["id"], "position": R.POSITIONS[p], "line": ln})
        out.append({"type": "end_moves"})
        return out

    def _shortfall(self, state: State, seat: int) -> list[int]:
        tot = state["totals"][seat]
        need = state["upkeep_need"]
        return [max(0, need[i] - tot[i]) for i in range(4)]

    def _barter_partners(self, state: State, seat: int) -> list[int]:
        """Explorers not yet asked this turn with a vehicle on a meeting point of a planet where
        ``seat`` also has one."""
        mine: set[int] = set()
        theirs: dict[int, set[int]] = {}
        for v in state["vehicles"]:
            if not on_meeting_point(state, v):
                continue
            if v["owner"] == seat:
                mine.add(v["pos"])
            else:
                theirs.setdefault(v["owner"], set()).add(v["pos"])
        return [s for s in sorted(theirs) if s not in state["asked"] and theirs[s] & mine]

    def _upkeep_actions(self, state: State, seat: int) -> list[Action]:
        out: list[Action] = []
        short = self._shortfall(state, seat)
        tot = state["totals"][seat]
        partners = self._barter_partners(state, seat) if any(short) else []
        # The government trades only "in caso il baratto con altri giocatori non fosse
        # possibile": once no explorer met at a planet is left to ask this turn.
        for gi, give in enumerate(R.RESOURCES):
            if partners or tot[gi] < R.TRADE_FACTOR:
                continue
            for ti, get in enumerate(R.RESOURCES):
                if ti != gi and short[ti] > 0:
                    out.append({"type": "trade", "give": give, "get": get})
        if partners:
            for partner in partners:
                for gi, give in enumerate(R.RESOURCES):
                    if tot[gi] <= 0:
                        continue
                    for ti, get in enumerate(R.RESOURCES):
                        if ti != gi and short[ti] > 0:
                            out.append(
                                {
                                    "type": "offer",
                                    "partner": partner,
                                    "give": give,
                                    "get": get,
                                    "amount": min(short[ti], tot[gi]),
                                }
                            )
        out.append({"type": "pay_upkeep"})
        return out

    def check(self, state: State, seat: int, action: Action) -> None:
        """As the contract, but a ``combine`` names a set of vehicles: any order is accepted
        (the legal list gives the ids sorted)."""
        super().check(state, seat, _canonical(action))

    # -- performing -----------------------------------------------------------------------

    def perform(self, state: State, seat: int, action: Action, rng: Rng) -> tuple[State, list[dict[str, Any]]]:
        kind = action["type"]
        events: list[dict[str, Any]] = []
        if state["phase"] == "deal":
            self._draw(state, seat, R.PILES.index(action["pile"]), events)
            state["deal"] += 1
            if state["deal"] >= state["players"]:
                state["phase"] = "play"
                self._start_turn(state)
            return state, events
        if kind == "play":
            self._do_play(state, seat, action, rng, events)
        elif kind == "exchange":
            state["hands"][seat].remove(action["card"])
            state["reserve"].append(action["card"])
            rng.shuffle(state["reserve"])
            events.append({"type": "exchanged", "seat": seat})
            events.append({"type": "exchanged_card", "seat": seat, "card": action["card"], "to": [seat]})
            self._after_phase1(state)
        elif kind == "skip_play":
            events.append({"type": "skipped_play", "seat": seat})
            self._after_phase1(state)
        elif kind == "shift":
            v = self._vehicle(state, action["vehicle"])
            v["line"] = action["line"]
            events.append({"type": "shifted", "seat": seat, "vehicle": v["id"], "line": v["line"]})
            state["shift_pos"] = None
            state["shift_forced"] = None
            self._after_phase1(state)
        elif kind == "skip_shift":
            state["shift_pos"] = None
            self._after_phase1(state)
        elif kind == "draw":
            self._draw(state, seat, R.PILES.index(action["pile"]), events)
            state["phase"] = "build"
        elif kind == "build":
            vid = state["next_vid"]
            state["next_vid"] += 1
            state["vehicles"].append(
                {"id": vid, "owner": seat, "kind": "ship", "mult": 1, "pos": R.EARTH, "line": action["line"]}
            )
            events.append({"type": "built", "seat": seat, "vehicle": vid, "line": action["line"]})
            state["phase"] = "move"
        elif kind == "combine":
            self._do_combine(state, seat, sorted(action["vehicles"]), events)
            state["phase"] = "move"
        elif kind == "skip_build":
            state["phase"] = "move"
        elif kind == "move":
            v = self._vehicle(state, action["vehicle"])
            frm = [R.POSITIONS[v["pos"]], v["line"]]
            v["pos"] = R.POS_INDEX[action["position"]]
            v["line"] = action["line"]
            state["moved"].append(v["id"])
            events.append(
                {
                    "type": "moved",
                    "seat": seat,
                    "vehicle": v["id"],
                    "from": frm,
                    "to_slot": [action["position"], v["line"]],
                }
            )
        elif kind == "end_moves":
            self._score(state, seat, events)
            if state["opts"]["upkeep"] and self._compute_upkeep(state, seat):
                state["phase"] = "upkeep"
            else:
                self._end_turn(state, seat, rng, events)
        elif kind == "trade":
            gi = R.RESOURCES.index(action["give"])
            ti = R.RESOURCES.index(action["get"])
            state["totals"][seat][gi] -= R.TRADE_FACTOR
            state["totals"][seat][ti] += 1
            events.append({"type": "traded", "seat": seat, "give": action["give"], "get": action["get"]})
        elif kind == "offer":
            state["offer"] = {
                "from": seat,
                "partner": action["partner"],
                "give": action["give"],
                "get": action["get"],
                "amount": action["amount"],
            }
            state["asked"].append(action["partner"])
            state["phase"] = "barter"
            events.append({"type": "offered", **state["offer"]})
        elif kind in ("accept_offer", "decline_offer"):
            o = state["offer"]
            if kind == "accept_offer":
                gi, ti, n = R.RESOURCES.index(o["give"]), R.RESOURCES.index(o["get"]), o["amount"]
                state["totals"][o["from"]][gi] -= n
                state["totals"][o["from"]][ti] += n
                state["totals"][seat][gi] += n
                state["totals"][seat][ti] -= n
            events.append(
                {
                    "type": "offer_accepted" if kind == "accept_offer" else "offer_declined",
                    "seat": seat,
                    "from": o["from"],
                }
            )
            state["offer"] = None
            state["phase"] = "upkeep"
        elif kind == "pay_upkeep":
            self._pay_upkeep(state, seat, events)
            self._end_turn(state, seat, rng, events)
        return state, events

    def _vehicle(self, state: State, vid: int) -> dict[str, Any]:
        for v in state["vehicles"]:
            if v["id"] == vid:
                return v
        raise KeyError(vid)  # pragma: no cover - legal actions only name existing vehicles

    def _draw(self, state: State, seat: int, pile: int, events: list[dict[str, Any]]) -> None:
        src = state["reserve"] if pile == R.RESERVE else state["piles"][pile]
        cid = src.pop()
        state["hands"][seat].append(cid)
        events.append({"type": "drew", "seat": seat, "pile": R.PILES[pile]})
        events.append({"type": "drew_card", "seat": seat, "card": cid, "to": [seat]})

    def _after_phase1(self, state: State) -> None:
        seat = self.current(state)
        if len(state["hands"][seat]) < R.HAND_SIZE and self._drawable(state):
            state["phase"] = "draw"
        else:
            state["phase"] = "build"

    def _do_play(self, state: State, seat: int, action: Action, rng: Rng, events: list[dict[str, Any]]) -> None:
        cid = action["card"]
        pos = R.POS_INDEX[action["position"]]
        card = R.CARDS[cid]
        state["hands"][seat].remove(cid)
        stack = state["table"][pos]
        if card.wild and stack:
            gathered = [entry["card"] for entry in stack]
            stack.clear()
            state["reserve"].extend(gathered)
            rng.shuffle(state["reserve"])
            events.append({"type": "gathered", "position": action["position"], "cards": gathered})
        stack.append({"card": cid, "flip": bool(action["flip"])})
        events.append(
            {"type": "played", "seat": seat, "card": cid, "position": action["position"], "flip": bool(action["flip"])}
        )
        lines = top_masks(state, pos)[0]
        own = [v for v in state["vehicles"] if v["owner"] == seat and v["pos"] == pos]
        stranded = [v for v in own if not lines >> v["line"] & 1]
        if own:
            state["phase"] = "shift"
            state["shift_pos"] = pos
            state["shift_forced"] = stranded[0]["id"] if stranded else None
            if not self._shift_actions(state, seat) or self._shift_actions(state, seat) == [{"type": "skip_shift"}]:
                state["shift_pos"] = None
                state["shift_forced"] = None
                self._after_phase1(state)
        else:
            self._after_phase1(state)

    def _do_combine(self, state: State, seat: int, vids: list[int], events: list[dict[str, Any]]) -> None:
        parts = [self._vehicle(state, vid) for vid in vids]
        crew = sum(R.CREW[v["kind"]] for v in parts)
        keep = min(parts, key=lambda v: v["id"])
        for v in parts:
            if v is not keep:
                state["vehicles"].remove(v)
        if crew == 2:
            keep["kind"], keep["mult"] = "station", 2
        else:
            keep["kind"], keep["mult"] = "factory", 3
        events.append(
            {"type": "combined", "seat": seat, "vehicles": list(vids), "into": keep["kind"], "vehicle": keep["id"]}
        )

    def _score(self, state: State, seat: int, events: list[dict[str, Any]]) -> None:
        gained = [0, 0, 0, 0]
        for v in sorted(state["vehicles"], key=lambda v: v["id"]):
            if v["owner"] != seat:
                continue
            linked = continuous(state, v["line"], v["pos"], R.EARTH)
            if linked and on_meeting_point(state, v):
                base = R.YIELD[v["pos"]]
                for i in range(4):
                    gained[i] += base[i] * v["mult"]
                events.append(
                    {
                        "type": "yield",
                        "seat": seat,
                        "vehicle": v["id"],
                        "multiplier": v["mult"],
                        "resources": [base[i] * v["mult"] for i in range(4)],
                    }
                )
                if v["kind"] == "factory":
                    v["mult"] = 3
            elif not linked and v["kind"] == "factory" and v["mult"] < R.MAX_MULTIPLIER:
                v["mult"] += 1
                events.append({"type": "stored", "seat": seat, "vehicle": v["id"], "multiplier": v["mult"]})
        for i in range(4):
            state["totals"][seat][i] += gained[i]
            state["round_yield"][seat][i] += gained[i]
        events.append({"type": "scored", "seat": seat, "resources": gained})

    def _vehicle_upkeep(self, v: dict[str, Any]) -> list[int]:
        crew = R.CREW[v["kind"]]
        base = R.YIELD[v["pos"]]
        return [0 if base[i] else crew for i in range(4)]

    def _compute_upkeep(self, state: State, seat: int) -> bool:
        need = [0, 0, 0, 0]
        for v in state["vehicles"]:
            if v["owner"] == seat:
                for i, n in enumerate(self._vehicle_upkeep(v)):
                    need[i] += n
        state["upkeep_need"] = need
        return any(need)

    def _pay_upkeep(self, state: State, seat: int, events: list[dict[str, Any]]) -> None:
        tot = state["totals"][seat]
        paid = [0, 0, 0, 0]
        lost = []
        for v in sorted([v for v in state["vehicles"] if v["owner"] == seat], key=lambda v: v["id"]):
            need = self._vehicle_upkeep(v)
            if all(tot[i] >= need[i] for i in range(4)):
                for i in range(4):
                    tot[i] -= need[i]
                    paid[i] += need[i]
            else:
                state["vehicles"].remove(v)
                lost.append(v["id"])
        state["upkeep_need"] = [0, 0, 0, 0]
        events.append({"type": "upkeep_paid", "seat": seat, "resources": paid, "lost": lost})

    def _start_turn(self, state: State) -> None:
        seat = self.current(state)
        state["moved"] = []
        state["start_meeting"] = {
            str(v["id"]): [v["pos"], v["line"]]
            for v in state["vehicles"]
            if v["owner"] == seat and on_meeting_point(state, v)
        }

    def _end_turn(self, state: State, seat: int, rng: Rng, events: list[dict[str, Any]]) -> None:
        state["moved"] = []
        state["start_meeting"] = {}
        state["asked"] = []
        if state["opts"]["race_250"] and sum(state["totals"][seat]) >= R.RACE_TARGET:
            state["race_winner"] = seat
            state["phase"] = "over"
            events.append({"type": "race_won", "seat": seat, "total": sum(state["totals"][seat])})
            self._close_round(state)
            return
        state["turn"] += 1
        if state["turn"] < state["players"]:
            state["phase"] = "play"
            self._start_turn(state)
            return
        self._close_round(state)
        if state["round"] >= R.ROUNDS:
            state["phase"] = "over"
            events.append({"type": "game_over", "rounds": state["round"]})
            return
        state["round"] += 1
        state["order"] = self._next_order(state, rng)
        state["turn"] = 0
        state["phase"] = "play"
        events.append({"type": "round_started", "round": state["round"], "order": list(state["order"])})
        self._start_turn(state)

    def _close_round(self, state: State) -> None:
        state["sheet"].append({"round": state["round"], "yields": [list(y) for y in state["round_yield"]]})
        state["last_yield"] = [list(y) for y in state["round_yield"]]
        state["round_yield"] = [[0, 0, 0, 0] for _ in range(state["players"])]

    def _next_order(self, state: State, rng: Rng) -> list[int]:
        """The explorer with the lowest yield of the round starts; ties by least water,
        energy, biomass, bronze, then by lot; then clockwise."""
        last = state["sheet"][-1]["yields"]

        def key(seat: int) -> tuple[int, ...]:
            y = last[seat]
            return (sum(y), *(y[i] for i in R.TIE_ORDER))

        keys = {s: key(s) for s in range(state["players"])}
        low = min(keys.values())
        tied = [s for s in range(state["players"]) if keys[s] == low]
        first = tied[0] if len(tied) == 1 else tied[rng.below(len(tied))]
        state["last_order_tie"] = len(tied) > 1
        return [(first + i) % state["players"] for i in range(state["players"])]

    # -- views ----------------------------------------------------------------------------

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        positions = []
        for p, pid in enumerate(R.POSITIONS):
            stack = state["table"][p]
            top = None
            if stack:
                entry = stack[-1]
                lines, meet = R.CARDS[entry["card"]].masks(entry["flip"])
                top = {"card": entry["card"], "flip": entry["flip"], "lines": R.bits(lines), "meeting": R.bits(meet)}
            positions.append(
                {
                    "position": pid,
                    "top": top,
                    "stack": [dict(e) for e in stack],
                    "pile": len(state["piles"][p]),
                    "yield": dict(zip(R.RESOURCES, R.YIELD[p], strict=True)),
                }
            )
        over = state["phase"] == "over"
        view: dict[str, Any] = {
            "game": R.GAME_ID,
            "players": state["players"],
            "options": dict(state["opts"]),
            "round": state["round"],
            "rounds": R.ROUNDS,
            "order": list(state["order"]),
            "phase": state["phase"],
            "to_act": self.to_act(state),
            "positions": positions,
            "reserve": len(state["reserve"]),
            "hand_sizes": [len(h) for h in state["hands"]],
            "vehicles": [
                {
                    "id": v["id"],
                    "owner": v["owner"],
                    "kind": v["kind"],
                    "multiplier": v["mult"],
                    "position": R.POSITIONS[v["pos"]],
                    "line": v["line"],
                    "meeting_point": on_meeting_point(state, v),
                    "connected": connected_to_earth(state, v),
                }
                for v in sorted(state["vehicles"], key=lambda v: v["id"])
            ],
            "moved": list(state["moved"]),
            "began_on_meeting_point": [
                {"vehicle": int(vid), "position": R.POSITIONS[pos], "line": line}
                for vid, (pos, line) in sorted(state["start_meeting"].items(), key=lambda item: int(item[0]))
            ],
            "shift": None
            if state["shift_pos"] is None
            else {"position": R.POSITIONS[state["shift_pos"]], "forced": state["shift_forced"]},
            "asked": list(state["asked"]),
            "score_sheet": self._sheet_view(state, seat),
            "upkeep_due": list(state["upkeep_need"]) if state["phase"] in ("upkeep", "barter") else None,
            "offer": dict(state["offer"]) if state["offer"] else None,
        }
        if seat is not None:
            view["seat"] = seat
            view["hand"] = [dict(R.CARDS[c].face) for c in state["hands"][seat]]
        if over:
            view["outcome"] = self.outcome(state)
        return view

    def _sheet_view(self, state: State, seat: int | None) -> dict[str, Any]:
        hide = state["opts"]["hidden_totals"] and state["phase"] != "over"

        def shown(s: int, value: list[int]) -> list[int] | None:
            return None if hide and s != seat else list(value)

        return {
            "resources": list(R.RESOURCES),
            "totals": [shown(s, t) for s, t in enumerate(state["totals"])],
            "this_round": [list(y) for y in state["round_yield"]],
            "rounds": [
                {"round": r["round"], "yields": [shown(s, y) for s, y in enumerate(r["yields"])]}
                for r in state["sheet"]
            ],
        }

    # -- outcome --------------------------------------------------------------------------

    def outcome(self, state: State) -> Outcome | None:
        if state["phase"] != "over":
            return None
        n = state["players"]
        totals = state["totals"]
        tie = [[totals[s][i] for i in R.TIE_ORDER] for s in range(n)]
        if state["opts"]["race_250"]:
            scores = [sum(t) for t in totals]
            winner = state["race_winner"]
            keys = [((1 if s == winner else 0), scores[s], *tie[s]) for s in range(n)]
            detail: dict[str, Any] = {"rule": "race_250", "race_winner": winner}
            end_reason = "reached_250" if winner is not None else "twelve_rounds"
        else:
            led = [0] * n
            for i in range(4):
                best = max(totals[s][i] for s in range(n))
                if best <= 0:
                    continue
                for s in range(n):
                    if totals[s][i] == best:
                        led[s] += 1
            scores = led
            keys = [(led[s], *tie[s]) for s in range(n)]
            detail = {"rule": "types_led", "types_led": led}
            end_reason = "twelve_rounds"
        ranks = [1 + sum(1 for o in range(n) if keys[o] > keys[s]) for s in range(n)]
        detail["totals"] = {r: [totals[s][i] for s in range(n)] for i, r in enumerate(R.RESOURCES)}
        detail["rounds_played"] = len(state["sheet"])
        detail["end_reason"] = end_reason
        return {
            "scores": scores,
            "ranks": ranks,
            "winners": [s for s in range(n) if ranks[s] == 1],
            "detail": detail,
        }

    # -- history and reasons --------------------------------------------------------------

    def redact_action(self, action: Action, actor: int, viewer: int | None) -> Action:
        if action.get("type") == "exchange" and viewer != actor:
            return {"type": "exchange", "card": None}
        return action

    def explain(self, state: State, seat: int, action: Action) -> IllegalAction:
        kind = action.get("type")
        phase = state["phase"]
        expected = {
            "play": "play",
            "exchange": "play",
            "skip_play": "play",
            "shift": "shift",
            "skip_shift": "shift",
            "draw": "draw",
            "build": "build",
            "combine": "build",
            "skip_build": "build",
            "move": "move",
            "end_moves": "move",
            "trade": "upkeep",
            "pay_upkeep": "upkeep",
            "offer": "upkeep",
            "accept_offer": "barter",
            "decline_offer": "barter",
        }.get(str(kind))
        if kind == "draw" and phase == "deal":
            return IllegalAction(
                "pile_rule",
                "In the beginners' deal the fourth card comes from a non-empty middle or far pile (asteroids … pluto).",
                rule="set-up",
            )
        if expected != phase:
            return IllegalAction(
                "wrong_phase", f"{kind!r} is not possible in phase {phase!r} of the turn.", rule="four phases"
            )
        if kind == "draw":
            return IllegalAction("pile_rule", f"The pile {action.get('pile')!r} is empty.", rule="phase 1")
        if kind in ("shift", "skip_shift"):
            if state["shift_forced"] is not None:
                return IllegalAction(
                    "orbit_kept",
                    f"Your vehicle {state['shift_forced']} lost its orbit on the new "
                    "card and must move to another orbit of that card.",
                    rule="phase 1",
                )
            return IllegalAction(
                "shift_rule",
                "Shift one own vehicle on the card just played to another orbit "
                "carried by that card and not held by another explorer.",
                rule="phase 1",
            )
        if kind in ("play", "exchange"):
            if action.get("card") not in state["hands"][seat]:
                return IllegalAction(
                    "card_not_in_hand", f"Card {action.get('card')!r} is not in your hand.", rule="phase 1"
                )
        if kind == "exchange" and self._first_play(state):
            return IllegalAction(
                "first_play", "The first explorer must lay his highest Earth card on Earth.", rule="start of the game"
            )
        if kind == "play":
            card = R.CARDS[action["card"]]
            if self._first_play(state):
                return IllegalAction(
                    "first_play",
                    "The first explorer must lay his highest Earth card on Earth.",
                    rule="start of the game",
                )
            pos = R.POS_INDEX.get(str(action.get("position")), -1)
            if action.get("flip") and not state["opts"]["beginners"]:
                return IllegalAction(
                    "upside_down",
                    "Cards may be played upside down only in the beginners' variant.",
                    rule="beginners' variant",
                )
            if card.wild and pos not in R.WILD_POSITIONS:
                return IllegalAction(
                    "wild_position", "A wild card is a planet/asteroid card: Mercury to Saturn only.", rule="wild card"
                )
            if not card.wild and pos != card.home:
                return IllegalAction(
                    "wrong_position", f"{card.id} belongs to {R.POSITIONS[card.home]}.", rule="phase 1"
                )
            t = state["table"]
            if not (t[pos] or (pos > 0 and t[pos - 1]) or (pos + 1 < R.NPOS and t[pos + 1])):
                return IllegalAction(
                    "placement_rule", "A card goes on or beside an already revealed card.", rule="phase 1"
                )
            why = self._orbits_kept(state, seat, pos, card.masks(bool(action.get("flip")))[0])
            if why == "orbit_kept":
                return IllegalAction(
                    "orbit_kept",
                    "The new card must keep every orbital line on which another explorer's vehicle stands.",
                    rule="phase 1",
                )
            if why:
                return IllegalAction(
                    "orbit_kept",
                    "Only one own vehicle may change orbit on the new card, and it needs a free orbit there.",
                    rule="phase 1",
                )
        if kind == "build":
            if len([v for v in state["vehicles"] if v["owner"] == seat]) >= R.MAX_VEHICLES:
                return IllegalAction(
                    "vehicle_limit", f"Each explorer has {R.MAX_VEHICLES} dice (vehicles).", rule="phase 2"
                )
            return IllegalAction(
                "no_free_orbit", "A ship is built on a free orbital line of the Earth card.", rule="phase 2"
            )
        if kind == "combine":
            return IllegalAction(
                "combine_rule",
                "Combine 2 ships into a station, or a station and a ship or 3 ships "
                "into a factory, all on the same meeting point since the start of the turn.",
                rule="phase 2",
            )
        if kind == "move":
            vid = action.get("vehicle")
            if vid in state["moved"]:
                return IllegalAction("already_moved", "Each vehicle moves once per turn.", rule="phase 3")
            mine = [v for v in state["vehicles"] if v["id"] == vid and v["owner"] == seat]
            if not mine:
                return IllegalAction("not_your_vehicle", f"You have no vehicle {vid!r}.", rule="phase 3")
            if mine[0]["kind"] != "ship" and R.POS_INDEX.get(str(action.get("position"))) != mine[0]["pos"]:
                return IllegalAction("movement_rule", "Stations and factories only change orbit.", rule="phase 3")
            return IllegalAction(
                "movement_rule",
                "Ships move along an unbroken orbital line to another card or change "
                "orbit on their card; no slot held by another explorer.",
                rule="phase 3",
            )
        if kind == "offer":
            return IllegalAction(
                "barter_rule",
                "Barter only with an explorer (asked once per turn) who has a vehicle "
                "on a meeting point of a planet where you have one, for a resource you are short "
                "of, 1:1 for your shortfall.",
                rule="upkeep variant",
            )
        if kind == "accept_offer":
            return IllegalAction(
                "barter_rule", "You do not hold enough of the requested resource.", rule="upkeep variant"
            )
        if kind == "trade":
            if self._barter_partners(state, seat):
                return IllegalAction(
                    "trade_rule",
                    "The government trades only when barter is not possible: first "
                    "offer a barter to each explorer you meet at a planet.",
                    rule="upkeep variant",
                )
            return IllegalAction(
                "trade_rule",
                f"Trade {R.TRADE_FACTOR} of a resource you hold for 1 you are short of.",
                rule="upkeep variant",
            )
        return super().explain(state, seat, action)
