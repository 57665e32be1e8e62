"""State tokens and seat tokens.

A *state token* names one version of one match: ``<match_id>.<version>.<mac>`` where the MAC
is HMAC-SHA256 over ``<match_id>.<version>`` with the server secret (base64url, unpadded).
Clients treat it as opaque; the server verifies it without a store lookup, so a forged or
mangled token is refused before any work.

A *seat token* is a 256-bit random bearer secret handed out once, at match creation. The
store keeps only its SHA-256; comparison is constant-time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

_MATCH_ID = re.compile(r"^[A-Za-z0-9_-]{8,64}$")


def new_match_id() -> str:
    """A fresh, unguessable match id (128 bits, base64url)."""
    return secrets.token_urlsafe(16)


def is_match_id(text: str) -> bool:
    return bool(_MATCH_ID.match(text))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class StateToken:
    match_id: str
    version: int


class StateTokens:
    """Mints and verifies state tokens with one server secret."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, match_id: str, version: int) -> str:
        message = f"{match_id}.{version}".encode()
        return _b64(hmac.new(self._secret, message, hashlib.sha256).digest())

    def mint(self, match_id: str, version: int) -> str:
        return f"{match_id}.{version}.{self._mac(match_id, version)}"

    def verify(self, token: str) -> StateToken | None:
        """The match and version a token names, or ``None`` if it does not verify."""
        parts = token.split(".") if isinstance(token, str) else []
        if len(parts) != 3 or not is_match_id(parts[0]) or not parts[1].isdigit():
            return None
        match_id, version = parts[0], int(parts[1])
        if not hmac.compare_digest(parts[2], self._mac(match_id, version)):
            return None
        return StateToken(match_id, version)


def new_seat_token() -> str:
    """A fresh bearer secret for one seat (256 bits)."""
    return secrets.token_urlsafe(32)


def hash_seat_token(token: str) -> str:
    """What the store keeps of a seat token."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, seat_hashes: list[str]) -> int | None:
    """The seat whose stored hash matches ``token``, compared in constant time per seat."""
    digest = hash_seat_token(token)
    found = None
    for seat, stored in enumerate(seat_hashes):
        if hmac.compare_digest(digest, stored):
            found = seat
    return found
