"""Esploratore – In viaggio verso le stelle: the game data and pure helpers over it.

The card faces come from ``seeds/esploratore/cards.json`` (see docs/esploratore.md). Lines and
meeting points are kept as 7-bit masks (bit ``i`` = orbital line ``i``); a card played upside
down (beginners' variant) has its mask mirrored, line ``i`` becoming line ``6 - i``.
"""

from __future__ import annotations

from typing import Any

from service.engine.seeds import load_seed

GAME_ID = "esploratore"
DATA: dict[str, Any] = load_seed(GAME_ID, "cards")

RESOURCES: list[str] = list(DATA["resources"])  # bronze, biomass, energy, water
# Tie-break order of the rulebook: water, then energy, then biomass, then bronze.
TIE_ORDER: list[int] = [RESOURCES.index(r) for r in ("water", "energy", "biomass", "bronze")]
POSITIONS: list[str] = [p["id"] for p in DATA["positions"]]
POS_INDEX: dict[str, int] = {p: i for i, p in enumerate(POSITIONS)}
EARTH = POS_INDEX["earth"]
NPOS = len(POSITIONS)
NLINES = len(DATA["lines"])
YIELD: list[list[int]] = [[p["yield"][r] for r in RESOURCES] for p in DATA["positions"]]
WILD_POSITIONS: list[int] = [POS_INDEX[p] for p in DATA["wild_piles"]]
ROUNDS: int = DATA["rounds"]
HAND_SIZE: int = DATA["hand_size"]
MAX_VEHICLES: int = DATA["max_vehicles"]
RACE_TARGET: int = DATA["race_target"]
TRADE_FACTOR: int = DATA["trade_factor"]
CREW: dict[str, int] = dict(DATA["crew"])
MAX_MULTIPLIER: int = DATA["max_multiplier"]  # a factory's store: dice faces 3 to 6
PILES: list[str] = [*POSITIONS, "reserve"]
RESERVE = NPOS  # index of the reserve in PILES


def mask(lines: list[int]) -> int:
    """The 7-bit mask of a list of line numbers."""
    m = 0
    for i in lines:
        m |= 1 << i
    return m


def mirror(mask: int) -> int:
    """The mask of a card turned upside down: line i becomes line 6 - i."""
    out = 0
    for i in range(NLINES):
        if mask >> i & 1:
            out |= 1 << (NLINES - 1 - i)
    return out


class Card:
    __slots__ = ("id", "pos", "lines", "meet", "rank", "wild", "face")

    def __init__(self, raw: dict[str, Any], wild: bool = False) -> None:
        self.id: str = raw["id"]
        self.pos: int | None = None if raw["position"] is None else POS_INDEX[raw["position"]]
        self.lines = mask(raw["lines"])
        self.meet = mask(raw["meeting"])
        self.rank: int = raw.get("rank", 0)
        self.wild = wild
        self.face = {
            "card": self.id,
            "position": raw["position"],
            "lines": list(raw["lines"]),
            "meeting": list(raw["meeting"]),
            **({"rank": self.rank} if self.rank else {}),
            **({"wild": True} if wild else {}),
        }

    @property
    def home(self) -> int:
        """The one position a card that is not wild belongs to."""
        assert self.pos is not None, f"{self.id} is wild: it belongs to no one position"
        return self.pos

    def masks(self, flip: bool) -> tuple[int, int]:
        if flip:
            return mirror(self.lines), mirror(self.meet)
        return self.lines, self.meet


CARDS: dict[str, Card] = {}
for _raw in DATA["cards"]:
    CARDS[_raw["id"]] = Card(_raw)
for _raw in DATA["wild"]:
    CARDS[_raw["id"]] = Card(_raw, wild=True)
BEGINNER_EARTH = Card(DATA["beginner_earth"])
CARDS[BEGINNER_EARTH.id] = BEGINNER_EARTH
PLAYING_CARDS = [c["id"] for c in DATA["cards"]] + [c["id"] for c in DATA["wild"]]
CARDS_BY_POSITION: list[list[str]] = [
    [c["id"] for c in DATA["cards"] if POS_INDEX[c["position"]] == p] for p in range(NPOS)
]
"""The position cards of each position, in seed order (wild cards excluded)."""
DECK: dict[bool, frozenset[str]] = {
    False: frozenset(PLAYING_CARDS),
    True: frozenset(c for c in PLAYING_CARDS if CARDS[c].pos != EARTH),
}
"""The cards in play, by beginners' variant (which takes C1–C7 out of the game)."""


def bits(mask: int) -> list[int]:
    return [i for i in range(NLINES) if mask >> i & 1]
