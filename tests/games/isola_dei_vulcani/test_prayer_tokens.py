"""A prayer token saves anyone's piece, not only its holder's: reached through seeded bot
matches, then played through the public contract."""

from __future__ import annotations

from service.engine import Rng
from service.games.isola_dei_vulcani import GAME
from service.games.isola_dei_vulcani.state import pieces_on
from tests.games.isola_dei_vulcani.helpers import first_state


def _prays_for_another(state):
    d = state["decision"]
    return (
        bool(d)
        and d["kind"] == "prayer"
        and any(a["type"] == "pray" and a["owner"] != s for s in d["waiting"] for a in GAME.legal_actions(state, s))
    )


def test_a_prayer_token_saves_another_players_piece():
    state = first_state(3, "standard", range(10), _prays_for_another)
    payer, action = next(
        (s, a)
        for s in state["decision"]["waiting"]
        for a in GAME.legal_actions(state, s)
        if a["type"] == "pray" and a["owner"] != s
    )
    owner, hex_, piece = action["owner"], action["hex"], action["piece"]
    before = pieces_on(state["hexes"][hex_], piece).count(owner)
    tokens = [p["prayer_tokens"] for p in state["seats"]]
    rng = Rng(b"pray")
    state, events = GAME.apply(state, payer, action, rng)
    assert {"type": "prayed", "seat": payer, "hex": hex_, "piece": action["piece"], "owner": owner} in events
    while state["decision"] is not None and state["decision"]["kind"] == "prayer":
        seat = GAME.to_act(state)[0]
        state, more = GAME.apply(state, seat, {"type": "accept_loss"}, rng)
        events += more
    assert state["hexes"][hex_]["lava"], "the lava still lands there"
    assert pieces_on(state["hexes"][hex_], piece).count(owner) == 1, "the prayed-for piece stays"
    assert state["seats"][payer]["prayer_tokens"] == tokens[payer] - 1
    assert state["seats"][owner]["prayer_tokens"] == tokens[owner]
    destroyed = [p for e in events if e["type"] == "destroyed" and e["hex"] == hex_ for p in e["pieces"]]
    assert sum(1 for p in destroyed if p == {"seat": owner, "piece": action["piece"]}) == before - 1
