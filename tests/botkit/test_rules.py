"""``--accept RULES``: what the syntax means, and every way to get it wrong said plainly."""

from __future__ import annotations

import pytest

from service.arena.errors import ArenaError
from service.botkit.rules import AcceptRules


def challenge(**fields: object) -> dict[str, object]:
    return {"game": "the-game", "challenger": "Alice", "players": 2, "time_control": None, **fields}


def test_all_accepts_every_challenge() -> None:
    assert AcceptRules.parse("all").accepts(challenge(game="esploratore", players=7))


def test_every_condition_must_hold() -> None:
    rules = AcceptRules.parse("games=the-game,esploratore; opponents=alice,bob ;players=2,3;clock=timed")
    timed = {"per_decision_s": 5, "on_timeout": "forfeit"}
    assert rules.accepts(challenge(time_control=timed))
    assert not rules.accepts(challenge())  # untimed
    assert not rules.accepts(challenge(time_control=timed, game="isola-dei-vulcani"))
    assert not rules.accepts(challenge(time_control=timed, challenger="carol"))
    assert not rules.accepts(challenge(time_control=timed, players=4))
    assert AcceptRules.parse("clock=untimed").accepts(challenge())


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("colour=red", "'colour=red' is not one of games=…, opponents=…, players=…, clock=…"),
        ("games", "'games' is not one of"),
        ("games=a;games=b", "games is given twice"),
        ("opponents=", "opponents= names nothing"),
        ("players=two", "players= takes numbers of seats, not two"),
        ("clock=fast", "clock= is timed or untimed"),
        ("clock=timed,untimed", "clock= is timed or untimed"),
    ],
)
def test_bad_rules_are_refused_saying_why(text: str, said: str) -> None:
    with pytest.raises(ArenaError, match=f"^--accept: {said.replace('…', '.*').replace('(', '.')}"):
        AcceptRules.parse(text)
