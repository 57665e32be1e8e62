"""The Game's agreement on who starts, for tests and tools that want to get to the cards.

A match of The Game with two or more players opens with the seats agreeing on the starter
(``propose_starter`` / ``accept_starter``, see ``service/games/the_game/starter.py``). These
helpers walk that negotiation the shortest way: seat 0 proposes, everyone else accepts.
"""

from __future__ import annotations

from typing import Any

from service.engine import Rng
from service.games.the_game import GAME
from tests.support.http import MatchClient


def agree_in_engine(state: dict[str, Any], starter: int = 0, rng: Rng | None = None) -> list[dict[str, Any]]:
    """Agree on ``starter`` through ``GAME.apply``; the events of the negotiation."""
    rng = rng or Rng(b"agree")
    events: list[dict[str, Any]] = []
    while state["agreement"] is not None:
        speaker = GAME.to_act(state)[0]
        action = (
            {"type": "propose_starter", "seat": starter}
            if state["agreement"]["proposal"] is None
            else {"type": "accept_starter"}
        )
        state, more = GAME.apply(state, speaker, action, rng)
        events += more
    return events


def agree_over_http(match: MatchClient, starter: int = 0) -> dict[str, Any]:
    """Agree on ``starter`` over HTTP; the match body once the first turn has begun."""
    body = match.get()
    while body["view"].get("starter_agreement") is not None:
        speaker = body["to_act"][0]
        token = match.legal(speaker)["state_token"]
        proposal = body["view"]["starter_agreement"]["proposal"]
        action = {"type": "propose_starter", "seat": starter} if proposal is None else {"type": "accept_starter"}
        response = match.act(speaker, token, action)
        assert response.status_code == 200, response.get_json()
        match.moves += 1
        body = match.get()
    return body
