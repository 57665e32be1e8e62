"""A random bot written as a client author would: only the client that openapi-python-client
generated from the OpenAPI document (importable as ``game_referee_client``). It plays one match
of every game in the catalogue to its end and prints one JSON line per match.

Run by tests/clients/test_generated_clients.py: ``python python_bot.py BASE_URL [MAX_MOVES]``;
tests/clients/test_python_types.py type-checks it with ``mypy --strict``: the catalogue's
``GameId`` picks each game's creation body, public operations take a plain ``Client``, and the
legal actions narrow by ``game`` and then each action by ``type``, with no cast.
"""

from __future__ import annotations

import json
import random
import sys
from typing import assert_never

from game_referee_client import AuthenticatedClient, Client
from game_referee_client.api.games import list_games
from game_referee_client.api.matches import create_match, get_match, list_legal_actions, submit_action
from game_referee_client.models import (
    ActionRequest,
    EsploratoreCreateMatch,
    EsploratoreLegalActions,
    Game,
    GameId,
    GameList,
    HalunkenUndSpelunkenCreateMatch,
    HalunkenUndSpelunkenLegalActions,
    IsolaDeiVulcaniCreateMatch,
    IsolaDeiVulcaniLegalActions,
    Problem,
    TheGameAcceptStarterAction,
    TheGameCreateMatch,
    TheGameEndTurnAction,
    TheGameLegalActions,
    TheGamePlayAction,
    TheGameProposeStarterAction,
    ViaggioCreateMatch,
    ViaggioLegalActions,
)

CreateMatch = (
    EsploratoreCreateMatch
    | HalunkenUndSpelunkenCreateMatch
    | IsolaDeiVulcaniCreateMatch
    | TheGameCreateMatch
    | ViaggioCreateMatch
)
LegalActions = (
    EsploratoreLegalActions
    | HalunkenUndSpelunkenLegalActions
    | IsolaDeiVulcaniLegalActions
    | TheGameLegalActions
    | ViaggioLegalActions
)
TheGameAction = TheGameAcceptStarterAction | TheGameEndTurnAction | TheGamePlayAction | TheGameProposeStarterAction


def creation(game: GameId, players: int) -> CreateMatch:
    """The body creating a match of ``game``: one class per game, whose ``game`` is that one."""
    if game is GameId.ESPLORATORE:
        return EsploratoreCreateMatch(game="esploratore", players=players)
    if game is GameId.HALUNKEN_UND_SPELUNKEN:
        return HalunkenUndSpelunkenCreateMatch(game="halunken-und-spelunken", players=players)
    if game is GameId.ISOLA_DEI_VULCANI:
        return IsolaDeiVulcaniCreateMatch(game="isola-dei-vulcani", players=players)
    if game is GameId.THE_GAME:
        return TheGameCreateMatch(game="the-game", players=players)
    if game is GameId.VIAGGIO_AL_CENTRO_DELLA_TERRA:
        return ViaggioCreateMatch(game="viaggio-al-centro-della-terra", players=players)
    assert_never(game)


def describe_the_game(action: TheGameAction) -> str:
    """A move of The Game in words: ``type`` narrows the action to its class."""
    if action.type_ == "play":
        return f"lay {action.card} on pile {action.pile}"
    if action.type_ == "end_turn":
        return "end the turn"
    if action.type_ == "propose_starter":
        return f"propose seat {action.seat} to start"
    if action.type_ == "accept_starter":
        return "accept the proposed starter"
    assert_never(action)


def describe(legal: LegalActions) -> list[str]:
    """Each legal action in words: ``game`` narrows the answer, so its actions are that game's
    classes, and then ``type`` each action (mypy checks every field read)."""
    if legal.game == "the-game":
        return [describe_the_game(action) for action in legal.actions]
    if legal.game == "halunken-und-spelunken":
        return [f"{action.type_} {action.card}" if action.type_ == "bid" else action.type_ for action in legal.actions]
    if legal.game == "isola-dei-vulcani":
        return [f"build on {action.hex_}" if action.type_ == "build" else action.type_ for action in legal.actions]
    if legal.game == "viaggio-al-centro-della-terra":
        return [f"step to {action.to}" if action.type_ == "step" else action.type_ for action in legal.actions]
    if legal.game == "esploratore":
        return [f"build line {action.line}" if action.type_ == "build" else action.type_ for action in legal.actions]
    assert_never(legal)


def play(base_url: str, game: Game, max_moves: int, chooser: random.Random) -> dict[str, object]:
    spectator = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_match.sync(client=spectator, body=creation(game.id, game.min_players))
    if created is None or isinstance(created, Problem):
        raise SystemExit(f"create {game.id}: {created}")
    seats = {
        seat.seat: AuthenticatedClient(base_url=base_url, token=seat.token, raise_on_unexpected_status=True)
        for seat in created.seats
    }
    for moves in range(max_moves + 1):
        match = get_match.sync(client=spectator, match_id=created.match_id)
        if match is None or isinstance(match, Problem):
            raise SystemExit(f"read {game.id}: {match}")
        if match.status.value == "finished":
            assert match.outcome is not None, "a finished match has an outcome"
            return {"game": game.id, "moves": moves, "winners": match.outcome.winners, "scores": match.outcome.scores}
        seat = seats[chooser.choice(match.to_act)]
        legal = list_legal_actions.sync(client=seat, match_id=created.match_id)
        if legal is None or isinstance(legal, Problem):
            raise SystemExit(f"legal actions {game.id}: {legal}")
        if legal.game != game.id or len(describe(legal)) != len(legal.actions):
            raise SystemExit(f"legal actions {game.id}: {legal}")
        request = ActionRequest(state_token=legal.state_token, action=chooser.choice(legal.actions))
        result = submit_action.sync(client=seat, match_id=created.match_id, body=request)
        if result is None or isinstance(result, Problem):
            raise SystemExit(f"act {game.id}: {result}")
    raise SystemExit(f"{game.id}: not finished after {max_moves} moves")


def main(base_url: str, max_moves: int = 20_000) -> None:
    catalogue = list_games.sync(client=Client(base_url=base_url, raise_on_unexpected_status=True))
    assert isinstance(catalogue, GameList)
    chooser = random.Random(12)
    for game in catalogue.games:
        print(json.dumps(play(base_url, game, max_moves, chooser)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *(int(arg) for arg in sys.argv[2:3]))
