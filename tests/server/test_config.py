"""Configuration from the environment: every bad value is refused, naming its variable."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.server.cli import serve_bind
from service.server.config import ConfigError, ServerSettings, Settings

BAD_VALUES = [
    ("REFEREE_MATCH_TTL", "7d"),
    ("REFEREE_MATCH_TTL", "0"),
    ("REFEREE_MATCH_TTL", "²"),
    ("REFEREE_MAX_BODY_BYTES", "64k"),
    ("REFEREE_MAX_BODY_BYTES", "-1"),
    ("REFEREE_STORE_TIMEOUT", "2s"),
    ("REFEREE_STORE_TIMEOUT", "0"),
    ("REFEREE_STORE_TIMEOUT", "inf"),
    ("REFEREE_ACCESS_LOG", "maybe"),
    ("REFEREE_RATE_LIMIT", "lots"),
    ("REFEREE_STORE", "redis"),
    ("REFEREE_REDIS_POLICY_CHECK", "skip"),
    ("REFEREE_REDIS_WAIT_REPLICAS", "one"),
    ("REDIS_CLUSTER_URL", "127.0.0.1:7000"),
    ("REDIS_CLUSTER_URL", "redis://127.0.0.1:7000/3"),
    ("REFEREE_MATCH_CACHE_SIZE", "-1"),
    ("REFEREE_MATCH_CACHE_SIZE", "1k"),
    ("REFEREE_LISTING_WINDOW", "1d"),
    ("REFEREE_LISTING_WINDOW", "59"),
    ("REFEREE_STREAM_HEARTBEAT", "15s"),
    ("REFEREE_STREAM_HEARTBEAT", "0"),
    ("REFEREE_STREAM_LIMIT", "0"),
    ("REFEREE_STREAM_LIMIT", "many"),
    ("REFEREE_THINKERS", "-1"),
    ("REFEREE_THINKERS", "all"),
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_a_bad_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Settings.from_env({"REFEREE_SECRET": "s", name: value})


@pytest.mark.parametrize(
    ("name", "value"), [("WEB_CONCURRENCY", "two"), ("WEB_CONCURRENCY", "0"), ("REFEREE_WORKER_CONNECTIONS", "1e3")]
)
def test_a_bad_server_value_names_its_variable(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        ServerSettings.from_env({"REDIS_URL": "redis://x", name: value})


def test_good_values_are_read() -> None:
    settings = Settings.from_env(
        {
            "REFEREE_SECRET": "s",
            "REFEREE_MATCH_TTL": " 3600 ",
            "REFEREE_MAX_BODY_BYTES": "1000",
            "REFEREE_STORE_TIMEOUT": "0.5",
            "REFEREE_ACCESS_LOG": "off",
            "REFEREE_RATE_LIMIT": "",
            "REFEREE_MATCH_CACHE_SIZE": "0",
            "REFEREE_THINKERS": "0",
        }
    )
    assert (settings.match_ttl_seconds, settings.max_body_bytes) == (3600, 1000)
    assert settings.store_timeout_seconds == 0.5
    assert settings.access_log is False and settings.rate_limit == ""
    assert settings.match_cache_size == 0 and settings.thinkers == 0
    assert Settings.from_env({"REFEREE_SECRET": "s", "REFEREE_ACCESS_LOG": "1"}).access_log is True


def test_redis_without_a_shared_secret_is_refused() -> None:
    with pytest.raises(ConfigError, match="REFEREE_SECRET"):
        Settings.from_env({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    embedded = Settings.from_env({"REFEREE_STORE": "memory"})
    assert len(embedded.secret) == 64 and embedded.redis_url is None


def test_a_cluster_url_selects_the_cluster_client_and_needs_the_shared_secret() -> None:
    settings = Settings.from_env({"REDIS_CLUSTER_URL": "redis://10.0.0.5:7000", "REFEREE_SECRET": "s"})
    assert (settings.store_kind, settings.redis_url, settings.redis_cluster) == ("redis", "redis://10.0.0.5:7000", True)
    assert ServerSettings.from_env({"REDIS_CLUSTER_URL": "redis://10.0.0.5:7000"}).workers == 2
    with pytest.raises(ConfigError, match="REFEREE_SECRET is not set but REDIS_CLUSTER_URL is"):
        Settings.from_env({"REDIS_CLUSTER_URL": "redis://10.0.0.5:7000"})
    with pytest.raises(ConfigError, match="REDIS_URL and REDIS_CLUSTER_URL are both set"):
        Settings.from_env({"REDIS_URL": "redis://a", "REDIS_CLUSTER_URL": "redis://b:7000", "REFEREE_SECRET": "s"})


def test_a_refused_cluster_url_is_not_echoed() -> None:
    with pytest.raises(ConfigError) as refused:
        Settings.from_env({"REDIS_CLUSTER_URL": "redis://:hunter2@10.0.0.5:7000/2", "REFEREE_SECRET": "s"})
    assert "hunter2" not in str(refused.value)


def test_the_file_store_keeps_its_secret_beside_the_matches(tmp_path: Path) -> None:
    env = {"REFEREE_DB_PATH": str(tmp_path / "data" / "matches.sqlite3")}
    first = Settings.from_env(env)
    kept = tmp_path / "data" / "matches.sqlite3.secret"
    assert kept.read_text().encode() == first.secret and len(first.secret) == 64
    assert kept.stat().st_mode & 0o777 == 0o600, "only the server's user may read it"
    assert Settings.from_env(env).secret == first.secret, "a restart keeps it"
    assert Settings.from_env(env | {"REFEREE_SECRET": "given"}).secret == b"given"
    assert list(kept.parent.iterdir()) == [kept], "no draft is left behind"


def test_a_secret_that_cannot_be_kept_names_what_to_set(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match="REFEREE_SECRET.*REFEREE_DB_PATH"):
        Settings.from_env({"REFEREE_DB_PATH": str(blocker / "matches.sqlite3")})


def test_only_the_in_memory_store_runs_one_worker_process() -> None:
    assert ServerSettings.from_env({"WEB_CONCURRENCY": "4", "REFEREE_STORE": "memory"}).workers == 1
    assert ServerSettings.from_env({"WEB_CONCURRENCY": "4"}).workers == 4, "the SQLite file is shared"
    assert ServerSettings.from_env({}).workers == 1, "one unless told: rate-limit counts are per process"
    assert ServerSettings.from_env({"REDIS_URL": "redis://x"}).workers == 2
    assert ServerSettings.from_env({"WEB_CONCURRENCY": "4", "REDIS_URL": "redis://x"}).workers == 4
    assert ServerSettings.from_env({}).bind == "0.0.0.0:8000"


def test_referee_serve_listens_where_told() -> None:
    assert serve_bind(None, None, {}) == "127.0.0.1:8000"
    assert serve_bind(None, None, {"REFEREE_BIND": "0.0.0.0:9000"}) == "0.0.0.0:9000"
    assert serve_bind(None, 9001, {"REFEREE_BIND": "0.0.0.0:9000"}) == "127.0.0.1:9001"
    assert serve_bind("0.0.0.0", None, {}) == "0.0.0.0:8000"


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_rate_limit_turns_limits_off_and_the_app_starts(blank: str) -> None:
    """Blank is documented as 'no limit': a value of spaces once passed the check here and
    then stopped every worker at start, when the limiter parsed it."""
    from service import create_app

    settings = Settings.from_env({"REFEREE_SECRET": "s", "REFEREE_RATE_LIMIT": blank})
    assert settings.rate_limit == ""
    app = create_app({"REFEREE_STORE": "memory", "REFEREE_SECRET": "s", "REFEREE_RATE_LIMIT": blank})
    assert app.test_client().get("/healthz").status_code == 200
