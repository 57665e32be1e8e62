"""Prometheus metrics, correct under several gunicorn workers.

With ``PROMETHEUS_MULTIPROC_DIR`` set when this module is first imported (the gunicorn config
sets it before importing anything else), every worker writes its samples there and
``/metrics`` aggregates all of them; without it (one process), the default registry is
served. prometheus_client fixes that choice when it is first imported, so ``/metrics`` asks
it which one it made: reading the variable again at render time would aggregate an empty
folder whenever the variable was set too late.
"""

from __future__ import annotations

import functools
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    values,
)
from prometheus_client.multiprocess import MultiProcessCollector

from service.store.processes import current_pid

MULTIPROCESS = values.ValueClass is not values.MutexValue
"""Whether samples go to the shared folder (decided by prometheus_client at its import)."""

if MULTIPROCESS:
    # Each sample checks the process id to notice a fork (its file is named by the id); by
    # default that is a system call per sample, several per request.
    values.ValueClass = values.MultiProcessValue(process_identifier=current_pid)

REQUESTS = Counter("referee_http_requests_total", "HTTP requests answered.", ["method", "endpoint", "status"])
LATENCY = Histogram(
    "referee_http_request_duration_seconds",
    "Time to answer a request.",
    ["method", "endpoint"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
MOVES = Counter("referee_moves_total", "Actions committed.", ["game"])
MATCHES_CREATED = Counter("referee_matches_created_total", "Matches created.", ["game"])
MATCH_CACHE = Counter(
    "referee_match_cache_lookups_total",
    "Moves looked up in this node's match cache: hit (committed without a read), miss (read "
    "first), stale (a hit the store's compare-and-set refused; checked again on its answer).",
    ["result"],
)


@functools.cache
def sample(metric: Any, *label_values: str) -> Any:
    """``metric.labels(*label_values)``, looked up once per process: prometheus_client's
    ``labels()`` costs as much as the sample it records, and the requests and moves of every
    request record some (the label values are bounded: methods, routes, statuses, games)."""
    return metric.labels(*label_values)


def render() -> tuple[bytes, str]:
    """The exposition text of every process's metrics, and its content type."""
    if MULTIPROCESS:
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
