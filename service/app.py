"""The app factory: configuration, store, referee, API, limits, logging, docs assets."""

from __future__ import annotations

import os
from typing import Any

import swagger_ui_bundle
from flask import Flask, Response, send_from_directory

from service import limits, observability
from service.api import games, matches, ops, replays
from service.api.errors import ProblemApi
from service.api.spec import ConventionsPlugin
from service.config import Settings
from service.jsonprovider import OrjsonProvider
from service.referee import Referee
from service.replay import ReplaySigner
from service.store import open_store
from service.tokens import SeatTokens, StateTokens
from service.web import blp as web_pages

API_DESCRIPTION = """\
An HTTP referee for five board and card games. Create a match, then submit actions, each with
the state token you last saw; the referee checks the action against the game's rules and
answers with the new state token and your seat's view. Errors are `application/problem+json`
with a stable `code`. Seats act with `Authorization: Bearer <seat token>`; without it you are
a spectator and may only read."""


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app from the environment; ``config`` overrides environment variables
    (``REDIS_URL``, ``REFEREE_SECRET``, …) for this app only."""
    settings = Settings.from_env({**os.environ, **(config or {})})
    observability.configure_logging()
    app = Flask("service")
    app.json = OrjsonProvider(app)
    app.config.update(
        API_TITLE="Game referee",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="/docs",
        OPENAPI_SWAGGER_UI_URL="/docs/assets/",
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION, "license": {"name": "MIT", "identifier": "MIT"}},
            "servers": [{"url": "/", "description": "The referee serving this document."}],
            "security": [{}],
            "components": {"securitySchemes": {"seatToken": {"type": "http", "scheme": "bearer"}}},
        },
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        REFEREE_STORE_KIND=settings.store_kind,
    )
    store = open_store(
        settings.store_kind,
        redis_url=settings.redis_url,
        db_path=settings.db_path,
        timeout=settings.store_timeout_seconds,
        check_redis_policy=settings.redis_policy_check,
    )
    app.extensions["referee"] = Referee(
        store, StateTokens(settings.secret), SeatTokens(settings.secret), settings.match_ttl_seconds
    )
    app.extensions["replay_signer"] = ReplaySigner.configured(settings.replay_key, settings.secret)

    api = ProblemApi(app, spec_kwargs={"extra_plugins": [ConventionsPlugin()]})
    for blueprint in (games.blp, matches.blp, replays.blp, ops.blp):
        api.register_blueprint(blueprint)
    app.register_blueprint(web_pages)
    limits.install(app, settings, exempt={ops.blp.name})
    observability.install(app, settings.access_log)

    @app.route("/docs/assets/<path:filename>")
    def swagger_assets(filename: str) -> Response:
        """Swagger UI's files, served from the installed package: /docs works offline."""
        return send_from_directory(swagger_ui_bundle.swagger_ui_path, filename)

    return app
