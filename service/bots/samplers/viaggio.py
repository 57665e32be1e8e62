"""A Viaggio al centro della terra state drawn from one seat's view.

Public in the view: the board (explorers, raft, lava), the display, the discard piles, every
fossil collection, water token, bonus and sighting, the hand sizes and kept-card counts, the
deck sizes, the cards that left the game (``out_of_game``) or lie returned on the bottom of the
fossil deck (``fossil_deck_bottom``, but a rival's lamp returns), the decision under way and every
task queued behind it (``upcoming``), and the seat's own hand and kept event cards. Hidden,
and drawn here:

- the other hands and the explorer and equipment decks: the cards of each kind the seat has
  not seen (all of them less its hand, the display, the discards and the equipment played in a
  move under way), shuffled and dealt to the hands' sizes, the rest to the deck;
- the other seats' kept event cards, from the unseen event cards that are kept (the others
  are resolved at once, never held), and the event deck from the rest;
- the fossil deck and the fossils another seat's lamp has just drawn, from the fossils not in
  a collection and not out of the game, on top of the cards returned to the deck's bottom
  (``fossil_deck_bottom``: those a rival's lamp returned are drawn too); the adventure deck,
  from the adventures not yet turned.

A hidden part is drawn uniformly among those the view allows; what earlier play told about a
rival's hand (a card it drew from the display, cards it could not have held when it paid) is
not in the view, so not used.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from service.engine import Game, State, View
from service.games.viaggio.board import BLOCKING
from service.games.viaggio.data import ADVENTURES, BOARDS, CARDS, COLOURS, EQUIP, EVENTS, FOSSILS, MOVE_EQUIP

Task = dict[str, Any]


def sample_state(game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
    """A state ``game`` accepts whose view for ``seat`` is ``view``, its hidden parts random."""
    players = len(view["players"])
    own = view["hand"]
    decision = view["decision"]
    tasks = [_task(task, view["phase"]) for task in ([decision] if decision else []) + view["upcoming"]]
    fossil_deck, lamp_drawn = _fossils_unseen(view, rng)
    if lamp_drawn is not None:
        tasks[0]["drawn"] = lamp_drawn
    sizes = [p["hand_sizes"] for p in view["players"]]
    explorer_hands, explorer_deck = _deal(
        _unseen({c: CARDS["explorer_per_colour"] for c in COLOURS}, own["explorer"], view["discards"]["explorer"]),
        [s["explorer"] for s in sizes],
        seat,
        rng,
    )
    equipment_hands, equipment_deck = _deal(
        _unseen(
            {t: CARDS["equipment_per_type"] for t in EQUIP},
            own["equipment"],
            view["discards"]["equipment"],
            Counter(c for c in view["display"] if c is not None),
            _played_from_hand(decision),
        ),
        [s["equipment"] for s in sizes],
        seat,
        rng,
    )
    hands: list[dict[str, dict[str, int]]] = []
    for s in range(players):
        explorer = dict(own["explorer"]) if s == seat else _counts(explorer_hands[s], COLOURS)
        equipment = dict(own["equipment"]) if s == seat else _counts(equipment_hands[s], EQUIP)
        hands.append({"explorer": explorer, "equipment": equipment})
    kept, event_deck = _kept_and_event_deck(view, seat, rng)
    explorers = dict(view["explorers"])
    phase = view["phase"]
    return {
        "players": players,
        "phase": phase,
        "turn": view["turn"],
        "over": phase == "over",
        "hands": hands,
        "display": list(view["display"]),
        "decks": {
            "explorer": explorer_deck,
            "equipment": equipment_deck,
            "fossil": fossil_deck,
            "event": event_deck,
            "adventure": _adventure_deck(view, tasks, rng),
        },
        "discards": {k: dict(d) for k, d in view["discards"].items()},
        "fossils": [{f: p["fossils"][f] for f in FOSSILS} for p in view["players"]],
        "water": [p["water"] for p in view["players"]],
        "supply": view["water_supply"],
        "kept": kept,
        "bonuses": [list(p["bonuses"]) for p in view["players"]],
        "sightings": [list(p["sightings"]) for p in view["players"]],
        "explorers": explorers,
        "raft": view["raft"],
        "lava": view["lava_position"],
        "extra_turn": view["extra_turn"],
        # The move that reached the arrival is over, the phase not yet: its turn is ending.
        "phase_end": (phase == 1 and "end" in explorers.values()) or (phase == 2 and view["raft"] == "end"),
        "end_reason": None,
        "tasks": tasks,
        "fossil_bottom": [{"seat": put["seat"], "lamp": put["lamp"]} for put in view["fossil_deck_bottom"]],
    }


def _unseen(full: dict[str, int], *seen: dict[str, int]) -> list[str]:
    """The cards of a kind the seat has not seen: the whole kind less the piles in ``seen``."""
    left = Counter(full)
    for pile in seen:
        left -= Counter(pile)
    return sorted(left.elements())


def _deal(unseen: list[str], sizes: list[int], seat: int, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """``unseen`` shuffled and dealt to every other seat's hand size; the rest is the deck."""
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    for s, size in enumerate(sizes):
        hands.append([] if s == seat else unseen[:size])
        unseen = unseen[0 if s == seat else size :]
    return hands, unseen


def _counts(cards: list[str], names: tuple[str, ...]) -> dict[str, int]:
    """A hand part as the engine keeps it: a count for every name, in the game's order."""
    return {n: cards.count(n) for n in names}


def _played_from_hand(decision: dict[str, Any] | None) -> dict[str, int]:
    """Equipment cards a move under way has taken from its mover's hand (those played as
    *Uso flessibile* came from the kept cards): off the hand, not yet on the discard pile."""
    if decision is None or decision["kind"] != "move":
        return {}
    return {t: decision["played"][t] - decision["flexible"][t] for t in MOVE_EQUIP}


def _kept_and_event_deck(view: View, seat: int, rng: random.Random) -> tuple[list[list[str]], list[str]]:
    """Every seat's kept event cards and the event deck: the seat's own as shown, the others'
    drawn from the unseen cards that are kept, the deck the unseen cards left."""
    full = {e: EVENTS[e]["count"] for e in EVENTS}
    unseen = _unseen(full, Counter(view["hand"]["kept"]), view["out_of_game"]["events"])
    keepable = [e for e in unseen if EVENTS[e]["kept"]]
    rng.shuffle(keepable)
    kept: list[list[str]] = []
    for s, player in enumerate(view["players"]):
        if s == seat:
            kept.append(list(view["hand"]["kept"]))
            continue
        kept.append(keepable[: player["kept_count"]])
        keepable = keepable[player["kept_count"] :]
    deck = list((Counter(unseen) - Counter(e for s, k in enumerate(kept) if s != seat for e in k)).elements())
    rng.shuffle(deck)
    return kept, deck


def _fossils_unseen(view: View, rng: random.Random) -> tuple[list[str], list[str] | None]:
    """The fossil deck, and the fossils a lamp has just drawn when they are another seat's
    (a lamp is only ever the decision under way): the returned cards the seat knows stay on
    the bottom of the deck, the rest comes from the fossils not in a collection, not out of
    the game, not known to lie on the bottom and not shown to the seat by its own lamp."""
    bottom = view["fossil_deck_bottom"]
    seen = Counter(view["out_of_game"]["fossils"])
    seen += Counter(put["fossil"] for put in bottom if put["fossil"] is not None)
    for player in view["players"]:
        seen += Counter(player["fossils"])
    decision = view["decision"]
    lamp = decision if decision is not None and decision["kind"] == "lamp" else None
    if lamp is not None and "drawn" in lamp:
        seen += Counter(lamp["drawn"])
    unseen = _unseen(dict(CARDS["fossils"]), seen)
    rng.shuffle(unseen)
    lamp_drawn = None
    if lamp is not None and "drawn" not in lamp:
        lamp_drawn, unseen = unseen[: lamp["drawn_count"]], unseen[lamp["drawn_count"] :]
    known = []
    for put in bottom:  # a rival's lamp returned a card the seat has not seen
        known.append(put["fossil"] if put["fossil"] is not None else unseen.pop())
    return known + unseen, lamp_drawn


def _adventure_deck(view: View, tasks: list[Task], rng: random.Random) -> list[str]:
    """The sea adventures not turned yet, shuffled."""
    turned = {t["card"] for t in tasks if t["kind"] in ("offer", "lightning")}
    turned |= set(view["out_of_game"]["adventures"])
    turned |= {s for p in view["players"] for s in p["sightings"]}
    deck = [a for a in ADVENTURES if a not in turned]
    rng.shuffle(deck)
    return deck


def _task(public: dict[str, Any], phase: int | str) -> Task:
    """The engine's task behind its public form (``Viaggio._public_task``). A move's step
    costs are worked out again from its path; a lamp's fossils the viewer was not shown are
    left empty, for :func:`_fossils_unseen` to draw."""
    kind = public["kind"]
    if kind == "move":
        return _move(public, phase)
    if kind == "lamp":
        return {"kind": "lamp", "seat": public["seat"], "drawn": list(public.get("drawn", [])), "back": public["back"]}
    task = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in public.items()}
    if kind == "loss":
        task["seats"] = {k: dict(e) for k, e in public["seats"].items()}
    return task


def _move(public: dict[str, Any], phase: int | str) -> Task:
    """A move under way: its steps replayed on the board give what each cost (plain spaces,
    rock spaces by their rocks) and the ropes and compasses they used."""
    assert phase in BOARDS, "moves happen in phases 1 and 2"
    board = BOARDS[int(phase)]
    normal, ropes, compasses = 0, 0, 0
    rocks: list[int] = []
    at = public["from"]
    for cell in public["path"]:
        kind = board.kind(cell)
        if kind == "rocks":
            rocks.append(board.cells[cell]["rocks"])
        else:
            normal += 1
        ropes += kind in BLOCKING
        compasses += cell not in board.ortho[at]
        at = cell
    return {
        "kind": "move",
        "seat": public["seat"],
        "colour": public["colour"],
        "from": public["from"],
        "at": public["at"],
        "path": list(public["path"]),
        "normal": normal,
        "rocks": rocks,
        "played": dict(public["played"]),
        "flex": dict(public["flexible"]),
        "ropes_used": ropes,
        "compasses_used": compasses,
        "mix": public["mix"],
        "springs": public["springs"],
        "events": public["events"],
    }
