"""The two-player variant's Black Jack robs only the opponent it ends its move on, and the theft
is optional ("egli può rubare"); the standard game's theft stays compulsory. Every situation is
reached by seeded random play."""

from __future__ import annotations

import pytest

from service.engine import IllegalAction, Rng
from service.games.halunken_und_spelunken import GAME
from tests.games.halunken_und_spelunken.playouts import Step, first, of_type, random_steps


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
