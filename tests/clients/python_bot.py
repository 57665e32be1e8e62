"""A random bot written as a client author would: only the client that openapi-python-client
generated from the OpenAPI document (importable as ``game_referee_client``). It plays one match
of every game in the catalogue to its end and prints one JSON line per match.

Run by tests/clients/test_generated_clients.py: ``python python_bot.py BASE_URL [MAX_MOVES]``.
"""

from __future__ import annotations

import json
import random
import sys

from game_referee_client import AuthenticatedClient, Client
from game_referee_client.api.games import list_games
from game_referee_client.api.matches import create_match, get_match, list_legal_actions, submit_action
from game_referee_client.models import ActionRequest, CreateMatch, Game, Problem


def play(base_url: str, game: Game, max_moves: int, chooser: random.Random) -> dict[str, object]:
    spectator = Client(base_url=base_url, raise_on_unexpected_status=True)
    created = create_match.sync(client=spectator, body=CreateMatch(game=game.id, players=game.min_players))
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
        request = ActionRequest(state_token=legal.state_token, action=chooser.choice(legal.actions))
        result = submit_action.sync(client=seat, match_id=created.match_id, body=request)
        if result is None or isinstance(result, Problem):
            raise SystemExit(f"act {game.id}: {result}")
    raise SystemExit(f"{game.id}: not finished after {max_moves} moves")


def main(base_url: str, max_moves: int = 20_000) -> None:
    catalogue = list_games.sync(client=Client(base_url=base_url, raise_on_unexpected_status=True))
    assert catalogue is not None and not isinstance(catalogue, Problem)
    chooser = random.Random(12)
    for game in catalogue.games:
        print(json.dumps(play(base_url, game, max_moves, chooser)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], *(int(arg) for arg in sys.argv[2:3]))
