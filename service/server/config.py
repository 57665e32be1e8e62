"""Configuration from the environment, read once when the app (or the server) starts.

Every variable is optional; the defaults run a development server on the embedded store. A
value that cannot be used stops the start with a :class:`ConfigError` naming the variable,
rather than a traceback from deep inside (``REFEREE_MATCH_TTL=7d`` is not seven days).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from limits import parse_many

log = logging.getLogger("referee")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


class ConfigError(ValueError):
    """An environment variable holds a value the service cannot run with."""


def _int(env: Mapping[str, str], name: str, default: int, minimum: int) -> int:
    text = env.get(name, "").strip()
    if not text:
        return default
    if not (text.isascii() and text.isdigit()) or int(text) < minimum:
        raise ConfigError(f"{name}={text!r} is not a whole number of at least {minimum}.")
    return int(text)


def _float(env: Mapping[str, str], name: str, default: float, minimum: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not minimum <= value < float("inf"):
        raise ConfigError(f"{name}={text!r} is not a number of at least {minimum:g} (seconds).")
    return value


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text not in _TRUE | _FALSE:
        raise ConfigError(f"{name}={text!r} is not a boolean: use 1 or 0.")
    return text in _TRUE


def _rate_limit(env: Mapping[str, str]) -> str:
    text = env.get("REFEREE_RATE_LIMIT", "6000 per minute").strip()  # blank: no limit
    if text:
        try:
            parse_many(text)
        except ValueError:
            raise ConfigError(
                f"REFEREE_RATE_LIMIT={text!r} is not a limit such as '6000 per minute' (or empty to disable)."
            ) from None
    return text


def _named_limit(env: Mapping[str, str], name: str, default: str) -> str:
    text = env.get(name, default).strip()  # blank: no limit
    if text:
        try:
            parse_many(text)
        except ValueError:
            raise ConfigError(f"{name}={text!r} is not a limit such as '30 per hour' (or empty to disable).") from None
    return text


def _admin_token(env: Mapping[str, str]) -> str | None:
    """``REFEREE_ADMIN_TOKEN``: when set, registering a bot needs it as the bearer."""
    text = env.get("REFEREE_ADMIN_TOKEN", "").strip()
    if text and len(text) < 16:
        # A secret: never echo it.
        raise ConfigError("REFEREE_ADMIN_TOKEN is shorter than 16 characters: too easy to guess.")
    return text or None


def _replay_key(env: Mapping[str, str]) -> str | None:
    text = env.get("REFEREE_REPLAY_KEY", "").strip()
    if text and not re.fullmatch(r"[0-9a-fA-F]{64}", text):
        # The value is a private key: never echo it.
        raise ConfigError("REFEREE_REPLAY_KEY is not 64 hex digits (a 32-byte Ed25519 private seed).")
    return text or None


def _redis_url(env: Mapping[str, str]) -> tuple[str | None, bool]:
    """The Redis to use and whether it is a cluster: ``REDIS_URL`` (one Redis) or
    ``REDIS_CLUSTER_URL`` (any node of a Redis Cluster), never both."""
    single, cluster = env.get("REDIS_URL", "").strip(), env.get("REDIS_CLUSTER_URL", "").strip()
    if single and cluster:
        raise ConfigError(
            "REDIS_URL and REDIS_CLUSTER_URL are both set: use REDIS_URL for one Redis, "
            "REDIS_CLUSTER_URL for a Redis Cluster."
        )
    # The URLs may hold a password: never echo them.
    if cluster and not re.match(r"^rediss?://", cluster):
        raise ConfigError("REDIS_CLUSTER_URL is not a redis:// or rediss:// URL of a cluster node.")
    if cluster and re.search(r"://[^/]*/\d*[1-9]", cluster):
        raise ConfigError("REDIS_CLUSTER_URL names a database: a Redis Cluster has only database 0.")
    return single or cluster or None, bool(cluster)


def _store_kind(env: Mapping[str, str]) -> str:
    """``redis`` when ``REDIS_URL`` or ``REDIS_CLUSTER_URL`` is set, else ``REFEREE_STORE``:
    ``file`` (the default) or ``memory``."""
    if _redis_url(env)[0]:
        return "redis"
    kind = env.get("REFEREE_STORE", "").strip() or "file"
    if kind not in ("file", "memory"):
        raise ConfigError(f"REFEREE_STORE={kind!r} is not a store: use 'file' (the default) or 'memory'.")
    return kind


def _db_path(env: Mapping[str, str]) -> Path:
    """The file store's database: ``REFEREE_DB_PATH``, else the user's data folder."""
    from service.store.file import default_path

    text = env.get("REFEREE_DB_PATH", "").strip()
    return Path(text) if text else default_path()


def _kept_secret(db_path: Path) -> str:
    """The secret kept beside the file store's database (``<db>.secret``, mode 0600), made on
    the first start.

    The file store keeps matches across restarts; the state tokens and the replay key derived
    from the secret must outlive a restart too, or every client's token would fail although
    its match is intact. The file appears whole or not at all (written aside, then linked), so
    workers starting together agree on one secret.
    """
    path = db_path.with_name(db_path.name + ".secret")
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            draft = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as out:
                out.write(secrets.token_hex(32))
            try:
                os.link(draft, path)
            except FileExistsError:
                pass  # another process made it first: use theirs
            finally:
                draft.unlink()
        secret = path.read_text().strip()
    except OSError as exc:
        raise ConfigError(
            f"REFEREE_SECRET is not set and the secret kept beside the matches ({path}) cannot be "
            f"read or made: {exc}. Set REFEREE_SECRET, or REFEREE_DB_PATH to a writable place."
        ) from None
    if len(secret) < 32:
        raise ConfigError(
            f"{path} holds no usable secret: delete it (tokens issued with it will fail) or set REFEREE_SECRET."
        )
    return secret


@dataclass(frozen=True)
class Settings:
    """What the service can be told from outside (see README, "Configuration")."""

    redis_url: str | None
    store_kind: str
    db_path: Path
    redis_policy_check: bool
    secret: bytes
    match_ttl_seconds: int
    max_body_bytes: int
    rate_limit: str
    store_timeout_seconds: float
    access_log: bool
    match_cache_size: int = 1000
    replay_key: str | None = None
    redis_cluster: bool = False
    redis_wait_replicas: int = 0
    proxy_hops: int = 0
    listing_window_seconds: int = 24 * 3600
    stream_heartbeat_seconds: float = 15.0
    stream_limit: int = 800
    socket_idle_seconds: float = 60.0
    sweeper: bool = True
    sweep_interval_seconds: float = 0.25
    admin_token: str | None = None
    register_limit: str = "30 per hour"
    challenge_expiry_seconds: float = 60.0
    bot_challenge_limit: int = 20
    bot_stream_limit: int = 4
    thinkers: int = 2

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Read and check every variable; :class:`ConfigError` names the first bad one.

        With ``REDIS_URL`` (or ``REDIS_CLUSTER_URL``) set the service runs on several nodes or workers, which must share
        ``REFEREE_SECRET``: a secret invented per process would make every state token fail on
        the others, so it is required there. On the embedded store a random one is used,
        with a warning.
        """
        env = os.environ if env is None else env
        redis_url, redis_cluster = _redis_url(env)
        secret = env.get("REFEREE_SECRET")
        if not secret:
            if redis_url:
                url_variable = "REDIS_CLUSTER_URL" if redis_cluster else "REDIS_URL"
                raise ConfigError(
                    f"REFEREE_SECRET is not set but {url_variable} is: every node and worker must "
                    "share one secret, or state tokens fail across them. Set REFEREE_SECRET, "
                    "e.g. to the output of: python3 -c 'import secrets;print(secrets.token_hex(32))'"
                )
            if _store_kind(env) == "file":
                secret = _kept_secret(_db_path(env))
            else:
                log.warning(
                    "REFEREE_SECRET is not set: using a random secret, so state tokens will not "
                    "verify after a restart. Set it in production."
                )
                secret = secrets.token_hex(32)
        return cls(
            redis_url=redis_url,
            store_kind=_store_kind(env),
            db_path=_db_path(env),
            redis_policy_check=_bool(env, "REFEREE_REDIS_POLICY_CHECK", True),
            secret=secret.encode(),
            match_ttl_seconds=_int(env, "REFEREE_MATCH_TTL", 7 * 24 * 3600, minimum=1),
            max_body_bytes=_int(env, "REFEREE_MAX_BODY_BYTES", 64 * 1024, minimum=1),
            rate_limit=_rate_limit(env),
            store_timeout_seconds=_float(env, "REFEREE_STORE_TIMEOUT", 2.0, minimum=0.001),
            access_log=_bool(env, "REFEREE_ACCESS_LOG", True),
            match_cache_size=_int(env, "REFEREE_MATCH_CACHE_SIZE", 1000, minimum=0),
            replay_key=_replay_key(env),
            redis_cluster=redis_cluster,
            redis_wait_replicas=_int(env, "REFEREE_REDIS_WAIT_REPLICAS", 0, minimum=0),
            proxy_hops=_int(env, "REFEREE_PROXY_HOPS", 0, minimum=0),
            listing_window_seconds=_int(env, "REFEREE_LISTING_WINDOW", 24 * 3600, minimum=60),
            stream_heartbeat_seconds=_float(env, "REFEREE_STREAM_HEARTBEAT", 15.0, minimum=0.05),
            stream_limit=_int(env, "REFEREE_STREAM_LIMIT", 800, minimum=1),
            socket_idle_seconds=_float(env, "REFEREE_SOCKET_IDLE", 60.0, minimum=0.05),
            sweeper=_bool(env, "REFEREE_SWEEPER", True),
            sweep_interval_seconds=_float(env, "REFEREE_SWEEP_INTERVAL", 0.25, minimum=0.01),
            admin_token=_admin_token(env),
            register_limit=_named_limit(env, "REFEREE_REGISTER_LIMIT", "30 per hour"),
            challenge_expiry_seconds=_float(env, "REFEREE_CHALLENGE_EXPIRY", 60.0, minimum=1.0),
            bot_challenge_limit=_int(env, "REFEREE_BOT_CHALLENGE_LIMIT", 20, minimum=1),
            bot_stream_limit=_int(env, "REFEREE_BOT_STREAM_LIMIT", 4, minimum=1),
            thinkers=_int(env, "REFEREE_THINKERS", os.cpu_count() or 1, minimum=0),
        )


@dataclass(frozen=True)
class ServerSettings:
    """How gunicorn runs the app (see ``service/server/gunicorn_conf.py``)."""

    bind: str
    workers: int
    worker_connections: int

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ServerSettings:
        """``REFEREE_BIND``, ``WEB_CONCURRENCY`` and ``REFEREE_WORKER_CONNECTIONS``.

        Redis: two workers unless told. The SQLite file store: one unless told, since its
        rate-limit counts live in each process (several workers multiply the budget); it may
        run more, as the file is shared. The in-memory store lives in one process, so it gets
        one worker whatever ``WEB_CONCURRENCY`` says.
        """
        env = os.environ if env is None else env
        bind = env.get("REFEREE_BIND", "").strip() or "0.0.0.0:8000"
        kind = _store_kind(env)
        workers = _int(env, "WEB_CONCURRENCY", 2 if kind == "redis" else 1, minimum=1)
        return cls(
            bind=bind,
            workers=1 if kind == "memory" else workers,
            worker_connections=_int(env, "REFEREE_WORKER_CONNECTIONS", 1000, minimum=1),
        )
