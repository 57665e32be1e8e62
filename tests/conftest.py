"""Shared fixtures: the stores, apps over each, and hypothesis profiles.

``store_kind`` is ``embedded`` (the SQLite file store, the default of ``referee serve``, in a
temporary folder), ``redis`` or ``cluster`` (a real three-master Redis Cluster started for the
session, see tests/support/cluster.py); store-level tests also run on ``memory`` and ``file``. Every
process started by a test without its own ``REFEREE_DB_PATH`` writes into this session's
temporary folder, never into the user's data folder.

Redis tests use database 15 of ``REFEREE_TEST_REDIS_URL`` (default
``redis://127.0.0.1:6379/15``) in the first pytest-xdist worker, and a Redis server of their own
in the others (tests/support/worker_redis.py). Without a reachable Redis they are skipped, unless
``REFEREE_REQUIRE_REDIS=1`` (as in CI), which makes a missing Redis fail the run. The same
holds for the cluster when ``redis-server`` or ``redis-cli`` is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from hypothesis import HealthCheck, settings

from service.store import FileStore, MatchStore, MemoryStore, RedisStore
from tests.support import cluster
from tests.support.worker_redis import redis_url_for_this_worker

settings.register_profile("default", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REDIS_URL = redis_url_for_this_worker(os.environ.get("REFEREE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15"))


def redis_available() -> bool:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        return False
    return True


@pytest.fixture(scope="session")
def redis_url() -> str:
    if not redis_available():
        missing_redis(f"no Redis answers at {REDIS_URL}")
    return REDIS_URL


@pytest.fixture(scope="session", autouse=True)
def _session_db_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Servers and apps built without a database path write into a temporary folder."""
    previous = os.environ.get("REFEREE_DB_PATH")
    os.environ["REFEREE_DB_PATH"] = str(tmp_path_factory.mktemp("referee-db") / "matches.sqlite3")
    yield
    if previous is None:
        os.environ.pop("REFEREE_DB_PATH", None)
    else:
        os.environ["REFEREE_DB_PATH"] = previous


def missing_redis(reason: str) -> None:
    """Skip, or fail the run when CI requires Redis (``REFEREE_REQUIRE_REDIS=1``)."""
    if os.environ.get("REFEREE_REQUIRE_REDIS") == "1":
        pytest.fail(f"REFEREE_REQUIRE_REDIS=1 but {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[cluster.LocalCluster]:
    """A three-master Redis Cluster (no replicas) on free ports of 7000-7099, for the session."""
    if not cluster.tools_available():
        missing_redis("redis-server or redis-cli is not installed (needed for the Redis Cluster tests)")
    local = cluster.LocalCluster(cluster.free_block(3), masters=3).start()
    yield local
    local.stop()


@pytest.fixture(scope="session")
def redis_cluster_url(redis_cluster: cluster.LocalCluster) -> str:
    return redis_cluster.url


@pytest.fixture(params=["embedded", "redis", "cluster"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def store(store_kind: str, request: pytest.FixtureRequest, tmp_path) -> Iterator[MatchStore]:
    if store_kind == "memory":
        yield MemoryStore()
    elif store_kind in ("file", "embedded"):
        file_store = FileStore(tmp_path / "matches.sqlite3")
        yield file_store
        file_store.close()
    elif store_kind == "cluster":
        yield RedisStore.from_url(request.getfixturevalue("redis_cluster_url"), cluster=True)
    else:
        yield RedisStore.from_url(request.getfixturevalue("redis_url"))


@pytest.fixture
def app_config(store_kind: str, request: pytest.FixtureRequest, tmp_path) -> dict[str, str]:
    url = request.getfixturevalue("redis_url") if store_kind == "redis" else ""
    cluster_url = request.getfixturevalue("redis_cluster_url") if store_kind == "cluster" else ""
    return {
        "REDIS_URL": url,
        "REDIS_CLUSTER_URL": cluster_url,
        "REFEREE_STORE": "file",
        "REFEREE_DB_PATH": str(tmp_path / "matches.sqlite3"),
        "REFEREE_SECRET": "test-secret",
        "REFEREE_RATE_LIMIT": "",
        "REFEREE_REGISTER_LIMIT": "",
        "REFEREE_ACCESS_LOG": "0",
    }


@pytest.fixture
def app(app_config: dict[str, str]):
    from service import create_app

    return create_app(app_config)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session", autouse=True)
def problem_codes_seen() -> Iterator[set[str]]:
    """Records the code of every problem answered and every engine error raised in this
    process during the run, and fails the run when one is missing from the catalogue that the
    OpenAPI document publishes (service/api/problem_codes.py)."""
    from service.api import errors
    from service.api.problem_codes import all_codes
    from service.engine.errors import EngineError

    seen: set[str] = set()
    answer, engine_init = errors.problem_response, EngineError.__init__

    def recording_answer(body: dict[str, Any], headers: dict[str, str] | None = None) -> Any:
        seen.add(body.get("code", ""))
        return answer(body, headers)

    def recording_init(self: EngineError, code: str, message: str, **kwargs: Any) -> None:
        seen.add(code)
        engine_init(self, code, message, **kwargs)

    errors.problem_response = recording_answer  # type: ignore[assignment]  # a recording spy
    EngineError.__init__ = recording_init  # type: ignore[method-assign]  # a recording spy
    yield seen
    errors.problem_response, EngineError.__init__ = answer, engine_init  # type: ignore[method-assign]  # spies removed
    unknown = seen - set(all_codes())
    assert not unknown, f"problem codes seen in the run but missing from service/api/problem_codes.py: {unknown}"
