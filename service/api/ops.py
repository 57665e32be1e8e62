"""Operations: liveness, readiness, metrics."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app
from flask_smorest import Blueprint

from schemas import HealthSchema
from service import metrics
from service.store import StoreUnavailable

blp = Blueprint("ops", __name__, description="Liveness, readiness and metrics.")


@blp.route("/healthz")
@blp.response(200, HealthSchema)
def healthz() -> dict[str, Any]:
    """Liveness: the process answers."""
    return {"status": "ok"}


@blp.route("/readyz")
@blp.response(200, HealthSchema)
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
def readyz() -> Any:
    """Readiness: the match store answers."""
    kind = current_app.config["REFEREE_STORE_KIND"]
    try:
        current_app.extensions["referee"].store.ping()
    except StoreUnavailable:
        return {"status": "unavailable", "store": kind}, 503, {"Retry-After": "1"}
    return {"status": "ok", "store": kind}


@blp.route("/metrics")
@blp.response(200, description="Prometheus exposition format.", content_type="text/plain")
def prometheus_metrics() -> Response:
    """Prometheus metrics of every worker process."""
    payload, content_type = metrics.render()
    return Response(payload, mimetype=None, content_type=content_type)
