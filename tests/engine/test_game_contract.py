"""The Game base class: option resolution, action checking with reasons, catalogue entry.

A tiny counting game, defined here only, exercises the contract without any real rulebook.
"""

from __future__ import annotations

from typing import Any

import pytest

from service.engine import ActionType, Game, IllegalAction, InvalidOptions, NotYourTurn, Option, Rng
from tests.support.contract import assert_replays, random_playout


class CountTo(Game):
    """Players take turns adding 1 or 2 (or a die roll) to a total; reaching the target ends it."""

    id = "count-to"
    title = "Count to"
    min_players = 1
    max_players = 3
    options = (
        Option("target", "int", 10, "The total that ends the game.", minimum=3, maximum=50),
        Option("dice", "bool", False, "Allow rolling a die instead."),
        Option(
            "mode",
            "enum",
            "fast",
            "Pace.",
            choices=("fast", "slow"),
            default_for=lambda n: "slow" if n == 1 else "fast",
        ),
    )
    action_types = (
        ActionType("add", "Add to the total.", {"amount": {"enum": [1, 2]}}),
        ActionType("roll", "Add a die roll.", {}),
    )

    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> dict[str, Any]:
        return {"players": players, "target": options["target"], "dice": options["dice"], "total": 0, "turn": 0}

    def to_act(self, state: dict[str, Any]) -> list[int]:
        return [] if state["total"] >= state["target"] else [state["turn"]]

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_act(state):
            return []
        actions = [{"type": "add", "amount": 1}, {"type": "add", "amount": 2}]
        return actions + ([{"type": "roll"}] if state["dice"] else [])

    def perform(self, state, seat, action, rng):
        amount = action["amount"] if action["type"] == "add" else rng.between(1, 6)
        state["total"] += amount
        state["turn"] = (state["turn"] + 1) % state["players"]
        return state, [{"type": "added", "seat": seat, "amount": amount}, {"type": "secret", "to": [seat]}]

    def view(self, state, seat):
        return {"total": state["total"], "target": state["target"]}

    def outcome(self, state):
        if self.to_act(state):
            return None
        winner = (state["turn"] - 1) % state["players"]
        return {
            "scores": [int(s == winner) for s in range(state["players"])],
            "ranks": [1 if s == winner else 2 for s in range(state["players"])],
            "winners": [winner],
            "detail": {},
        }


GAME = CountTo()


def test_options_are_validated_and_defaulted() -> None:
    assert GAME.resolve_options(2, {}) == {"target": 10, "dice": False, "mode": "fast"}
    assert GAME.resolve_options(1, {"target": 20})["mode"] == "slow", "a per-player-count default"
    for bad in ({"target": 2}, {"target": "10"}, {"target": True}, {"dice": 1}, {"mode": "medium"}):
        with pytest.raises(InvalidOptions) as info:
            GAME.resolve_options(2, bad)
        assert info.value.code == "invalid_option"
    with pytest.raises(InvalidOptions, match="no option"):
        GAME.resolve_options(2, {"colour": "red"})
    with pytest.raises(InvalidOptions) as info:
        GAME.resolve_options(4, {})
    assert info.value.code == "invalid_player_count"


def test_actions_outside_the_legal_list_are_refused_with_reasons() -> None:
    state = GAME.setup(2, GAME.resolve_options(2, {}), Rng(b"s"))
    with pytest.raises(NotYourTurn) as turn:
        GAME.apply(state, 1, {"type": "add", "amount": 1}, Rng(b"s"))
    assert turn.value.code == "not_your_turn" and turn.value.to_act == [0]
    cases = {
        "unknown_action_type": {"type": "jump"},
        "bad_action": {"type": "add"},
        "illegal_action": {"type": "roll"},
    }
    for code, action in cases.items():
        with pytest.raises(IllegalAction) as info:
            GAME.apply(state, 0, action, Rng(b"s"))
        assert info.value.code == code
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, 0, {"type": "add", "amount": 1, "also": 2}, Rng(b"s"))
    assert "'also' was unexpected" in info.value.message
    for amount in [True, 1.0, "1", None, 2**64]:
        with pytest.raises(IllegalAction) as info:
            GAME.apply(state, 0, {"type": "add", "amount": amount}, Rng(b"s"))
        assert info.value.code == "bad_action", "Python's 1 == True == 1.0 must not pass as 1"
    assert state["total"] == 0


def test_events_addressed_to_a_seat_reach_only_that_seat() -> None:
    events = [{"type": "public"}, {"type": "private", "to": [1]}]
    assert GAME.visible_events(events, 1) == events
    assert GAME.visible_events(events, 0) == [{"type": "public"}]
    assert GAME.visible_events(events, None) == [{"type": "public"}]


def test_catalogue_entry_has_schemas() -> None:
    entry = GAME.describe()
    assert entry["options_schema"]["properties"]["target"] == {
        "description": "The total that ends the game.",
        "default": 10,
        "type": "integer",
        "minimum": 3,
        "maximum": 50,
    }
    assert entry["action_schemas"]["add"]["required"] == ["type", "amount"]
    assert entry["action_schemas"]["roll"]["additionalProperties"] is False


@pytest.mark.parametrize("players", [1, 2, 3])
def test_the_contract_checks_pass_on_a_correct_game(players: int) -> None:
    playout = random_playout(GAME, players, {"dice": True}, seed=players)
    assert_replays(GAME, playout)
