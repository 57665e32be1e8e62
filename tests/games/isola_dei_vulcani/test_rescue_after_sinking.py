"""The rescue after a sinking: the acting player chooses first, in the open, then the others at
once, unseen by each other until all have answered. Reached through seeded bot matches."""

from __future__ import annotations

from service.engine import Rng
from service.games.isola_dei_vulcani import GAME
from tests.games.isola_dei_vulcani.helpers import first_state


def _rescue_with_two_others(state):
    d = state["decision"]
    return bool(d) and d["kind"] == "rescue" and d["stage"] == "actor" and len(d["others"]) >= 2


def test_rescue_the_acting_player_first_then_the_others_unseen():
    state = first_state(4, "standard", range(10), _rescue_with_two_others)
    d = state["decision"]
    actor, (a, b, *_) = d["actor"], d["others"]
    rng = Rng(b"rescue")
    assert GAME.to_act(state) == [actor], "1. il giocatore di turno"
    assert GAME.legal_actions(state, a) == []
    to = d["targets"][0]
    state, events = GAME.apply(state, actor, {"type": "rescue", "to": to}, rng)
    assert events[0] == {"type": "rescue_chosen", "seat": actor, "dest": to}
    assert GAME.to_act(state) == sorted(d["others"]), "2. gli altri giocatori"
    assert GAME.view(state, b)["decision"]["actor_choice"] == to, "the actor's choice is final"
    mine = d["targets"][-1]
    action = {"type": "rescue", "to": mine}
    state, events = GAME.apply(state, a, action, rng)
    assert events == [] and GAME.to_act(state) == sorted(s for s in d["others"] if s != a)
    for viewer in (b, actor, None):
        shown = GAME.view(state, viewer)["decision"]
        assert "moves" not in shown and a in shown["answered"]
        assert shown.get("your_choice") == (to if viewer == actor else None), "never a's choice"
        assert GAME.redact_action(action, a, viewer) == {"type": "rescue", "to": None}
    assert GAME.view(state, a)["decision"]["your_choice"] == mine
    assert GAME.redact_action(action, a, a) == action
    while GAME.to_act(state) and state["decision"] is not None and state["decision"]["kind"] == "rescue":
        state, more = GAME.apply(state, GAME.to_act(state)[0], {"type": "abandon"}, rng)
        events += more
    sunk = next(e for e in events if e["type"] == "sunk")
    assert {"seat": a, "hex": mine, "colonists": 1} in sunk["saved"]
    assert any(s["seat"] == actor and s["hex"] == to for s in sunk["saved"])
