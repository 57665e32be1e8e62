"""Configuration from the environment, read once when the app is built.

Every variable is optional; the defaults run a development server on the embedded store.
"""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass

log = logging.getLogger("referee")


@dataclass(frozen=True)
class Settings:
    """What the service can be told from outside (see README, "Configuration")."""

    redis_url: str | None
    secret: bytes
    match_ttl_seconds: int
    max_body_bytes: int
    rate_limit: str
    rate_limit_sync_seconds: float
    store_timeout_seconds: float
    access_log: bool

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        secret = env.get("REFEREE_SECRET")
        if not secret:
            log.warning(
                "REFEREE_SECRET is not set: using a random secret, so state tokens will not "
                "verify on other processes or after a restart. Set it in production."
            )
            secret = secrets.token_hex(32)
        return cls(
            redis_url=env.get("REDIS_URL") or None,
            secret=secret.encode(),
            match_ttl_seconds=int(env.get("REFEREE_MATCH_TTL", 7 * 24 * 3600)),
            max_body_bytes=int(env.get("REFEREE_MAX_BODY_BYTES", 64 * 1024)),
            rate_limit=env.get("REFEREE_RATE_LIMIT", "6000 per minute"),
            rate_limit_sync_seconds=float(env.get("REFEREE_RATE_LIMIT_SYNC", 0.1)),
            store_timeout_seconds=float(env.get("REFEREE_STORE_TIMEOUT", 2.0)),
            access_log=env.get("REFEREE_ACCESS_LOG", "1") != "0",
        )
