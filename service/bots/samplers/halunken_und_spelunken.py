"""A Halunken und Spelunken state drawn from one seat's view.

Public in the view: the board, every collection, the harbour, the movement cards each seat has
played (so every hand: the eight cards less those), the taverns' face-up top cards and sizes,
Black Jack's used cards, the auction, the reveal and any decision under way. Hidden, and drawn
here:

- the pirate cards below the taverns' tops (all of them during the set-up, before the tops are
  turned): the cards no one has seen, shuffled into the stacks to their sizes;
- the movement card each rival has committed this round: any one of its hand;
- Black Jack's deck order (standard game: the cards not used yet; two-player: the public
  remaining cards), and the card a two-player controller committed for it, when that controller
  is someone else.

The view omits the resolution queue, which every seat saw built from the reveal: the sampler
rebuilds it from the reveal, the pending decision and the board (:func:`resolution_queue`).
"""

from __future__ import annotations

import random
from typing import Any

from service.engine import Game, State, View, load_seed
from service.games.halunken_und_spelunken.engine import BJ, GAME_ID, STANDARD, TWO
from service.games.halunken_und_spelunken.state import Movement, Step


def sample_state(game: Game[Any], view: View, seat: int, rng: random.Random) -> State:
    """A state ``game`` accepts whose view for ``seat`` is ``view``, its hidden parts random."""
    data = load_seed(GAME_ID, "game")
    players = view["players"]
    hands = [[c for c in data["captain_movement"] if c not in view["played"][s]] for s in range(players)]
    commits: list[Movement | None] = [
        (view["my_commit"] if s == seat else rng.choice(hands[s])) if view["committed"][s] else None
        for s in range(players)
    ]
    black_jack_deck, black_jack_commit = _black_jack_cards(view, seat, data, rng)
    state: State = {
        "players": players,
        "variant": view["variant"],
        "round": view["round"],
        "phase": view["phase"],
        "placer": view["to_act"][0] if view["phase"] == "place_captain" else None,
        "taverns_open": _taverns_open(view),
        "taverns": _taverns(view, data, rng),
        "captains": list(view["captains"]),
        "black_jack": view["black_jack"],
        "collections": [list(c) for c in view["collections"]],
        "start_cards": list(view["start_cards"]),
        "hands": hands,
        "played": [list(p) for p in view["played"]],
        "commits": commits,
        "black_jack_commit": black_jack_commit,
        "black_jack_deck": black_jack_deck,
        "black_jack_used": list(view.get("black_jack_deck", {}).get("used", [])),
        "harbour": list(view["harbour"]),
        "controller": view["controller"],
        "last_controller": view["last_controller"],
        "auction": dict(view["auction"], out=list(view["auction"]["out"])) if "auction" in view else None,
        "reveal": None if view["reveal"] is None else _copy_reveal(view["reveal"]),
        "queue": [],
        "pending": None if view["pending"] is None else dict(view["pending"]),
    }
    if state["phase"] == "resolve":
        state["queue"] = resolution_queue(view)
    return state


def _taverns_open(view: View) -> bool:
    """The tops are turned once every captain is placed, and never turned back."""
    return view["phase"] != "place_captain"


def _taverns(view: View, data: dict[str, Any], rng: random.Random) -> list[list[str]]:
    """Every stack at its size, its visible top kept, the rest dealt from the unseen cards."""
    deck = [f"{colour}-{v}" for colour, values in data["pirates"].items() for v in values]
    seen = {c for cards in view["collections"] for c in cards} | set(view["harbour"])
    seen |= {t["top"] for t in view["taverns"] if t["top"] is not None}
    unseen = [c for c in deck if c not in seen]
    rng.shuffle(unseen)
    taverns = []
    for tavern in view["taverns"]:
        top = [tavern["top"]] if tavern["top"] is not None else []
        hidden = tavern["cards"] - len(top)
        taverns.append(top + unseen[:hidden])
        del unseen[:hidden]
    return taverns


def _black_jack_cards(
    view: View, seat: int, data: dict[str, Any], rng: random.Random
) -> tuple[list[Movement], Movement | None]:
    """Black Jack's deck in a random order, and the two-player controller's hidden commit."""
    variant = view["variant"]
    if variant not in (STANDARD, TWO):
        return [], None
    public = view["black_jack_deck"]
    if variant == STANDARD:
        deck: list[Movement] = [c for c in data["black_jack_movement"] if c not in public["used"]]
        rng.shuffle(deck)
        return deck, None
    deck = list(public["remaining"])
    rng.shuffle(deck)
    if not public["committed"]:
        return deck, None
    mine = view.get("my_black_jack_commit")
    return deck, mine if mine is not None else rng.choice(deck)


def _copy_reveal(reveal: dict[str, Any]) -> dict[str, Any]:
    return {
        "cards": dict(reveal["cards"]),
        "cancelled": list(reveal["cancelled"]),
        "values": dict(reveal["values"]),
    }


def resolution_queue(view: View) -> list[Step]:
    """The steps of the round's resolution still to come after the pending decision.

    Pieces move in ascending order of their (distinct) values; a captain's landing runs robbery,
    push, then Black Jack's harbour and step; Black Jack's move queues its robberies. So the
    pending decision says which step is under way, and the reveal which moves follow it.
    """
    pending = view["pending"]
    if pending["kind"] == "rum":
        return [{"op": "order"}]
    values: dict[str, int] = {k: v for k, v in view["reveal"]["values"].items() if v is not None}
    tail: list[Step] = []
    if view["variant"] == STANDARD:
        tail.append({"op": "black_jack_turn"})
    tail.append({"op": "end_round"})
    seat = pending["seat"]
    captains = view["captains"]
    kind = pending["kind"]
    robbed_by_black_jack = kind == "give" or (kind == "steal" and captains[seat] != captains[pending["victim"]])
    if robbed_by_black_jack:
        victim = seat if kind == "give" else pending["victim"]
        later: list[Step] = [{"op": "rob_black_jack", "victim": v} for v in _overtaken_after(view, victim)]
        if view["variant"] == STANDARD:  # Black Jack's own move closes the round
            return later + [{"op": "end_round"}]
        return later + _moves_after(values, values[BJ]) + tail
    landing: list[Step] = []
    if kind == "steal":
        landing.append({"op": "push", "seat": pending["victim"]})
    if kind == "steal" and view["black_jack"] == captains[seat]:
        landing.append({"op": "land_on_black_jack", "seat": seat})
    if kind in ("steal", "harbour") and view["black_jack"] == captains[seat]:
        landing.append({"op": "push_black_jack", "seat": seat})
    return landing + _moves_after(values, values[str(seat)]) + tail


def _moves_after(values: dict[str, int], current: int) -> list[Step]:
    return [
        {"op": "move", "piece": k, "steps": v} for k, v in sorted(values.items(), key=lambda kv: kv[1]) if v > current
    ]


def _overtaken_after(view: View, victim: int) -> list[int]:
    """Standard game: the captains Black Jack passed after ``victim`` on its way to where it
    stands, in the order it robs them (its controller is never robbed). In the two-player
    variant Black Jack robs only the captain its move ended on, so no one follows."""
    if view["variant"] != STANDARD:
        return []
    spaces = len(view["taverns"])
    captains = view["captains"]
    end = view["black_jack"]
    out = []
    space = (captains[victim] + 1) % spaces
    while space != end:
        who = next((s for s, p in enumerate(captains) if p == space), None)
        if who is not None and who != view["controller"]:
            out.append(who)
        space = (space + 1) % spaces
    return out
