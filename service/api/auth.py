"""Reading the caller's credentials and options from request headers."""

from __future__ import annotations

import re

from flask import request

from service.api.problems import BadRequest, Unauthorized
from service.tokens import parse_bearer

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")


def bearer_token() -> str | None:
    """The seat token of ``Authorization: Bearer <token>``; ``None`` without the header."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    token = parse_bearer(header)
    if token is None:
        raise Unauthorized("bad_credentials", "Send the seat token as 'Authorization: Bearer <token>'.")
    return token


def idempotency_key() -> str | None:
    """The ``Idempotency-Key`` header, checked: 1–255 visible ASCII characters."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        return None
    if not IDEMPOTENCY_KEY.match(key):
        raise BadRequest("invalid_idempotency_key", "Idempotency-Key must be 1–255 visible ASCII characters.")
    return key
