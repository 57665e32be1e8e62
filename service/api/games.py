"""The game catalogue."""

from __future__ import annotations

from typing import Any

from flask_smorest import Blueprint

from schemas import GameListSchema, GameSchema, examples
from service.api.problems import NotFound
from service.games import games

blp = Blueprint("games", __name__, url_prefix="/v1/games", description="The games this referee knows.")


@blp.route("")
@blp.response(200, GameListSchema, example={"games": [examples.GAME]})
@blp.doc(operationId="listGames")
def list_games() -> dict[str, Any]:
    """List the games, with player counts, options and action schemas."""
    return {"games": [game.describe() for game in games().values()]}


@blp.route("/<game_id>")
@blp.response(200, GameSchema, example=examples.GAME)
@blp.alt_response(404, response="NOT_FOUND")
@blp.doc(operationId="getGame")
def get_game(game_id: str) -> dict[str, Any]:
    """Describe one game: options with defaults and the JSON schema of every action type."""
    game = games().get(game_id)
    if game is None:
        raise NotFound("unknown_game", f"No game {game_id!r}; known: {', '.join(games())}.")
    return game.describe()
