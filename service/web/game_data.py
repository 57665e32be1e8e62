"""The games' data files for the drawing modules of the watch page: ``/seeds/<game>/<name>.json``.

A board the page draws (Viaggio's descent and sea, say) is the seed file the engine plays on,
read by the browser from here, so the picture never drifts from the rules. Everything in
``seeds/`` is public game material (boards, card lists, rule numbers): no match state.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, abort, request

from service.engine.seeds import seeds_dir
from service.games import games

blp = Blueprint("game_data", __name__)

_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
"""A data file's name: no dots or slashes, so a request cannot leave the game's folder."""


@blp.get("/seeds/<game_id>/<name>.json")
def seed_file(game_id: str, name: str) -> Response:
    """One data file of a known game, revalidated by ETag (it changes only with a release)."""
    if game_id not in games() or not _NAME.match(name):
        abort(404)
    path = seeds_dir() / game_id / f"{name}.json"
    if not path.is_file():
        abort(404)
    response = Response(path.read_bytes(), mimetype="application/json")
    response.cache_control.no_cache = True
    response.add_etag()
    response.make_conditional(request)  # a 304 when the client's ETag still matches
    return response
