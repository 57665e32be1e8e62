"""Black Jack steps aside after a captain lands on it: "Infine, Black Jack viene spostato in uno
spazio libero adiacente" (one space either way, the captain choosing when both are free; with
neither free it stays). Every situation is reached by seeded random play."""

from __future__ import annotations

import pytest

from service.engine import IllegalAction, Rng
from service.games.halunken_und_spelunken import GAME
from tests.games.halunken_und_spelunken.playouts import Step, first, of_type, random_steps

SPACES = 14


def beside(space: int) -> set[int]:
    return {(space - 1) % SPACES, (space + 1) % SPACES}


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
