"""The data of Viaggio al centro della terra, read once from ``seeds/viaggio-al-centro-della-terra``,
and the pure scoring of fossil collections (shared by the engine and the bot)."""

from __future__ import annotations

from typing import Any

from service.engine import load_seed
from service.games.viaggio.board import Board

GAME_ID = "viaggio-al-centro-della-terra"
BOARD_SEED = load_seed(GAME_ID, "board")
CARDS = load_seed(GAME_ID, "cards")

COLOURS: tuple[str, ...] = tuple(CARDS["colours"])
EQUIP: tuple[str, ...] = tuple(CARDS["equipment_types"])
MOVE_EQUIP = ("rope", "pickaxe", "compass", "biscuits")
FOSSILS: tuple[str, ...] = tuple(CARDS["fossils"])
EVENTS: dict[str, dict[str, Any]] = {e["id"]: e for e in CARDS["events"]}
ADVENTURES: dict[str, dict[str, Any]] = {a["id"]: a for a in CARDS["adventures"]}
BONUSES: dict[str, dict[str, Any]] = CARDS["bonuses"]
LIMIT = CARDS["hand_limit"]
MAX_CARDS = CARDS["move"]["max_cards"]
BISCUIT = CARDS["move"]["biscuits_value"]
PER_TOKEN = CARDS["water"]["fossils_per_token"]
SCORING = CARDS["scoring"]
LAVA: list[dict[str, Any]] = BOARD_SEED["lava"]["spaces"]
BOARDS = {1: Board(BOARD_SEED["descent"], BOARD_SEED["symbols"]), 2: Board(BOARD_SEED["sea"], BOARD_SEED["symbols"])}

MIX = "miscela_di_colori"
FLEX = "uso_flessibile"
LIQUID = "permanenza_in_liquido"
LUCK = "colpo_di_fortuna"
FLEX_COPIES = next(e["count"] for e in CARDS["events"] if e["id"] == FLEX)


def _sequence(n: int) -> int:
    """Points of ``n`` gold (or quartz) cards: 1, 3, 6, 10, 15, 20, then +5 each."""
    seq = SCORING["sequence"]
    if n < len(seq):
        return seq[n]
    return seq[-1] + SCORING["sequence_step"] * (n - len(seq) + 1)


def fossil_points(fossils: dict[str, int]) -> dict[str, int]:
    """Points of a collection of fossil cards by category (a pure rule, also for bots)."""
    parts = sorted((fossils["skeleton_head"], fossils["skeleton_body"], fossils["skeleton_tail"]), reverse=True)
    sets = SCORING["skeleton_sets"]
    return {
        "misc": SCORING["misc"] * fossils["misc"],
        "skulls": SCORING["skull_pair"] * min(fossils["skull_front"], fossils["skull_back"]),
        "skeletons": sets[3] * parts[2] + sets[2] * (parts[1] - parts[2]) + sets[1] * (parts[0] - parts[1]),
        "gold": _sequence(fossils["gold"]),
        "quartz": _sequence(fossils["quartz"]),
    }
