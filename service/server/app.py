"""The app factory: configuration, store, referee, API, limits, logging, pages."""

from __future__ import annotations

import os
from collections.abc import Callable
from types import FunctionType
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from schemas.sockets import MESSAGES
from service.accounts import Accounts
from service.api import (
    bot_streams,
    bots,
    challenges,
    games,
    ladders,
    limits,
    matches,
    metrics,
    observability,
    ops,
    replays,
    sockets,
    streams,
)
from service.api.action_lane import ActionLane
from service.api.errors import ProblemApi
from service.api.headers import SecurityHeaders
from service.api.spec import ADMIN_TOKEN, BOT_KEY, DEFAULT_SECURITY, SEAT_TOKEN, ConventionsPlugin, GameTypesPlugin
from service.bots.thinkers import Thinkers
from service.cache import node as node_cache
from service.cache.decoded import DecodedMatches
from service.cache.process import MatchCache
from service.challenges import Challenges, safe_hook
from service.clock import StoreClock, wall_ms
from service.ladders import Ladders
from service.listing import Listing
from service.live.feeds import open_feed
from service.live.followers import LiveMatches
from service.live.slots import StreamSlots
from service.live.sweeper import Sweeper
from service.live.waiting import WaitingRequests
from service.match import Match, Snapshot
from service.referee import Referee
from service.replay.document import ReplaySigner
from service.server.config import Settings
from service.server.memory import give_back_memory
from service.server.offload import off_the_hub
from service.store import RedisStore, open_accounts, open_ladders, open_store
from service.tokens import SeatTokens, StateTokens
from service.web import blp as web_pages
from service.web import game_data
from service.web.docs import blp as docs_page

API_DESCRIPTION = """\
An HTTP referee for five board and card games. Create a match, then submit actions, each with
the state token you last saw; the referee checks the action against the game's rules and
answers with the new state token and your seat's view. Errors are `application/problem+json`
with a stable `code`. Seats act with `Authorization: Bearer <seat token>`; without it you are
a spectator and may only read."""


class RefereeFlask(Flask):
    """Flask, remembering which view and hook functions are coroutines.

    Flask and flask-smorest ask :meth:`ensure_sync` about every view, decorator layer and
    before/after hook on every request (17 times for a move), and each answer walks
    ``inspect.iscoroutinefunction``; a plain function's answer never changes, so it is kept.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync_functions: dict[Callable[..., Any], Callable[..., Any]] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if type(func) is not FunctionType:  # bound methods are made anew per call: not kept
            return super().ensure_sync(func)
        sync = self._sync_functions.get(func)
        if sync is None:
            sync = self._sync_functions[func] = super().ensure_sync(func)
        return sync


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """Build the app from the environment; ``config`` overrides environment variables
    (``REDIS_URL``, ``REFEREE_SECRET``, …) for this app only."""
    settings = Settings.from_env({**os.environ, **(config or {})})
    observability.configure_logging()
    app = RefereeFlask("service", static_folder=None)  # static files belong to the web blueprint
    app.config.update(
        API_TITLE="Game referee",
        API_VERSION="1.0.0",
        OPENAPI_VERSION="3.1.0",
        OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={
            "info": {"description": API_DESCRIPTION, "license": {"name": "MIT", "identifier": "MIT"}},
            "servers": [{"url": "/", "description": "The referee serving this document."}],
            "security": DEFAULT_SECURITY,
            "components": {"securitySchemes": {"seatToken": SEAT_TOKEN, "botKey": BOT_KEY, "adminToken": ADMIN_TOKEN}},
        },
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        REFEREE_STORE_KIND="redis-cluster" if settings.redis_cluster else settings.store_kind,
        REFEREE_STREAM_HEARTBEAT=settings.stream_heartbeat_seconds,
        REFEREE_ADMIN_TOKEN=settings.admin_token,
        REFEREE_BOT_STREAM_LIMIT=settings.bot_stream_limit,
    )
    store = open_store(
        settings.store_kind,
        redis_url=settings.redis_url,
        redis_cluster=settings.redis_cluster,
        redis_wait_replicas=settings.redis_wait_replicas,
        db_path=settings.db_path,
        timeout=settings.store_timeout_seconds,
        check_redis_policy=settings.redis_policy_check,
        listing_window=settings.listing_window_seconds,
        offload=off_the_hub() if settings.store_kind == "file" else None,
    )
    # Redis is shared by every node, and its clock judges their deadlines (docs/clocks.md);
    # the embedded stores live in this process, whose clock is theirs.
    now_ms = StoreClock(store.time_ms) if isinstance(store, RedisStore) else wall_ms
    referee = Referee(
        store,
        StateTokens(settings.secret),
        SeatTokens(settings.secret),
        settings.match_ttl_seconds,
        node_cache.this_workers_cache() or MatchCache(settings.match_cache_size),
        now_ms=now_ms,
        on_cache=lambda outcome: metrics.sample(metrics.MATCH_CACHE, outcome).inc(),
        thinkers=Thinkers(settings.thinkers) if settings.thinkers else None,
        decoded=DecodedMatches(settings.match_cache_size),
    )
    app.extensions["referee"] = referee
    app.extensions["thinkers"] = referee.thinkers
    account_store = open_accounts(store)
    app.extensions["accounts"] = accounts = Accounts(account_store)
    app.extensions["challenges"] = bot_challenges = Challenges(
        account_store, accounts, referee, settings.challenge_expiry_seconds, settings.bot_challenge_limit
    )
    app.extensions["ladders"] = bot_ladders = Ladders(open_ladders(store), accounts, bot_challenges, referee, now_ms)
    tell_bots, rate_match = safe_hook(bot_challenges.match_finished), safe_hook(bot_ladders.match_finished)

    def match_ended(match: Match, snapshot: Snapshot) -> None:
        tell_bots(match, snapshot)
        rate_match(match, snapshot)

    referee.on_finished = match_ended
    referee.on_illegal = bot_ladders.note_illegal
    app.extensions["listing"] = Listing(store, referee.answers, settings.listing_window_seconds, now_ms)
    app.extensions["feed"] = open_feed(store, account_store)
    app.extensions["live_matches"] = LiveMatches(referee)
    app.extensions["stream_slots"] = StreamSlots(settings.stream_limit, on_drained=give_back_memory)
    app.extensions["waiting_requests"] = WaitingRequests()
    # Built here, started by the server once the worker runs (service/server/gunicorn_conf.py), never
    # by the factory itself: tests and tools build apps without background threads.
    app.extensions["sweeper"] = (
        Sweeper(referee, settings.sweep_interval_seconds, bot_challenges, bot_ladders) if settings.sweeper else None
    )
    app.extensions["replay_signer"] = ReplaySigner.configured(settings.replay_key, settings.secret)

    api = ProblemApi(app, spec_kwargs={"marshmallow_plugin": GameTypesPlugin(), "extra_plugins": [ConventionsPlugin()]})
    for blueprint in (
        games.blp,
        matches.blp,
        streams.blp,
        sockets.blp,
        replays.blp,
        bots.blp,
        bot_streams.blp,
        challenges.blp,
        ladders.blp,
        ops.blp,
    ):
        api.register_blueprint(blueprint)
    app.register_blueprint(web_pages)
    app.register_blueprint(docs_page)
    app.register_blueprint(game_data.blp)
    limiter = limits.build_limiter(
        settings.rate_limit, settings.secret, settings.redis_url, settings.redis_cluster, settings.store_timeout_seconds
    )
    app.extensions["rate_limiter"] = limiter
    app.extensions["register_limit"] = limits.build_named_limit(
        "register", settings.register_limit, settings.redis_url, settings.redis_cluster, settings.store_timeout_seconds
    )
    limits.install(app, limiter, exempt={ops.blp.name})
    recorder = observability.install(app, settings.access_log)
    # Middleware wraps app.wsgi_app, as Flask documents; mypy takes the attribute for a method.
    lane = ActionLane(app.wsgi_app, referee, recorder, limiter, settings.max_body_bytes, app.url_map)
    app.wsgi_app = lane  # type: ignore[method-assign]  # middleware, as above
    channels = sockets.SocketLane(
        lane,
        lane,
        referee,
        recorder,
        limiter,
        app.extensions["live_matches"],
        app.extensions["feed"],
        app.extensions["stream_slots"],
        settings.max_body_bytes,
        settings.socket_idle_seconds,
        settings.stream_heartbeat_seconds,
    )
    app.wsgi_app = channels  # type: ignore[method-assign]  # middleware, as above
    app.extensions["seat_sockets"] = channels
    for name, schema in MESSAGES.items():
        api.spec.components.schema(name, schema=schema)
    if settings.proxy_hops:
        # Behind that many trusted proxies, the client is the address they forward: rate limits
        # per address and the access log then see clients, not the proxy.
        proxied = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops, x_proto=settings.proxy_hops)
        app.wsgi_app = proxied  # type: ignore[method-assign]  # middleware, as above
    app.wsgi_app = SecurityHeaders(app.wsgi_app)  # type: ignore[method-assign]  # every answer, the lane's too

    return app
