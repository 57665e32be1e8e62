"""The state of a match of L'Isola dei Vulcani: its shape, and how states stored before its
keys were renamed are read.

The state is plain JSON, kept by the store inside the match record; these ``TypedDict``\\ s say
what each key holds, so mypy checks every key the engine (or anything reading a state) uses.
Hexes are ``"q,r"`` strings and edges ``"a|b"`` (:mod:`.board`); seats are ``0 .. players-1``.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

Piece = Literal["village", "moai"]
"""A piece that lava destroys and prayer saves: a village or a lying Moai."""

PIECES: tuple[Piece, ...] = ("village", "moai")


class Hex(TypedDict):
    """One hex of the island (a sunk hex is gone from ``IsolaState.hexes``)."""

    tile: int
    """The island tile the hex belongs to: its area."""
    volcano: int | None
    """The volcano's number when the hex is a volcano."""
    lava: bool
    villages: list[int]
    """The owner of each village on the hex."""
    lying_moai: list[int]
    """The owner of each lying Moai on the hex (erected ones stand on geysers)."""
    colonists: list[int]
    """Per seat, how many of its colonists stand here."""


class Geyser(TypedDict):
    """A geyser's crater, where a Moai is erected (the board's vocabulary: :mod:`.board`)."""

    hex: str
    dir: int
    """The direction (0–5) in which erecting a Moai here lays a crack."""
    moai: int | None
    """The seat whose Moai stands erected on the crater."""
    sunk: bool


class Supply(TypedDict):
    """The general supply shared by everyone."""

    lava: int
    cracks: int
    prayer: int


class Seat(TypedDict):
    """One seat's pieces off the board, tokens and points."""

    villages_in_supply: int
    colonists_in_supply: int
    moai_in_supply: int
    prayer_tokens: int
    score: int
    """Points scored during play (the final bonuses come at the end)."""
    colonists_on_boat: int
    landing_bay: list[str]
    """The hexes where colonists from the boat land."""


class PrayerDecision(TypedDict):
    """Lava is about to cover ``targets``: every seat in ``waiting`` may spend prayer tokens."""

    kind: Literal["prayer"]
    volcano: int
    targets: list[str]
    saved: list[list[Any]]
    """One ``[hex, piece, owner]`` per piece a prayer saved."""
    waiting: list[int]


class RescueDecision(TypedDict):
    """``part`` of the island sinks: first ``actor``, then the ``others`` at once, may save
    colonists onto one of ``targets`` (adjacent hexes)."""

    kind: Literal["rescue"]
    part: list[str]
    actor: int
    late: bool
    """Sunk by a late claim (``claim_sinking``), which scores for the actor."""
    targets: list[str]
    stage: Literal["actor", "others"]
    waiting: list[int]
    others: list[int]
    moves: dict[str, str | None]
    """Per seat (as a string) that answered, the hex it saves colonists onto, or ``None``."""


Decision = PrayerDecision | RescueDecision


class Step(TypedDict):
    """A follow-up step waiting in the queue while a decision is open."""

    step: Literal["roll", "erupt", "score", "sink"]
    volcano: NotRequired[int]
    """``erupt``: the volcano that erupts."""
    seat: NotRequired[int]
    """``score``: the seat that erected the Moai."""
    geyser: NotRequired[int]
    """``score``: the geyser it stands on."""


class IsolaState(TypedDict):
    """A match of L'Isola dei Vulcani."""

    players: int
    setup: str
    """``standard`` or ``advanced``."""
    placements: list[dict[str, Any]]
    """The tiles as laid at set-up (``tile``, ``at``, ``rotation``): where sunk hexes were."""
    hexes: dict[str, Hex]
    volcanoes: dict[str, str]
    """Each volcano still on the island (its number as a string) and its hex."""
    geysers: list[Geyser]
    cracks: list[str]
    """The edges with a crack, sorted."""
    volcano_tokens: list[int]
    """The volcano tokens eruptions are drawn from (one per volcano still on the island)."""
    supply: Supply
    seats: list[Seat]
    first_player: int
    current: int
    """The seat whose turn it is."""
    round: int
    action_points: int
    """What the current seat has left this turn."""
    prayer_bought_this_turn: bool
    created_this_turn: dict[str, int]
    """Colonists created this turn, per area (tile number as a string)."""
    queue: list[Step]
    decision: Decision | None
    double_eruption_armed: bool
    """Whether an action since the last end of turn could set off a double eruption."""
    final_round: bool
    end_reason: str | None
    over: bool
    final_breakdown: list[dict[str, int]] | None
    """Per seat, the final scoring (once over)."""
    last_roll: str | None


RENAMED_KEYS = {
    "pile": "volcano_tokens",
    "pl": "seats",
    "first": "first_player",
    "ap": "action_points",
    "bought_prayer": "prayer_bought_this_turn",
    "created": "created_this_turn",
    "double_armed": "double_eruption_armed",
    "final": "final_breakdown",
}
"""The state's keys as they were first stored, and their names now."""

RENAMED_SEAT_KEYS = {
    "villages": "villages_in_supply",
    "colonists": "colonists_in_supply",
    "moai": "moai_in_supply",
    "prayer": "prayer_tokens",
    "boat": "colonists_on_boat",
    "bay": "landing_bay",
}
RENAMED_HEX_KEYS = {"moai": "lying_moai"}
RENAMED_STEP_KEYS = {"s": "step", "v": "volcano", "g": "geyser"}


def upgrade_state(stored: dict[str, Any]) -> IsolaState:
    """A stored state with today's keys: states stored with the first keys (``pl``, ``ap``,
    queue steps ``{"s": ...}``…) get them renamed, in place in the key order, at every level;
    today's pass through as they are."""
    if "pl" not in stored:
        return cast(IsolaState, stored)  # JSON the engine wrote: the store keeps it whole
    state = _renamed(stored, RENAMED_KEYS)
    state["seats"] = [_renamed(seat, RENAMED_SEAT_KEYS) for seat in state["seats"]]
    state["hexes"] = {k: _renamed(h, RENAMED_HEX_KEYS) for k, h in state["hexes"].items()}
    state["queue"] = [_renamed(step, RENAMED_STEP_KEYS) for step in state["queue"]]
    return cast(IsolaState, state)


def _renamed(stored: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in stored.items()}


# -- reading the state -------------------------------------------------------------------------


def pieces_on(cell: Hex, piece: Piece) -> list[int]:
    """The owners of the villages, or of the lying Moai, on a hex (the hex's own list)."""
    return cell["villages"] if piece == "village" else cell["lying_moai"]


def prayer_decision(state: IsolaState) -> PrayerDecision:
    """The open prayer decision (an eruption waits for it)."""
    decision = state["decision"]
    assert decision is not None and decision["kind"] == "prayer", "no prayer decision is open"
    return decision


def rescue_decision(state: IsolaState) -> RescueDecision:
    """The open rescue decision (part of the island is sinking)."""
    decision = state["decision"]
    assert decision is not None and decision["kind"] == "rescue", "no rescue decision is open"
    return decision
