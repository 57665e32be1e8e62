"""The state of a Halunken und Spelunken match: its shape, and how states stored before its
keys were renamed are read.

The state is plain JSON, kept by the store inside the match record; these ``TypedDict``\\ s say
what each key holds, so mypy checks every key the engine (or anything reading a state) uses.
Seats are ``0 .. players-1``; spaces are ``0 .. 13`` clockwise, one in front of each tavern.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, cast

Movement = int | str
"""A movement card: 1..7 for a captain (1..12 in Black Jack's standard deck), or ``"rum"``."""

Piece = str
"""A piece in a reveal: a seat's number as a string (``"0"``), or ``"bj"`` for Black Jack."""

Phase = Literal["place_captain", "place_black_jack", "auction", "choose", "resolve", "over"]


class Auction(TypedDict):
    """The auction for Black Jack at the start of a round (standard and two-player games)."""

    starter: int
    turn: int
    """The seat whose bid or pass is awaited."""
    high_card: str | None
    high_seat: int | None
    out: list[bool]
    """Per seat: passed, so out of this auction."""


class Reveal(TypedDict):
    """This round's movement cards once turned over."""

    cards: dict[Piece, Movement]
    cancelled: list[Piece]
    """Pieces whose card equals another's: they stay where they are."""
    values: dict[Piece, int | None]
    """How far each piece that was not cancelled moves (``None``: a Rum not yet given a value)."""


class RumPending(TypedDict):
    """A Rum card that was not cancelled waits for its value from the piece's owner."""

    kind: Literal["rum"]
    seat: int
    piece: Piece
    forbidden: list[int]
    """The values revealed by other pieces, which the Rum may not take."""


class StealPending(TypedDict):
    """``seat`` takes a card of its choice from ``victim``."""

    kind: Literal["steal"]
    seat: int
    victim: int
    optional: NotRequired[bool]
    """Set when the two-player controller of Black Jack may decline the theft."""


class BlackJackStepPending(TypedDict):
    """The captain who landed on Black Jack moves it to one of the free ``spaces`` beside it."""

    kind: Literal["black_jack_step"]
    seat: int
    spaces: list[int]


class GivePending(TypedDict):
    """Robbed by the unowned Black Jack, ``seat`` chooses the card it hands to the harbour."""

    kind: Literal["give"]
    seat: int


class HarbourPending(TypedDict):
    """Landed on Black Jack, ``seat`` takes a harbour card, or (two-player variant) robs
    ``victim``, the controller, instead (``None``: no one to rob)."""

    kind: Literal["harbour"]
    seat: int
    victim: int | None


Pending = RumPending | StealPending | BlackJackStepPending | GivePending | HarbourPending
"""A decision the round's resolution waits for, from the pending's ``seat``."""


Op = Literal[
    "order",
    "stay",
    "move",
    "rob_landing",
    "push",
    "land_on_black_jack",
    "push_black_jack",
    "black_jack_turn",
    "rob_black_jack",
    "end_round",
]


class Step(TypedDict):
    """One step of the round's resolution queue, carried out by the engine's ``_op_<op>``."""

    op: Op
    seat: NotRequired[int]
    victim: NotRequired[int]
    piece: NotRequired[Piece]
    steps: NotRequired[int]


class HalunkenState(TypedDict):
    """A match of Halunken und Spelunken."""

    players: int
    variant: str
    """``introductory``, ``standard`` or ``two-player``."""
    round: int
    phase: Phase
    placer: int | None
    """At set-up, the seat placing its captain now."""
    taverns_open: bool
    """Whether the taverns' top cards are face up (from the end of the set-up)."""
    taverns: list[list[str]]
    """Per space, the tavern's stack of pirate cards, top first."""
    captains: list[int | None]
    """Per seat, the space of its captain (``None`` before it is placed)."""
    black_jack: int | None
    """Black Jack's space (``None`` in the introductory game and before it is placed)."""
    collections: list[list[str]]
    """Per seat, the pirate cards it holds."""
    start_cards: list[str | None]
    hands: list[list[Movement]]
    """Per seat, the movement cards still in hand."""
    played: list[list[Movement]]
    """Per seat, the movement cards played in earlier rounds (public)."""
    commits: list[Movement | None]
    """Per seat, the card committed face down this round."""
    black_jack_commit: Movement | None
    """Two-player variant: the card the controller committed for Black Jack this round."""
    black_jack_deck: list[Movement]
    """Black Jack's movement deck, in drawing order (standard game) or as a hand (two-player)."""
    black_jack_used: list[Movement]
    harbour: list[str]
    """Pirate cards in the harbour: bids that won Black Jack, cards the unowned Black Jack took."""
    controller: int | None
    """The seat that controls Black Jack this round (won its auction)."""
    last_controller: int | None
    auction: Auction | None
    reveal: Reveal | None
    queue: list[Step]
    pending: Pending | None


RENAMED_KEYS = {
    "pos": "captains",
    "bj": "black_jack",
    "bj_commit": "black_jack_commit",
    "bj_deck": "black_jack_deck",
    "bj_used": "black_jack_used",
}
"""The state's keys as they were first stored, and their names now."""


def upgrade_state(stored: dict[str, Any]) -> HalunkenState:
    """A stored state with today's keys: states stored with the first keys (``pos``, ``bj``,
    ``bj_deck``…) get them renamed, in place in the key order; today's pass through as they are."""
    if "pos" in stored:
        stored = {RENAMED_KEYS.get(key, key): value for key, value in stored.items()}
    return cast(HalunkenState, stored)  # JSON the engine wrote: the store keeps it whole


# -- reading what a phase guarantees ---------------------------------------------------------
# Keys that are ``None`` outside some phase: these say which phase the caller relies on, and
# fail loudly if it is not so (a programming error, never a player's).


def current_auction(state: HalunkenState) -> Auction:
    """The auction under way (the ``auction`` phase)."""
    auction = state["auction"]
    assert auction is not None, "no auction is under way"
    return auction


def current_reveal(state: HalunkenState) -> Reveal:
    """This round's revealed cards (the ``resolve`` phase)."""
    reveal = state["reveal"]
    assert reveal is not None, "no cards are revealed"
    return reveal


def pending_decision(state: HalunkenState) -> Pending:
    """The decision the resolution waits for."""
    pending = state["pending"]
    assert pending is not None, "no decision is pending"
    return pending


def captain_space(state: HalunkenState, seat: int) -> int:
    """Where ``seat``'s captain stands (once placed)."""
    space = state["captains"][seat]
    assert space is not None, f"seat {seat}'s captain is not placed"
    return space


def black_jack_space(state: HalunkenState) -> int:
    """Where Black Jack stands (once placed; never in the introductory game)."""
    space = state["black_jack"]
    assert space is not None, "Black Jack is not on the board"
    return space
