"""Halunken und Spelunken, issue 13 ("Rules, second reading"): Black Jack's step aside, the
two-player Black Jack's optional theft, the movement order. Every situation is reached by
seeded random play through ``setup`` / ``legal_actions`` / ``apply``."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from service.engine import IllegalAction, Rng
from service.games.halunken_und_spelunken import GAME

SPACES = 14


@dataclass
class Step:
    """One decision of a random playout: the state before it, who acted, what, and the events."""

    before: dict[str, Any]
    seat: int
    action: dict[str, Any]
    after: dict[str, Any]
    events: list[dict[str, Any]]


def random_steps(players: int, variant: str, seeds: range) -> Iterator[Step]:
    """Every decision of seeded random playouts, one match after the other."""
    for seed in seeds:
        chooser = random.Random(seed)
        rng = Rng(seed.to_bytes(32, "big"))
        state = GAME.setup(players, GAME.resolve_options(players, {"variant": variant}), rng)
        while to_act := GAME.to_act(state):
            seat = chooser.choice(to_act)
            action = chooser.choice(GAME.legal_actions(state, seat))
            before = copy.deepcopy(state)
            rng = Rng(rng.seed, rng.position())
            state, events = GAME.apply(state, seat, action, rng)
            yield Step(before, seat, action, state, events)


def first(steps: Iterator[Step], found: Callable[[Step], bool]) -> Step:
    return next(step for step in steps if found(step))


def beside(space: int) -> set[int]:
    return {(space - 1) % SPACES, (space + 1) % SPACES}


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# -- "Infine, Black Jack viene spostato in uno spazio libero adiacente" ---------------------------


def waiting_for_black_jack_step(step: Step) -> bool:
    pending = step.after["pending"]
    return pending is not None and pending["kind"] == "black_jack_step"


@pytest.mark.parametrize("players,variant", [(3, "standard"), (2, "two-player")])
def test_with_both_spaces_beside_black_jack_free_the_captain_who_landed_chooses(players: int, variant: str) -> None:
    step = first(random_steps(players, variant, range(200)), waiting_for_black_jack_step)
    state = step.after
    lander = state["pending"]["seat"]
    bj = state["black_jack"]
    assert state["captains"][lander] == bj, "the captain ended its move on Black Jack's space"
    assert GAME.to_act(state) == [lander]
    legal = GAME.legal_actions(state, lander)
    assert {a["space"] for a in legal} == beside(bj) and {a["type"] for a in legal} == {"move_black_jack"}
    farther = (bj + 2) % SPACES
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, lander, {"type": "move_black_jack", "space": farther}, Rng(b"x"))
    assert info.value.code == "space_not_beside_black_jack"
    counter_clockwise = (bj - 1) % SPACES
    _, events = GAME.apply(state, lander, {"type": "move_black_jack", "space": counter_clockwise}, Rng(b"x"))
    assert state["black_jack"] == counter_clockwise
    assert of_type(events, "black_jack_pushed")[0] == {
        "type": "black_jack_pushed",
        "seat": lander,
        "from_space": bj,
        "to_space": counter_clockwise,
    }


def test_with_one_space_beside_it_free_black_jack_goes_there_even_against_the_clock() -> None:
    """The old reading pushed Black Jack clockwise to the next free space, jumping over a
    captain; now it steps back when only the space behind it is free."""

    def pushed_back_past_an_occupied_clockwise_space(step: Step) -> bool:
        for e in of_type(step.events, "black_jack_pushed"):
            ahead = (e["from_space"] + 1) % SPACES
            if e["to_space"] == (e["from_space"] - 1) % SPACES and ahead in step.after["captains"]:
                return step.action["type"] != "move_black_jack"  # no choice: the engine moved it
        return False

    step = first(random_steps(3, "standard", range(300)), pushed_back_past_an_occupied_clockwise_space)
    pushed = of_type(step.events, "black_jack_pushed")[0]
    assert pushed["to_space"] == (pushed["from_space"] - 1) % SPACES


def test_with_no_free_space_beside_it_black_jack_stays_and_never_jumps() -> None:
    """Both neighbours taken: Black Jack stays on its space beside the captain who landed
    there (until its own move at the end of the round) rather than jump farther."""
    step = first(random_steps(3, "standard", range(400)), lambda s: bool(of_type(s.events, "black_jack_stays")))
    stays = of_type(step.events, "black_jack_stays")[0]
    space = stays["space"]
    at_stay = step.events.index(stays)
    pos = list(step.before["captains"])
    for e in step.events[:at_stay]:
        if e["type"] in ("captain_moved", "captain_pushed"):
            pos[e["seat"]] = e["to_space"]
    assert space in pos and beside(space) <= set(pos), "a captain on it and on both spaces beside it"
    later = [e for e in step.events[at_stay:] if e["type"] in ("black_jack_pushed", "black_jack_moved")]
    assert later and later[0]["type"] == "black_jack_moved" and later[0]["from_space"] == space


@pytest.mark.parametrize("players,variant", [(3, "standard"), (4, "standard"), (2, "two-player")])
def test_black_jack_is_only_ever_pushed_to_a_free_space_beside_it(players: int, variant: str) -> None:
    pushes = 0
    for step in random_steps(players, variant, range(25)):
        for e in of_type(step.events, "black_jack_pushed"):
            pushes += 1
            assert e["to_space"] in beside(e["from_space"])
        if waiting_for_black_jack_step(step):
            pending = step.after["pending"]
            free = {s for s in beside(step.after["black_jack"]) if s not in step.after["captains"]}
            assert set(pending["spaces"]) == free and len(free) == 2
    assert pushes


# -- Two-player variant: "Se Black Jack termina il movimento nello spazio in cui si trova il
#    Capitano dell'avversario, egli può rubare una carta all'avversario" -----------------------


def test_two_player_black_jack_robs_only_the_opponent_it_ends_its_move_on() -> None:
    """Right after Black Jack's move a theft is settled exactly when it ended its move on a
    captain other than its controller's; captains it only passed are never robbed."""
    ended_on_opponent = passed_only = 0
    for step in random_steps(2, "two-player", range(60)):
        for i, e in enumerate(step.events):
            if e["type"] != "black_jack_moved":
                continue
            following = step.events[i + 1] if i + 1 < len(step.events) else None
            if following is None:
                theft = step.after["pending"] is not None and step.after["pending"]["kind"] in ("steal", "give")
            else:
                theft = following["type"] in ("stole", "robbed_by_black_jack", "no_robbery")
            on_opponent = e["ended_on"] is not None and e["ended_on"] != e["controller"]
            assert theft == on_opponent, e
            ended_on_opponent += on_opponent
            passed_only += bool(e["overtaken"]) and e["ended_on"] is None
    assert ended_on_opponent and passed_only


def optional_theft(step: Step) -> bool:
    pending = step.after["pending"]
    return pending is not None and pending["kind"] == "steal" and bool(pending.get("optional"))


def test_two_player_theft_is_optional_and_the_controller_may_decline() -> None:
    step = first(random_steps(2, "two-player", range(200)), optional_theft)
    state = step.after
    pending = state["pending"]
    controller, victim = pending["seat"], pending["victim"]
    assert controller == state["controller"] and victim != controller
    moved = of_type(step.events, "black_jack_moved")[-1]
    assert moved["ended_on"] == victim, "Black Jack ended its move on the opponent's captain"
    legal = GAME.legal_actions(state, controller)
    assert {"type": "decline"} in legal
    assert {a["card"] for a in legal if a["type"] == "steal"} == set(state["collections"][victim])
    kept = list(state["collections"][victim])
    mine = list(state["collections"][controller])
    _, events = GAME.apply(state, controller, {"type": "decline"}, Rng(b"x"))
    assert events[0] == {"type": "theft_declined", "seat": controller, "victim": victim}
    if not [e for e in events if e["type"] == "stole" and e["victim"] == victim]:  # robbed later by a landing
        assert set(kept) <= set(state["collections"][victim])
        assert set(mine) <= set(state["collections"][controller])
        assert not set(kept) & set(state["collections"][controller])


def test_two_player_controller_may_also_take_the_theft() -> None:
    step = first(random_steps(2, "two-player", range(200)), optional_theft)
    state = step.after
    controller, victim = state["pending"]["seat"], state["pending"]["victim"]
    card = state["collections"][victim][0]
    _, events = GAME.apply(state, controller, {"type": "steal", "card": card}, Rng(b"x"))
    assert {"type": "stole", "seat": controller, "victim": victim, "card": card} in events
    assert card in state["collections"][controller] and card not in state["collections"][victim]


def test_standard_theft_stays_compulsory_and_decline_is_refused() -> None:
    def standard_steal(step: Step) -> bool:
        pending = step.after["pending"]
        return pending is not None and pending["kind"] == "steal"

    step = first(random_steps(3, "standard", range(200)), standard_steal)
    state = step.after
    seat = state["pending"]["seat"]
    assert {"type": "decline"} not in GAME.legal_actions(state, seat)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, {"type": "decline"}, Rng(b"x"))
    assert info.value.code == "theft_not_optional"


# -- "Il giocatore che ha usato la carta di valore più basso parte per primo, seguito dagli
#    avversari in ordine decrescente delle loro carte giocate": lowest first, then ascending ----


def test_movement_order_is_lowest_first_then_ascending() -> None:
    state = GAME.setup(4, GAME.resolve_options(4, {"variant": "introductory"}), Rng(b"order"))
    for seat, space in enumerate((0, 3, 6, 9)):
        state, _ = GAME.apply(state, seat, {"type": "place_captain", "space": space}, Rng(b"x"))
    events: list[dict[str, Any]] = []
    for seat, card in enumerate((7, 1, 5, 3)):
        assert {"type": "play", "card": card} in GAME.legal_actions(state, seat)
        state, more = GAME.apply(state, seat, {"type": "play", "card": card}, Rng(b"x"))
        events += more
    moved = of_type(events, "captain_moved")
    assert [(e["seat"], e["steps"]) for e in moved] == [(1, 1), (3, 3), (2, 5), (0, 7)], (
        "1, 3, 5, 7 — not 1, then 7, 5, 3 as a literal 'decrescente' would give"
    )
    assert state["captains"] == [7, 4, 11, 12]
