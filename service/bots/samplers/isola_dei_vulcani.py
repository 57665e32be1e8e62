"""An Isola dei Vulcani state drawn from one seat's view.

Nearly everything is on the table: the island, every piece, score and token, the open decision.
Hidden, and drawn here: the order of the volcano tokens (shuffled; the engine shuffles before
every draw anyway) and, while a sinking part is being abandoned, where the other seats that have
already answered chose to save a colonist (any neighbouring hex, or none).

What the view leaves out although every seat saw it, rebuilt here:

- the map as laid at set-up (tile placements, the geysers of sunk hexes): from the seed for the
  standard set-up, else by fitting each tile onto its hexes (the visible and the sunk ones);
- the steps queued behind an open decision: a rescue is followed by a new check for sinking;
  a prayer after a Moai was erected by the Moai's points and that check. The view does not say
  which Moai was erected this turn, so the sampler picks one of the current seat's erected Moai
  at random; a prayer with no such Moai comes from a double eruption, whose second volcano (if
  this is the first eruption, while no lava lies on the island) is drawn from the other tokens.
"""

from __future__ import annotations

import random
from typing import Any

from service.engine import Game, State, View
from service.games.isola_dei_vulcani import board as B
from service.games.isola_dei_vulcani import faults as F


def sample_state(game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
    """A state ``game`` accepts whose view for ``seat`` is ``view``, its hidden parts random."""
    placements, craters = _map(view)
    tokens = list(view["volcano_tokens"])
    rng.shuffle(tokens)
    hexes = {
        k: {
            "tile": h["tile"],
            "volcano": h["volcano"],
            "lava": h["lava"],
            "villages": list(h["villages"]),
            "lying_moai": list(h["lying_moai"]),
            "colonists": list(h["colonists"]),
        }
        for k in _board_order(placements, craters)
        if (h := view["hexes"].get(k)) is not None
    }
    state: State = {
        "players": view["players"],
        "setup": view["setup"],
        "placements": placements,
        "hexes": hexes,
        "volcanoes": dict(view["volcanoes"]),
        "geysers": _geysers(view, placements, craters),
        "cracks": list(view["cracks"]),
        "volcano_tokens": tokens,
        "supply": dict(view["supply"]),
        "seats": [
            {
                "villages_in_supply": p["supply"]["villages"],
                "colonists_in_supply": p["supply"]["colonists"],
                "moai_in_supply": p["supply"]["moai"],
                "prayer_tokens": p["prayer_tokens"],
                "score": p["score"],
                "colonists_on_boat": p["boat"],
                "landing_bay": list(p["landing_bay"]),
            }
            for p in view["players_info"]
        ],
        "first_player": view["first_player"],
        "current": view["current"],
        "round": view["round"],
        "action_points": view["action_points"],
        "prayer_bought_this_turn": view["prayer_bought_this_turn"],
        "created_this_turn": dict(view["created_this_turn"]),
        "queue": [],
        "decision": None,
        "double_eruption_armed": False,  # every action sets it afresh before it is read
        "final_round": view["final_round"],
        "end_reason": view["end_reason"],
        "over": view["over"],
        "final_breakdown": view["final"],
        "last_roll": view["last_roll"],
    }
    decision = view["decision"]
    if decision is not None and decision["kind"] == "rescue":
        state["decision"] = _rescue(decision, hexes, seat, rng)
        state["queue"] = [{"step": "sink"}]
    elif decision is not None:
        state["decision"] = {**decision, "targets": list(decision["targets"]), "waiting": list(decision["waiting"])}
        state["decision"]["saved"] = [list(s) for s in decision["saved"]]
        state["queue"] = _after_prayer(state, decision["volcano"], rng)
    return state


def _board_order(placements: list[dict[str, Any]], craters: list[dict[str, Any]]) -> list[str]:
    """The hexes in the order set-up lays them (the view sorts them): the engine lists a
    seat's actions hex by hex in that order, so a sample must keep it to offer the seat the
    same list."""
    return list(B.build_board(placements, craters)["hexes"])


def _map(view: View) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The set-up's tile placements and craters."""
    if view["setup"] != "advanced":
        standard = B.standard_map()
        return standard["placements"], standard["craters"]
    tile_of = {k: h["tile"] for k, h in view["hexes"].items()} | {k: int(t) for k, t in view["sunk"].items()}
    volcano_at = {h["volcano"]: k for k, h in view["hexes"].items() if h["volcano"] is not None}
    placements = [
        _fit(tile, {k for k, t in tile_of.items() if t == tile}, volcano_at.get(tile))
        for tile in sorted(set(tile_of.values()))
    ]
    craters = F.design_craters(B.build_board(placements, [])["hexes"])
    return placements, craters


def _fit(tile_id: int, cells: set[str], volcano: str | None) -> dict[str, Any]:
    """The placement that lays tile ``tile_id`` on exactly ``cells``, its volcano on ``volcano``."""
    tile = B.tiles()[tile_id]
    for rotation in range(6):
        first_q, first_r = tile["hexes"][0]
        offset = B.rotate(first_q, first_r, rotation)
        for cell in sorted(cells):
            q, r = B.parse(cell)
            at = (q - offset[0], r - offset[1])
            laid = [B.key(*h) for h in B.place(tile, at, rotation)]
            if set(laid) != cells:
                continue
            if volcano is None or tile["volcano"] is None or laid[tile["volcano"]] == volcano:
                return {"tile": tile_id, "at": [at[0], at[1]], "rotation": rotation}
    raise AssertionError(f"tile {tile_id} does not fit {sorted(cells)}")


def _geysers(view: View, placements: list[dict[str, Any]], craters: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every crater of the map in the engine's order; those the view lists carry their Moai,
    the others sank with their hexes."""
    shown = {g["index"]: g for g in view["geysers"]}
    out = []
    for i, g in enumerate(B.build_board(placements, craters)["geysers"]):
        live = shown.get(i)
        out.append({"hex": g["hex"], "dir": g["dir"], "moai": live["moai"] if live else None, "sunk": live is None})
    return out


def _rescue(decision: dict[str, Any], hexes: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any]:
    """The open rescue, with the answers of the seats whose choice is secret drawn at random."""
    actor = decision["actor"]
    holders = [
        s
        for s in range(len(hexes[decision["part"][0]]["colonists"]))
        if any(hexes[k]["colonists"][s] for k in decision["part"])
    ]
    moves: dict[str, str | None] = {}
    for answered in decision["answered"]:
        if answered == actor:
            moves[str(answered)] = decision["actor_choice"]
        elif answered == seat:
            moves[str(answered)] = decision["your_choice"]
        else:
            moves[str(answered)] = rng.choice([*decision["targets"], None])
    return {
        "kind": "rescue",
        "part": list(decision["part"]),
        "actor": actor,
        "late": decision["late"],
        "targets": list(decision["targets"]),
        "stage": decision["stage"],
        "waiting": list(decision["waiting"]),
        "others": [s for s in holders if s != actor],
        "moves": moves,
    }


def _after_prayer(state: State, volcano: int, rng: random.Random) -> list[dict[str, Any]]:
    """The steps behind an eruption's prayer (see the module's docstring)."""
    current = state["current"]
    erected = [i for i, g in enumerate(state["geysers"]) if not g["sunk"] and g["moai"] == current]
    if erected:
        return [{"step": "score", "seat": current, "geyser": rng.choice(erected)}, {"step": "sink"}]
    others = [v for v in state["volcano_tokens"] if v != volcano]
    if others and not any(h["lava"] for h in state["hexes"].values()):
        return [{"step": "erupt", "volcano": rng.choice(others)}]
    return []
