"""L'Isola dei Vulcani (Mainini and Sopranzetti, Pendragon 2019) as a referee engine.

The board, tiles, craters, die and component counts are data in ``seeds/isola-dei-vulcani/``;
docs/isola-dei-vulcani.md lists the rules as implemented and every choice where the rulebook
is silent.

A turn is a sequence of atomic actions costing action points (AP) plus ``end_turn``. Chance
(the eruption die, the volcano tokens) resolves inside ``perform``. Two kinds of decisions
interrupt play and may involve several seats at once:

- ``prayer``: lava is about to destroy lying Moai or villages; every player holding prayer
  tokens may spend them on any threatened piece (``pray``) or let the rest burn
  (``accept_loss``);
- ``rescue``: part of the island sinks; first the acting player may move all their colonists
  in it onto one adjacent hex, then every other player one colonist, unseen by each other
  until all have answered (``rescue`` or ``abandon``).

Follow-up steps (eruption, scoring of an erected Moai, sinking check, double eruption) wait in
``state["queue"]`` while a decision is open.
"""

from __future__ import annotations

from typing import Any

from service.engine import Action, ActionType, Event, Game, IllegalAction, Option, Outcome, Rng, State, View, load_seed
from service.games.isola_dei_vulcani import board as B
from service.games.isola_dei_vulcani import faults as F
from service.games.isola_dei_vulcani.state import (
    PIECES,
    Decision,
    IsolaState,
    Piece,
    Seat,
    Step,
    pieces_on,
    prayer_decision,
    rescue_decision,
    upgrade_state,
)

GAME_ID = B.GAME_ID
HEX = {"type": "string", "pattern": "^-?[0-9]+,-?[0-9]+$"}
_ENCLOSED: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}


def _rules() -> dict[str, Any]:
    return load_seed(GAME_ID, "rules")


def moai_groups(where: list[str]) -> list[list[str]]:
    """Groups of Moai (given by the hex of each, lying or erected) linked by adjacency; Moai
    on the same hex are adjacent too."""
    left = list(where)
    groups = []
    while left:
        group = [left.pop()]
        i = 0
        while i < len(group):
            near = [k for k in left if k == group[i] or B.distance(k, group[i]) == 1]
            for k in near:
                left.remove(k)
            group.extend(near)
            i += 1
        groups.append(group)
    return groups


def _back_to_supply(seat: Seat, piece: Piece) -> None:
    """A village or Moai leaves the board (lava, a sinking) and returns to its owner."""
    if piece == "village":
        seat["villages_in_supply"] += 1
    else:
        seat["moai_in_supply"] += 1


class IsolaDeiVulcani(Game[IsolaState]):
    id = GAME_ID
    title = "L'Isola dei Vulcani"
    min_players = 2
    max_players = 4
    options = (
        Option(
            "setup",
            "enum",
            "standard",
            "Map set-up: 'standard' (the fixed map, one shared landing bay) or 'advanced' "
            "(a random legal map built in the rulebook's three phases, one landing bay per player).",
            choices=("standard", "advanced"),
        ),
    )
    action_types = (
        ActionType(
            "move",
            "Move one of your colonists to an adjacent hex, never across a crack (1 AP). "
            "from 'boat' lands a colonist from your boat on a hex of your landing bay.",
            {"from": {"type": "string"}, "to": HEX},
        ),
        ActionType(
            "move_moai",
            "Move one of your colonists together with one of your lying Moai to an adjacent hex (1 AP).",
            {"from": HEX, "to": HEX},
        ),
        ActionType(
            "build",
            "Build a village on the lava of a hex where you have a colonist (2 AP, 1 point).",
            {"hex": HEX},
        ),
        ActionType(
            "create",
            "Create a colonist on a hex with your village and your colonist (1 AP; per area and "
            "turn at most as many as your villages in that area).",
            {"hex": HEX},
        ),
        ActionType(
            "carve",
            "Carve a Moai (lying) from the lava of a hex where you have a colonist (1 AP).",
            {"hex": HEX},
        ),
        ActionType(
            "erect",
            "Erect one of your lying Moai on the crater of a geyser of its hex where you have a "
            "colonist (1 AP): crack in front of it, eruption roll, points, sinking check.",
            {"geyser": {"type": "integer", "minimum": 0}},
        ),
        ActionType(
            "buy_prayer",
            "Take a prayer token (1 AP + 1 per token you hold; once a turn).",
            {},
        ),
        ActionType("end_turn", "End your turn.", {}),
        ActionType(
            "pray",
            "Spend a prayer token to save one village or lying Moai (of any colour: 'owner' is "
            "its seat) on a hex the lava is about to cover.",
            {"hex": HEX, "piece": {"enum": ["village", "moai"]}, "owner": {"type": "integer", "minimum": 0}},
        ),
        ActionType("accept_loss", "Spend no (more) prayer tokens on this eruption.", {}),
        ActionType(
            "rescue",
            "Save colonists from a sinking part onto an adjacent hex (all of them if you are the "
            "acting player, one otherwise).",
            {"to": HEX},
        ),
        ActionType("abandon", "Save no colonist from the sinking part.", {}),
        ActionType(
            "claim_sinking",
            "Sink a part of the island already enclosed by cracks and sea that did not sink "
            "(late-noticed sinking, 3 points).",
            {},
        ),
    )

    # -- set-up ---------------------------------------------------------------------------

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> IsolaState:
        rules = _rules()
        mode = options.get("setup", "standard")
        if mode == "advanced":
            placements, craters = F.breakable_map(rng, rules["crack_tiles"])
        else:
            standard = B.standard_map()
            placements, craters = standard["placements"], standard["craters"]
        built = B.build_board(placements, craters)
        hexes: dict[str, Any] = {}
        for k, h in built["hexes"].items():
            hexes[k] = {
                "tile": h["tile"],
                "volcano": h["volcano"],
                "lava": self.starts_with_lava(built, k),
                "villages": [],
                "lying_moai": [],
                "colonists": [0] * players,
            }
        lava_on_board = sum(1 for h in hexes.values() if h["lava"])
        if mode == "advanced":
            bays = B.choose_bays(hexes, players, rng)
            rng.shuffle(bays)
        else:
            bay = B.standard_map()["bay"]
            bays = [list(bay) for _ in range(players)]
        pile = sorted(int(v) for v in built["volcanoes"])
        rng.shuffle(pile)
        per = rules["per_player"]
        first = rng.below(players)
        return {
            "players": players,
            "setup": mode,
            "placements": placements,
            "hexes": hexes,
            "volcanoes": built["volcanoes"],
            "geysers": [{"hex": g["hex"], "dir": g["dir"], "moai": g["moai"], "sunk": False} for g in built["geysers"]],
            "cracks": [],
            "volcano_tokens": pile,
            "supply": {
                "lava": rules["lava_tiles"] - lava_on_board,
                "cracks": rules["crack_tiles"],
                "prayer": rules["prayer_tokens"],
            },
            "seats": [
                {
                    "villages_in_supply": per["villages"],
                    "colonists_in_supply": per["colonists"] - 1,
                    "moai_in_supply": per["moai"],
                    "prayer_tokens": 0,
                    "score": 0,
                    "colonists_on_boat": 1,
                    "landing_bay": bays[s],
                }
                for s in range(players)
            ],
            "first_player": first,
            "current": first,
            "round": 1,
            "action_points": rules["action_points"],
            "prayer_bought_this_turn": False,
            "created_this_turn": {},
            "queue": [],
            "decision": None,
            "double_eruption_armed": False,
            "final_round": False,
            "end_reason": None,
            "over": False,
            "final_breakdown": None,
            "last_roll": None,
        }

    @staticmethod
    def starts_with_lava(board: dict[str, Any], k: str) -> bool:
        """Set-up lava: "in every area with a volcano, only on the first space around the
        volcano"; on every space of the areas without one. A hex of a volcano area that is not
        next to its own area's volcano starts bare, even when another area's volcano is near."""
        cell = board["hexes"][k]
        if cell["volcano"] is not None:
            return False
        own = board["volcanoes"].get(str(cell["tile"]))
        return own is None or own in B.neighbours(k)

    def upgrade_state(self, stored: State) -> IsolaState:
        """States stored with the first, terse keys read with today's (:mod:`.state`)."""
        return upgrade_state(stored)

    # -- whose decision -------------------------------------------------------------------

    def to_act(self, state: IsolaState) -> list[int]:
        if state["over"]:
            return []
        d = state["decision"]
        if d is not None:
            return sorted(d["waiting"])
        return [state["current"]]

    # -- legal actions --------------------------------------------------------------------

    def legal_actions(self, state: IsolaState, seat: int) -> list[Action]:
        if state["over"]:
            return []
        d = state["decision"]
        if d is not None:
            if seat not in d["waiting"]:
                return []
            if d["kind"] == "prayer":
                return self._prayer_actions(state, seat) + [{"type": "accept_loss"}]
            return [{"type": "rescue", "to": t} for t in d["targets"]] + [{"type": "abandon"}]
        if seat != state["current"]:
            return []
        return self._turn_actions(state, seat)

    def _turn_actions(self, state: IsolaState, p: int) -> list[Action]:
        out: list[dict[str, Any]] = []
        ap = state["action_points"]
        me = state["seats"][p]
        hexes = state["hexes"]
        if ap >= 1:
            cracks = set(state["cracks"])
            if me["colonists_on_boat"] > 0:
                for b in self._landing(state, p):
                    out.append({"type": "move", "from": "boat", "to": b})
            free_geysers: dict[str, list[int]] = {}
            for i, g in enumerate(state["geysers"]):
                if not g["sunk"] and g["moai"] is None:
                    free_geysers.setdefault(g["hex"], []).append(i)
            for k, h in hexes.items():
                if h["colonists"][p] <= 0:
                    continue
                own_moai = p in h["lying_moai"]
                for n in B.neighbours(k):
                    nh = hexes.get(n)
                    if nh is None or B.edge(k, n) in cracks:
                        continue
                    out.append({"type": "move", "from": k, "to": n})
                    if own_moai and nh["volcano"] is None:
                        out.append({"type": "move_moai", "from": k, "to": n})
                if h["lava"]:
                    if me["moai_in_supply"] > 0:
                        out.append({"type": "carve", "hex": k})
                    if ap >= 2 and me["villages_in_supply"] > 0:
                        out.append({"type": "build", "hex": k})
                if p in h["villages"] and me["colonists_in_supply"] > 0:
                    tile = h["tile"]
                    if state["created_this_turn"].get(str(tile), 0) < self._villages_in_tile(state, tile, p):
                        out.append({"type": "create", "hex": k})
                if own_moai:
                    for i in free_geysers.get(k, ()):
                        out.append({"type": "erect", "geyser": i})
            if not state["prayer_bought_this_turn"] and state["supply"]["prayer"] > 0 and ap >= 1 + me["prayer_tokens"]:
                out.append({"type": "buy_prayer"})
        if self._enclosed_parts(state):
            out.append({"type": "claim_sinking"})
        out.append({"type": "end_turn"})
        return out

    def _prayer_actions(self, state: IsolaState, seat: int) -> list[Action]:
        d = prayer_decision(state)
        if state["seats"][seat]["prayer_tokens"] <= 0:
            return []
        out: list[Action] = []
        for h in d["targets"]:
            cell = state["hexes"][h]
            for piece in PIECES:
                for owner in sorted(set(pieces_on(cell, piece))):
                    if self._unsaved(state, h, piece, owner) > 0:
                        out.append({"type": "pray", "hex": h, "piece": piece, "owner": owner})
        return out

    def _unsaved(self, state: IsolaState, h: str, piece: Piece, owner: int) -> int:
        """How many of ``owner``'s pieces of this kind on ``h`` no prayer has saved yet."""
        have = pieces_on(state["hexes"][h], piece).count(owner)
        saved = sum(1 for s in prayer_decision(state)["saved"] if s == [h, piece, owner])
        return have - saved

    def _landing(self, state: IsolaState, p: int) -> list[str]:
        hexes = state["hexes"]
        bay = [b for b in state["seats"][p]["landing_bay"] if b in hexes and hexes[b]["volcano"] is None]
        return bay or B.coast_hexes(hexes)

    @staticmethod
    def _villages_in_tile(state: IsolaState, tile: int, p: int) -> int:
        return sum(h["villages"].count(p) for h in state["hexes"].values() if h["tile"] == tile)

    # -- performing -----------------------------------------------------------------------

    def perform(self, state: IsolaState, seat: int, action: Action, rng: Rng) -> tuple[IsolaState, list[Event]]:
        events: list[Event] = []
        t = action["type"]
        state["double_eruption_armed"] = True
        if t == "pray":
            self._do_pray(state, seat, action, events)
        elif t == "accept_loss":
            prayer_decision(state)["waiting"].remove(seat)
            self._close_prayer_if_done(state, events)
        elif t in ("rescue", "abandon"):
            d = rescue_decision(state)
            d["moves"][str(seat)] = action["to"] if t == "rescue" else None
            d["waiting"].remove(seat)
            if d["stage"] == "actor":
                events.append({"type": "rescue_chosen", "seat": seat, "dest": d["moves"][str(seat)]})
                d["stage"], d["waiting"] = "others", list(d["others"])
            if not d["waiting"]:
                state["decision"] = None
                self._sink_part(state, d["part"], d["moves"], d["actor"], d["late"], events)
        elif t == "end_turn":
            state["double_eruption_armed"] = False
            self._end_turn(state, seat, events)
        elif t == "claim_sinking":
            self._claim_sinking(state, seat, rng, events)
        else:
            self._do_turn_action(state, seat, action, events)
        self._settle(state, rng, events)
        return state, events

    def _do_turn_action(self, state: IsolaState, p: int, action: Action, events: list[Event]) -> None:
        t = action["type"]
        hexes = state["hexes"]
        me = state["seats"][p]
        if t == "move":
            src, dst = action["from"], action["to"]
            if src == "boat":
                me["colonists_on_boat"] -= 1
            else:
                hexes[src]["colonists"][p] -= 1
            hexes[dst]["colonists"][p] += 1
            state["action_points"] -= 1
            events.append({"type": "moved", "seat": p, "from": src, "dest": dst})
        elif t == "move_moai":
            src, dst = action["from"], action["to"]
            hexes[src]["colonists"][p] -= 1
            hexes[src]["lying_moai"].remove(p)
            hexes[dst]["colonists"][p] += 1
            hexes[dst]["lying_moai"].append(p)
            state["action_points"] -= 1
            events.append({"type": "moved_moai", "seat": p, "from": src, "dest": dst})
        elif t == "build":
            h = hexes[action["hex"]]
            h["lava"] = False
            state["supply"]["lava"] += 1
            h["villages"].append(p)
            me["villages_in_supply"] -= 1
            pts = _rules()["scoring"]["village_built"]
            me["score"] += pts
            state["action_points"] -= 2
            events.append({"type": "built", "seat": p, "hex": action["hex"], "points": pts})
        elif t == "create":
            h = hexes[action["hex"]]
            h["colonists"][p] += 1
            me["colonists_in_supply"] -= 1
            tile = str(h["tile"])
            state["created_this_turn"][tile] = state["created_this_turn"].get(tile, 0) + 1
            state["action_points"] -= 1
            events.append({"type": "created", "seat": p, "hex": action["hex"]})
        elif t == "carve":
            h = hexes[action["hex"]]
            h["lava"] = False
            state["supply"]["lava"] += 1
            h["lying_moai"].append(p)
            me["moai_in_supply"] -= 1
            state["action_points"] -= 1
            events.append({"type": "carved", "seat": p, "hex": action["hex"]})
        elif t == "buy_prayer":
            cost = 1 + me["prayer_tokens"]
            state["action_points"] -= cost
            me["prayer_tokens"] += 1
            state["supply"]["prayer"] -= 1
            state["prayer_bought_this_turn"] = True
            events.append({"type": "prayer_bought", "seat": p, "cost": cost})
        elif t == "erect":
            gi = action["geyser"]
            g = state["geysers"][gi]
            hexes[g["hex"]]["lying_moai"].remove(p)
            g["moai"] = p
            state["action_points"] -= 1
            crack = None
            other = B.step(g["hex"], g["dir"])
            if other in hexes:
                e = B.edge(g["hex"], other)
                if e not in state["cracks"] and state["supply"]["cracks"] > 0:
                    state["cracks"].append(e)
                    state["cracks"].sort()
                    state["supply"]["cracks"] -= 1
                    crack = e
            events.append({"type": "erected", "seat": p, "geyser": gi, "hex": g["hex"], "crack": crack})
            follow_up: list[Step] = [{"step": "roll"}, {"step": "score", "seat": p, "geyser": gi}, {"step": "sink"}]
            state["queue"] = follow_up + state["queue"]

    # -- the follow-up queue ----------------------------------------------------------------

    def _settle(self, state: IsolaState, rng: Rng, events: list[Event]) -> None:
        while True:
            while state["decision"] is None and state["queue"] and not state["over"]:
                st = state["queue"].pop(0)
                kind = st["step"]
                if kind == "roll":
                    self._roll(state, rng, events)
                elif kind == "erupt":
                    self._erupt(state, st["volcano"], events)
                elif kind == "score":
                    self._score_moai(state, st["seat"], st["geyser"], events)
                elif kind == "sink":
                    self._check_sink(state, rng, events, late=False, actor=state["current"])
            if state["decision"] is not None or state["over"] or state["queue"]:
                return
            if not state["double_eruption_armed"]:
                return
            state["double_eruption_armed"] = False
            if any(h["lava"] for h in state["hexes"].values()) or not state["volcano_tokens"]:
                return
            drawn = self._draw(state, rng, 2)
            events.append({"type": "double_eruption", "volcanoes": drawn})
            state["queue"].extend({"step": "erupt", "volcano": v} for v in drawn)

    def _draw(self, state: IsolaState, rng: Rng, n: int) -> list[int]:
        """Draw ``n`` volcano tokens at random, note them, and return them to the pile."""
        pile = state["volcano_tokens"]
        rng.shuffle(pile)
        drawn = pile[:n]
        rng.shuffle(pile)
        return drawn

    def _roll(self, state: IsolaState, rng: Rng, events: list[Event]) -> None:
        faces = _rules()["die"]
        face = faces[rng.below(len(faces))]
        state["last_roll"] = face
        if face != "volcano" or not state["volcano_tokens"]:
            events.append({"type": "die", "face": face, "volcano": None})
            return
        v = self._draw(state, rng, 1)[0]
        events.append({"type": "die", "face": face, "volcano": v})
        state["queue"].insert(0, {"step": "erupt", "volcano": v})

    def lava_targets(self, state: IsolaState, v: int) -> list[str]:
        """The first hex without lava in each of the six directions from volcano ``v``."""
        hexes = state["hexes"]
        vk = state["volcanoes"].get(str(v))
        if vk is None:
            return []
        out = []
        for d in range(6):
            k = 1
            while True:
                h = B.step(vk, d, k)
                cell = hexes.get(h)
                if cell is None or cell["volcano"] is not None:
                    break
                if not cell["lava"]:
                    out.append(h)
                    break
                k += 1
        return out[: max(0, state["supply"]["lava"])]

    def _erupt(self, state: IsolaState, v: int, events: list[Event]) -> None:
        targets = self.lava_targets(state, v)
        events.append({"type": "eruption", "volcano": v, "lava": targets})
        hexes = state["hexes"]
        # A prayer token saves "a Moai or a village", anyone's: every holder may answer.
        threatened = any(hexes[h]["villages"] or hexes[h]["lying_moai"] for h in targets)
        waiting = [s for s in range(state["players"]) if threatened and state["seats"][s]["prayer_tokens"] > 0]
        if waiting:
            state["decision"] = {
                "kind": "prayer",
                "volcano": v,
                "targets": targets,
                "saved": [],
                "waiting": waiting,
            }
        else:
            self._apply_lava(state, targets, [], events)

    def _do_pray(self, state: IsolaState, seat: int, action: Action, events: list[Event]) -> None:
        d = prayer_decision(state)
        d["saved"].append([action["hex"], action["piece"], action["owner"]])
        state["seats"][seat]["prayer_tokens"] -= 1
        events.append(
            {"type": "prayed", "seat": seat, "hex": action["hex"], "piece": action["piece"], "owner": action["owner"]}
        )
        # Whoever has nothing left to save (no token, or every piece saved) is done.
        d["waiting"] = [s for s in d["waiting"] if self._prayer_actions(state, s)]
        self._close_prayer_if_done(state, events)

    def _close_prayer_if_done(self, state: IsolaState, events: list[Event]) -> None:
        d = prayer_decision(state)
        if d["waiting"]:
            return
        state["decision"] = None
        self._apply_lava(state, d["targets"], d["saved"], events)

    def _apply_lava(self, state: IsolaState, targets: list[str], saved: list[list[Any]], events: list[Event]) -> None:
        hexes = state["hexes"]
        for h in targets:
            cell = hexes[h]
            destroyed = []
            for piece in PIECES:
                keep: list[int] = []
                on_hex = pieces_on(cell, piece)
                for s in on_hex:
                    if [h, piece, s] in saved and keep.count(s) < saved.count([h, piece, s]):
                        keep.append(s)
                    else:
                        _back_to_supply(state["seats"][s], piece)
                        destroyed.append({"seat": s, "piece": piece})
                on_hex[:] = keep
            cell["lava"] = True
            state["supply"]["lava"] -= 1
            if destroyed:
                events.append({"type": "destroyed", "hex": h, "pieces": destroyed})

    def moai_points(self, state: IsolaState, p: int, gi: int) -> int:
        """Points for seat ``p`` having erected the Moai on geyser ``gi`` (area = its tile)."""
        hexes = state["hexes"]
        tile = hexes[state["geysers"][gi]["hex"]]["tile"]
        villages = self._villages_in_tile(state, tile, p)
        if villages == 0:
            return 1
        moai = sum(1 for g in state["geysers"] if not g["sunk"] and g["moai"] == p and hexes[g["hex"]]["tile"] == tile)
        return moai * villages

    def _score_moai(self, state: IsolaState, p: int, gi: int, events: list[Event]) -> None:
        g = state["geysers"][gi]
        if g["sunk"] or g["hex"] not in state["hexes"]:
            return
        pts = self.moai_points(state, p, gi)
        state["seats"][p]["score"] += pts
        events.append({"type": "moai_points", "seat": p, "geyser": gi, "points": pts})

    # -- sinking --------------------------------------------------------------------------

    def components(self, state: IsolaState) -> list[list[str]]:
        """The parts of the island: hexes connected across edges without a crack."""
        hexes = state["hexes"]
        cracks = set(state["cracks"])
        seen: set[str] = set()
        parts = []
        for start in sorted(hexes):
            if start in seen:
                continue
            part = [start]
            seen.add(start)
            i = 0
            while i < len(part):
                k = part[i]
                i += 1
                for n in B.neighbours(k):
                    if n in hexes and n not in seen and B.edge(k, n) not in cracks:
                        seen.add(n)
                        part.append(n)
            parts.append(sorted(part))
        return parts

    def _enclosed_parts(self, state: IsolaState) -> bool:
        """Whether some part of the island is enclosed (cached per island shape and cracks)."""
        if not state["cracks"] or state["decision"] is not None:
            return False
        sig = (tuple(state["hexes"]), tuple(state["cracks"]))
        found = _ENCLOSED.get(sig)
        if found is None:
            if len(_ENCLOSED) > 4096:
                _ENCLOSED.clear()
            found = _ENCLOSED[sig] = len(self.components(state)) > 1
        return found

    def _sinking_part(self, state: IsolaState, parts: list[list[str]], rng: Rng, events: list[Event]) -> list[str]:
        """The rulebook's choice: fewest hexes, then fewest volcanoes, then a drawn token."""
        hexes = state["hexes"]

        def volcanoes(part: list[str]) -> int:
            return sum(1 for k in part if hexes[k]["volcano"] is not None)

        fewest = min(len(p) for p in parts)
        cands = [p for p in parts if len(p) == fewest]
        if len(cands) > 1:
            least = min(volcanoes(p) for p in cands)
            cands = [p for p in cands if volcanoes(p) == least]
        if len(cands) == 1:
            return cands[0]
        where = {hexes[k]["volcano"]: i for i, p in enumerate(cands) for k in p if hexes[k]["volcano"]}
        pile = [v for v in state["volcano_tokens"] if v in where]
        if pile:
            rng.shuffle(state["volcano_tokens"])
            v = next(v for v in state["volcano_tokens"] if v in where)
            rng.shuffle(state["volcano_tokens"])
            events.append({"type": "sinking_draw", "volcano": v})
            return cands[where[v]]
        return cands[rng.below(len(cands))]

    def _check_sink(self, state: IsolaState, rng: Rng, events: list[Event], *, late: bool, actor: int) -> None:
        parts = self.components(state)
        if len(parts) < 2:
            return
        part = self._sinking_part(state, parts, rng, events)
        hexes = state["hexes"]
        pset = set(part)
        targets = sorted({n for k in part for n in B.neighbours(k) if n in hexes and n not in pset})
        holders = []
        if targets:
            holders = [s for s in range(state["players"]) if any(hexes[k]["colonists"][s] for k in part)]
        # Look again once this part is gone (several parts may be enclosed).
        state["queue"].insert(0, {"step": "sink"})
        events.append({"type": "sinking", "hexes": part, "late": late, "actor": actor})
        if holders:
            # "1. il giocatore di turno ... 2. gli altri giocatori": the acting player chooses
            # first, in the open; then the others at once, unseen by each other.
            others = [s for s in holders if s != actor]
            state["decision"] = {
                "kind": "rescue",
                "part": part,
                "actor": actor,
                "late": late,
                "targets": targets,
                "stage": "actor" if actor in holders else "others",
                "waiting": [actor] if actor in holders else others,
                "others": others,
                "moves": {},
            }
        else:
            self._sink_part(state, part, {}, actor, late, events)

    def _claim_sinking(self, state: IsolaState, seat: int, rng: Rng, events: list[Event]) -> None:
        self._check_sink(state, rng, events, late=True, actor=seat)

    def _sink_part(
        self,
        state: IsolaState,
        part: list[str],
        moves: dict[str, str | None],
        actor: int,
        late: bool,
        events: list[Event],
    ) -> None:
        hexes = state["hexes"]
        seats = state["seats"]
        pset = set(part)
        saved = []
        for s in range(state["players"]):
            count = sum(hexes[k]["colonists"][s] for k in part)
            if not count:
                continue
            to = moves.get(str(s))
            keep = 0
            if to is not None and to in hexes:
                keep = count if s == actor else 1
                hexes[to]["colonists"][s] += keep
                saved.append({"seat": s, "hex": to, "colonists": keep})
            seats[s]["colonists_in_supply"] += count - keep
        for k in part:
            cell = hexes[k]
            for s in cell["villages"]:
                seats[s]["villages_in_supply"] += 1
            for s in cell["lying_moai"]:
                seats[s]["moai_in_supply"] += 1
            if cell["lava"]:
                state["supply"]["lava"] += 1
        for g in state["geysers"]:
            if g["hex"] in pset and not g["sunk"]:
                g["sunk"] = True
                if g["moai"] is not None:
                    seats[g["moai"]]["moai_in_supply"] += 1
                    g["moai"] = None
        state["cracks"] = [e for e in state["cracks"] if not any(h in pset for h in e.split("|"))]
        gone = []
        for v, k in list(state["volcanoes"].items()):
            if k in pset:
                gone.append(int(v))
                del state["volcanoes"][v]
        state["volcano_tokens"] = [v for v in state["volcano_tokens"] if v not in gone]
        for k in part:
            del hexes[k]
        if late:
            seats[actor]["score"] += _rules()["scoring"]["late_sinking"]
        events.append({"type": "sunk", "hexes": part, "volcanoes": sorted(gone), "saved": saved, "late": late})
        if len(state["volcanoes"]) <= 2 and not state["final_round"]:
            state["final_round"] = True
            state["end_reason"] = "two_volcanoes_or_fewer"
            events.append({"type": "final_round", "reason": state["end_reason"]})

    # -- turns and the end ----------------------------------------------------------------

    def _end_turn(self, state: IsolaState, p: int, events: list[Event]) -> None:
        n = state["players"]
        last = (state["first_player"] - 1) % n
        events.append({"type": "turn_ended", "seat": p})
        if p == last:
            if state["final_round"] or state["round"] >= _rules()["max_rounds"]:
                if not state["final_round"]:
                    state["end_reason"] = "round_limit"
                self._finish(state, events)
                return
            state["round"] += 1
        state["current"] = (p + 1) % n
        state["action_points"] = _rules()["action_points"]
        state["prayer_bought_this_turn"] = False
        state["created_this_turn"] = {}

    def final_breakdown(self, state: IsolaState) -> list[dict[str, int]]:
        sc = _rules()["scoring"]
        hexes = state["hexes"]
        out = []
        for s in range(state["players"]):
            villages = sum(h["villages"].count(s) for h in hexes.values())
            erected = [g["hex"] for g in state["geysers"] if not g["sunk"] and g["moai"] == s]
            colonists = sum(h["colonists"][s] for h in hexes.values())
            moai = [k for k, h in hexes.items() for _ in range(h["lying_moai"].count(s))] + erected
            adjacency = sc["final_moai_adjacent"] * sum(len(g) for g in moai_groups(moai) if len(g) >= 2)
            bonus = {
                "villages": sc["final_village"] * villages,
                "moai": sc["final_moai"] * len(moai),
                "adjacent_moai": adjacency,
                "colonists": sc["final_colonist"] * colonists,
                "prayer_tokens": sc["final_prayer"] * state["seats"][s]["prayer_tokens"],
            }
            out.append(
                {
                    "during_play": state["seats"][s]["score"],
                    **bonus,
                    "total": state["seats"][s]["score"] + sum(bonus.values()),
                    "colonists_on_board": colonists,
                    "villages_on_board": villages,
                    "moai_on_board": len(moai),
                }
            )
        return out

    def _finish(self, state: IsolaState, events: list[Event]) -> None:
        state["over"] = True
        state["final_breakdown"] = self.final_breakdown(state)
        events.append({"type": "game_over", "reason": state["end_reason"], "final": state["final_breakdown"]})

    def outcome(self, state: IsolaState) -> Outcome | None:
        if not state["over"]:
            return None
        final = state["final_breakdown"]
        assert final is not None, "a match that is over has its final scoring"
        keys = [(f["total"], f["colonists_on_board"], f["villages_on_board"], f["moai_on_board"]) for f in final]
        ranks = [1 + sum(1 for o in keys if o > k) for k in keys]
        return {
            "scores": [f["total"] for f in final],
            "ranks": ranks,
            "winners": [s for s, r in enumerate(ranks) if r == 1],
            "detail": {"breakdown": final, "end_reason": state["end_reason"], "rounds": state["round"]},
        }

    # -- views ----------------------------------------------------------------------------

    def view(self, state: IsolaState, seat: int | None) -> View:
        hexes = state["hexes"]
        return {
            "players": state["players"],
            "setup": state["setup"],
            "hexes": {
                k: {
                    "tile": h["tile"],
                    "volcano": h["volcano"],
                    "lava": h["lava"],
                    "villages": sorted(h["villages"]),
                    "lying_moai": sorted(h["lying_moai"]),
                    "colonists": list(h["colonists"]),
                }
                for k, h in sorted(hexes.items())
            },
            "sunk": self._sunk(state),
            "volcanoes": dict(state["volcanoes"]),
            "geysers": [
                {"index": i, "hex": g["hex"], "dir": g["dir"], "moai": g["moai"]}
                for i, g in enumerate(state["geysers"])
                if not g["sunk"]
            ],
            "cracks": list(state["cracks"]),
            "volcano_tokens": sorted(state["volcano_tokens"]),
            "supply": dict(state["supply"]),
            "players_info": [
                {
                    "seat": s,
                    "score": p["score"],
                    "prayer_tokens": p["prayer_tokens"],
                    "supply": {
                        "villages": p["villages_in_supply"],
                        "colonists": p["colonists_in_supply"],
                        "moai": p["moai_in_supply"],
                    },
                    "boat": p["colonists_on_boat"],
                    "landing_bay": list(p["landing_bay"]),
                }
                for s, p in enumerate(state["seats"])
            ],
            "first_player": state["first_player"],
            "current": state["current"],
            "round": state["round"],
            "action_points": state["action_points"],
            "prayer_bought_this_turn": state["prayer_bought_this_turn"],
            "created_this_turn": dict(state["created_this_turn"]),
            "decision": self._decision_view(state["decision"], seat),
            "last_roll": state["last_roll"],
            "final_round": state["final_round"],
            "end_reason": state["end_reason"],
            "over": state["over"],
            "final": state["final_breakdown"],
            "you": seat,
        }

    @staticmethod
    def _sunk(state: IsolaState) -> dict[str, int]:
        """The hexes that have sunk, by id, with their tiles: what a board drawing needs to show
        where the island was (public; rebuilt from the set-up's placements, not stored twice)."""
        hexes = state["hexes"]
        return {k: tile for k, tile in sorted(B.tile_of_hex(state["placements"]).items()) if k not in hexes}

    @staticmethod
    def _decision_view(d: Decision | None, seat: int | None) -> dict[str, Any] | None:
        """The open decision as ``seat`` may see it: a rescue shows the acting player's choice
        (final before the others choose) and the viewer's own, never another's pending one."""
        if d is None:
            return None
        if d["kind"] != "rescue":
            return dict(d)
        shown: dict[str, Any] = {k: v for k, v in d.items() if k not in ("moves", "others")}
        moves = d["moves"]
        actor = str(d["actor"])
        if actor in moves:
            shown["actor_choice"] = moves[actor]
        if seat is not None and str(seat) in moves:
            shown["your_choice"] = moves[str(seat)]
        shown["answered"] = sorted(int(s) for s in moves)
        return shown

    def redact_action(self, action: Action, actor: int, viewer: int | None) -> Action:
        """Others' rescue choices stay hidden in the history: whether and where each seat saved
        a colonist shows in the ``sunk`` event (and, for the acting player, ``rescue_chosen``)."""
        if action.get("type") in ("rescue", "abandon") and viewer != actor:
            return {"type": "rescue", "to": None}
        return action

    # -- reasons --------------------------------------------------------------------------

    def check(self, state: IsolaState, seat: int, action: Action) -> None:
        super().check(state, seat, action)
        if any(isinstance(v, bool) for v in action.values()):
            raise IllegalAction("bad_action", "Action fields are strings and integers, never booleans.")

    def explain(self, state: IsolaState, seat: int, action: Action) -> IllegalAction:
        def no(code: str, msg: str, rule: str) -> IllegalAction:
            return IllegalAction(code, msg, rule=rule)

        t = action.get("type")
        d = state["decision"]
        if d is not None:
            if d["kind"] == "prayer" and t not in ("pray", "accept_loss"):
                return no(
                    "decision_pending", "An eruption waits for prayer tokens: 'pray' or 'accept_loss'.", "eruption"
                )
            if d["kind"] == "rescue" and t not in ("rescue", "abandon"):
                return no("decision_pending", "Part of the island is sinking: 'rescue' or 'abandon'.", "sinking")
            if t == "pray":
                if state["seats"][seat]["prayer_tokens"] <= 0:
                    return no("no_prayer_token", "You hold no prayer token.", "prayer tokens")
                return no(
                    "nothing_to_save",
                    "Prayer saves one village or lying Moai not yet saved, of the given owner, "
                    "on a hex the lava is about to cover.",
                    "eruption",
                )
            if t == "rescue":
                return no("not_adjacent", "Saved colonists go onto a hex adjacent to the sinking part.", "sinking")
            return super().explain(state, seat, action)
        if t in ("pray", "accept_loss", "rescue", "abandon"):
            return no("no_decision", "No eruption or sinking is waiting for a decision.", "turn order")
        cost = {"build": 2, "buy_prayer": 1 + state["seats"][seat]["prayer_tokens"]}.get(str(t), 1)
        if t != "end_turn" and t != "claim_sinking" and state["action_points"] < cost:
            return no(
                "not_enough_action_points",
                f"'{t}' costs {cost} action point(s); {state['action_points']} left this turn.",
                "action points",
            )
        hexes = state["hexes"]
        if t == "buy_prayer":
            if state["prayer_bought_this_turn"]:
                return no("prayer_once_a_turn", "Only one prayer token may be taken per turn.", "prayer tokens")
            return no("no_prayer_token", "No prayer token is left in the supply.", "prayer tokens")
        if t in ("move", "move_moai"):
            src, dst = action.get("from"), action.get("to")
            if src == "boat":
                return no(
                    "not_landing_bay", "A colonist leaves the boat only onto a hex of your landing bay.", "landing"
                )
            if src not in hexes or hexes[src]["colonists"][seat] <= 0:
                return no("no_colonist", "You have no colonist on that hex.", "moving colonists")
            if dst not in hexes:
                return no("not_a_space", "Colonists move onto island hexes, never the sea.", "moving colonists")
            if B.distance(src, dst) != 1:
                return no("not_adjacent", "A colonist moves one hex at a time, to an adjacent hex.", "moving colonists")
            if B.edge(src, dst) in state["cracks"]:
                return no("crack", "Colonists may never cross a crack.", "moving colonists")
            if t == "move_moai" and hexes[dst]["volcano"] is not None:
                return no(
                    "not_a_space",
                    "A Moai is left lying on a hex with room for it, never on a volcano.",
                    "moving a Moai",
                )
            if t == "move_moai":
                return no("no_moai", "You have no lying Moai on that hex to move.", "moving a Moai")
        if t in ("build", "carve", "create"):
            h = hexes.get(action.get("hex", ""))
            if h is None or h["colonists"][seat] <= 0:
                return no("no_colonist", f"'{t}' needs one of your colonists on the hex.", t)
            if t in ("build", "carve") and not h["lava"]:
                return no("no_lava", f"'{t}' turns a lava tile into the piece: the hex has no lava.", t)
            if t == "create" and seat not in h["villages"]:
                return no("no_village", "A colonist is created on a hex with your village.", "create a colonist")
            if t == "create":
                return no(
                    "area_limit",
                    "In an area you may create per turn only as many colonists as your villages there.",
                    "create a colonist",
                )
            return no("supply_empty", f"No piece left in your supply for '{t}'.", t)
        if t == "erect":
            gi = action.get("geyser")
            if not isinstance(gi, int) or not 0 <= gi < len(state["geysers"]) or state["geysers"][gi]["sunk"]:
                return no("no_geyser", "There is no such geyser crater on the island.", "erect a Moai")
            g = state["geysers"][gi]
            if g["moai"] is not None:
                return no("crater_taken", "That crater already holds an erected Moai.", "erect a Moai")
            if hexes[g["hex"]]["colonists"][seat] <= 0:
                return no("no_colonist", "Erecting needs your colonist on the geyser's hex.", "erect a Moai")
            return no("no_moai", "Erecting needs one of your lying Moai on the geyser's hex.", "erect a Moai")
        if t == "claim_sinking":
            return no("nothing_enclosed", "No part of the island is enclosed by cracks and sea.", "sinking")
        return super().explain(state, seat, action)
