"""Operations: liveness, readiness, metrics."""

from __future__ import annotations

import logging
import secrets
from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from schemas import HealthSchema, examples
from service.api import metrics
from service.engine import Rng
from service.games import games
from service.store import StoreUnavailable

log = logging.getLogger("referee")

blp = Blueprint("ops", __name__, description="Liveness, readiness and metrics.")


@blp.route("/healthz")
@blp.response(200, HealthSchema, example={"status": "ok"})
@blp.doc(operationId="getLiveness")
def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, HealthSchema, example=examples.HEALTH)
@blp.alt_response(
    503,
    schema=HealthSchema,
    headers={"Retry-After": "Retry-After"},
    description="The store or the game data is unavailable.",
    example={"status": "unavailable", "store": "redis", "games": "ok"},
)
@blp.doc(operationId="getReadiness")
def readyz() -> Any:
    """Readiness: the match store answers and every game can set up a match (its data loads)."""
    kind = current_app.config["REFEREE_STORE_KIND"]
    games_state = "ok" if games_load(current_app.extensions) else "unavailable"
    try:
        current_app.extensions["referee"].store.ping()
    except StoreUnavailable:
        return {"status": "unavailable", "store": kind, "games": games_state}, 503, {"Retry-After": "1"}
    if games_state != "ok":
        return {"status": "unavailable", "store": kind, "games": games_state}, 503, {"Retry-After": "10"}
    return {"status": "ok", "store": kind, "games": games_state}


def games_load(extensions: dict[str, Any]) -> bool:
    """Whether every game sets up a match at its smallest table with default options, which
    reads all the seed data it needs. Checked until it first succeeds (``extensions`` keeps
    that), since data that loaded once stays loaded; a failure logs its cause."""
    if extensions.get("referee.games_ready"):
        return True
    try:
        for game in games().values():
            options = game.resolve_options(game.min_players, {})
            game.setup(game.min_players, options, Rng(secrets.token_hex(32)))
    except Exception:
        log.exception("the games cannot set up a match: is the game data (seeds) installed?")
        return False
    extensions["referee.games_ready"] = True
    return True


@blp.route("/metrics")
@blp.response(
    200,
    description="Prometheus exposition format.",
    content_type="text/plain",
    example='# HELP referee_moves_total Actions accepted.\nreferee_moves_total{game="the-game"} 17.0\n',
)
@blp.doc(operationId="getMetrics")
def prometheus_metrics() -> Response:
    """Prometheus metrics of every worker process."""
    payload, content_type = metrics.render()
    return Response(payload, mimetype=None, content_type=content_type)
