"""gunicorn settings: ``gunicorn -c python:service.server.gunicorn_conf 'service:create_app()'``.

Read in the master before any worker forks, which is why it prepares what workers share:
the Prometheus multiprocess folder, one state-token secret, and a checked configuration (a
bad variable stops the start here, with its name, instead of failing in every worker).

Workers are gevent workers: each one serves up to ``REFEREE_WORKER_CONNECTIONS`` connections
at once, so slow clients (or, next, long-lived event streams) hold a cheap greenlet each
instead of a whole worker; docs/architecture.md says why and what it costs. Worker processes
share matches through Redis or the SQLite file store; only the in-memory store (tests) gets
one worker, since each process would hold its own matches.

gevent patches the standard library here, first, in the master: the checks below import the
service, and so redis (whose asyncio part holds ``ssl.SSLContext``) and everything that makes
locks at import. Workers are forked from the master and inherit those modules; patched only
in the worker, as gunicorn does, they would keep unpatched references (a real lock blocks the
whole worker, not one greenlet), and gevent says so with a ``MonkeyPatchWarning`` at every
start. gunicorn re-initialises gevent's hub in each worker after the fork.
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import gc  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from typing import TYPE_CHECKING, cast  # noqa: E402

import gevent  # noqa: E402
from gunicorn.config import ControlSocket  # noqa: E402

if TYPE_CHECKING:
    from flask import Flask
    from gunicorn.arbiter import Arbiter
    from gunicorn.workers.base import Worker

    from service.api.sockets import SocketLane
    from service.live.waiting import WaitingRequests

# prometheus_client decides at import time whether its values live in this process or in
# files shared by every worker, so the folder must be set before anything imports it.
_OWN_METRICS_DIR = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _OWN_METRICS_DIR:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="referee-metrics-")

from service.api.observability import configure_logging  # noqa: E402
from service.cache import node as node_cache  # noqa: E402
from service.server.config import ConfigError, ServerSettings, Settings  # noqa: E402
from service.server.worker import RefereeWorker  # noqa: E402

configure_logging()
try:
    _settings = Settings.from_env()
    _server = ServerSettings.from_env()
except ConfigError as error:
    print(f"referee: configuration error: {error}", file=sys.stderr, flush=True)
    sys.exit(2)
# One secret for every worker (Settings only invents one on the embedded store).
os.environ["REFEREE_SECRET"] = _settings.secret.decode()

bind = _server.bind
workers = _server.workers
worker_class = "service.server.worker.RefereeWorker"  # gunicorn's gevent worker, quicker to stop
worker_connections = _server.worker_connections
# A bot keeps its connection between moves (docs/connections.md): 5 s of silence before the
# worker closes it, which also bounds how long a kept connection may take to send its next
# request's head (gunicorn's gevent worker times the whole wait), so slow clients gain nothing.
keepalive = 5
graceful_timeout = 10
#: How often a worker looks whether it was told to stop, and how long it then leaves a request
#: on its way in to be read before it lets go of its idle connections.
STOP_POLL_S = 0.25
IDLE_GRACE_S = 0.25
accesslog = None

# One match cache for the node, mapped here before the workers fork (service/cache/node.py).
node_cache.share_across_workers(workers, _settings.match_cache_size)

#: The cyclic collector's youngest-generation threshold in the workers (forked from here, so
#: they inherit it); CPython's default is 700 allocations. A worker holding a thousand open
#: event streams spent enough in young collections for other matches' slowest moves to feel
#: it: with CPython's default the p99 move took 1.45-1.71x as long beside 1,000 bot streams as
#: without, with this threshold 0.59-1.04x in four runs of five (bench/bots.py, bench/README).
#: Garbage cycles then wait a little longer to be freed; everything else is reclaimed by
#: reference counting as before.
YOUNG_COLLECTION_THRESHOLD = 20_000
gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, *gc.get_threshold()[1:])


def control_socket_for(binds: list[str], default: str = ControlSocket.default) -> str:
    """A control socket named after the addresses served, in gunicorn's default folder
    (``$XDG_RUNTIME_DIR``, else ``~/.gunicorn``): ``referee-127.0.0.1-8000.ctl``."""
    name = re.sub(r"[^A-Za-z0-9.]+", "-", ",".join(binds)).strip("-")
    return os.path.join(os.path.dirname(default), f"referee-{name}.ctl")


def on_starting(server: Arbiter) -> None:
    """Give this server a control socket (``gunicornc -s <path>``) of its own. gunicorn's
    default is one path per user: a second server on the host took it over, and the first
    deleted it when it stopped. Two servers never serve the same address, so a path named
    after it is theirs alone. A ``--control-socket`` given on the command line is kept."""
    cfg = server.cfg
    if cfg.control_socket == ControlSocket.default:
        cfg.set("control_socket", control_socket_for(cfg.bind))


def pre_fork(server: Arbiter, worker: Worker) -> None:
    """Give the worker about to fork a region of the node's match cache no living one holds
    (the region rides on gunicorn's worker object, which knows nothing of it)."""
    taken = {region for w in server.WORKERS.values() if (region := getattr(w, "cache_region", None)) is not None}
    worker.cache_region = node_cache.region_for_new_worker(taken)  # type: ignore[attr-defined]  # our mark, above


def post_fork(server: Arbiter, worker: Worker) -> None:
    node_cache.enter_worker(worker.cache_region)  # type: ignore[attr-defined]  # set by pre_fork


def post_worker_init(worker: Worker) -> None:
    """Start this worker's sweeper (timeouts and house turns of matches nobody touches),
    after gevent has patched ``threading``, so it runs as a greenlet of the worker; and its
    search workers (``REFEREE_THINKERS``), so the house's first search does not wait for them."""
    app = cast("Flask", worker.wsgi)  # the app gunicorn loaded: service:create_app()
    thinkers = app.extensions.get("thinkers")
    if thinkers is not None:
        thinkers.start()
    sweeper = app.extensions.get("sweeper")
    if sweeper is not None:
        sweeper.start()
    sockets, waiting = app.extensions["seat_sockets"], app.extensions["waiting_requests"]
    gevent.spawn(_end_connections_on_stop, worker, sockets, waiting)


def _end_connections_on_stop(worker: Worker, sockets: SocketLane, waiting: WaitingRequests) -> None:
    """Once the worker is told to stop (``SIGTERM``: it stops accepting and waits up to
    ``graceful_timeout`` for its connections to end), close its seats' sockets with 1001, end
    its event streams and long polls, and let go of its connections idle between requests:
    each would otherwise hold the worker for the whole timeout (a kept connection for its
    keep-alive wait) and a stream would then be cut mid-frame. Their clients reconnect to
    whichever server answers next. A request on its way in when the stop came is read and
    answered first: idle connections are let go of ``IDLE_GRACE_S`` later, and again until the
    worker exits."""
    while worker.alive:
        gevent.sleep(STOP_POLL_S)
    sockets.going_away()
    waiting.end_all()
    while isinstance(worker, RefereeWorker):  # gunicorn -k gevent runs gunicorn's own
        gevent.sleep(IDLE_GRACE_S)
        worker.let_go_of_idle()


def child_exit(server: Arbiter, worker: Worker) -> None:
    """Drop a dead worker's live gauges from the shared metrics folder."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server: Arbiter) -> None:
    """Remove the metrics folder this server made (one it was given is left alone)."""
    if _OWN_METRICS_DIR:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
