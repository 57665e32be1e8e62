"""A Python bot's decisions as the arena's loop takes them: an exception or an answer that is
not an action is the bot's fault, like a crash or garbage from a command."""

from __future__ import annotations

from typing import Any

import pytest

from service.arena.errors import BotFault
from service.arena.players import Observation
from service.botkit.seat import CallablePlayer


def observation() -> Observation:
    return Observation("m", "the-game", 2, 0, 1, "t", {"hand": [3]}, [{"type": "pass"}], [0], None, 0)


def test_the_choice_is_the_answer() -> None:
    player = CallablePlayer(lambda view, legal: legal[0] | {"hand": view["hand"]})
    player.ask(observation())
    assert player.poll(0) == {"type": "pass", "hand": [3]}


def broken(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    raise KeyError("piles")


@pytest.mark.parametrize(
    ("choose", "reason", "detail"),
    [
        (broken, "crashed", "choose raised KeyError: 'piles'"),
        (lambda view, legal: "pass", "bad_output", "choose returned 'pass', not an action object"),
    ],
)
def test_a_failing_choice_is_the_bots_fault(choose: Any, reason: str, detail: str) -> None:
    player = CallablePlayer(choose)
    player.ask(observation())
    with pytest.raises(BotFault) as fault:
        player.poll(0)
    assert (fault.value.reason, fault.value.detail) == (reason, detail)
