"""State tokens and seat tokens.

A *state token* names one version of one match: ``<match_id>.<version>.<mac>`` where the MAC
is HMAC-SHA256 over ``<match_id>.<version>`` with the server secret (base64url, unpadded).
Clients treat it as opaque; the server verifies it without a store lookup, so a forged or
mangled token is refused before any work.

A *seat token* is a bearer secret handed out once, at match creation:
``<match_id>.<seat>.<nonce>.<tag>`` with a 256-bit random nonce and a 128-bit tag, HMAC-SHA256
over the rest with a key derived from the server secret. The store keeps only the token's
SHA-256 and the referee finds the seat by comparing hashes in constant time, so the secret
alone cannot act for a seat (the nonce is never stored). The tag lets the rate limiter tell a
token this service issued from a made-up one without a store read (:meth:`SeatTokens.claim`):
a made-up token gets no budget of its own.

Numbers inside tokens are ASCII digits in canonical form (no sign, no leading zeros, at most
18 digits), so no other spelling of a version or seat parses.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

#: What a match id is: URL-safe base64, 8 to 64 characters.
MATCH_ID_PATTERN = r"[A-Za-z0-9_-]{8,64}"
_MATCH_ID = re.compile(MATCH_ID_PATTERN)
_NUMBER = re.compile(r"0|[1-9][0-9]{0,17}")
_SEAT_TOKEN_LABEL = b"referee seat tokens v1"


def new_match_id() -> str:
    """A fresh, unguessable match id (128 bits, base64url)."""
    return secrets.token_urlsafe(16)


def is_match_id(text: str) -> bool:
    return bool(_MATCH_ID.fullmatch(text))


def parse_number(text: str) -> int | None:
    """``text`` as a non-negative integer if it is one in canonical ASCII form, else ``None``."""
    return int(text) if _NUMBER.fullmatch(text) else None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class _KeyedSha256:
    """HMAC-SHA256 (RFC 2104) with one key, its two padded key blocks hashed once.

    ``hmac.digest`` hashes them again, and looks the algorithm up, on every call: that is
    most of what minting or checking a token costs, and every move does both. Here a MAC
    is two copies of a hash state and two short updates; it equals ``hmac.digest(key, message,
    "sha256")``."""

    _BLOCK = 64

    def __init__(self, key: bytes) -> None:
        if len(key) > self._BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(self._BLOCK, b"\0")
        self._inner = hashlib.sha256(bytes(byte ^ 0x36 for byte in key))
        self._outer = hashlib.sha256(bytes(byte ^ 0x5C for byte in key))

    def digest(self, message: bytes) -> bytes:
        inner = self._inner.copy()
        inner.update(message)
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.digest()


@dataclass(frozen=True)
class StateToken:
    match_id: str
    version: int


class StateTokens:
    """Mints and verifies state tokens with one server secret."""

    def __init__(self, secret: bytes) -> None:
        self._mac_of = _KeyedSha256(secret)

    def _mac(self, match_id: str, version: int) -> str:
        return _b64(self._mac_of.digest(f"{match_id}.{version}".encode()))

    def mint(self, match_id: str, version: int) -> str:
        return f"{match_id}.{version}.{self._mac(match_id, version)}"

    def verify(self, token: str) -> StateToken | None:
        """The match and version a token names, or ``None`` if it does not verify."""
        parts = token.split(".") if isinstance(token, str) else []
        if len(parts) != 3 or not is_match_id(parts[0]):
            return None
        match_id, version = parts[0], parse_number(parts[1])
        if version is None or not hmac.compare_digest(parts[2].encode(), self._mac(match_id, version).encode()):
            return None
        return StateToken(match_id, version)


@dataclass(frozen=True)
class SeatClaim:
    """The match and seat a seat token was issued for (its tag verified, not yet its seat:
    only the match record's hash says whether the match still has it)."""

    match_id: str
    seat: int


class SeatTokens:
    """Mints seat tokens and checks their tags with a key derived from the server secret."""

    def __init__(self, secret: bytes) -> None:
        self._mac_of = _KeyedSha256(hmac.digest(secret, _SEAT_TOKEN_LABEL, "sha256"))

    def _tag(self, body: str) -> str:
        return _b64(self._mac_of.digest(body.encode())[:16])

    def mint(self, match_id: str, seat: int) -> str:
        """A fresh bearer secret for ``seat`` of ``match_id``."""
        body = f"{match_id}.{seat}.{secrets.token_urlsafe(32)}"
        return f"{body}.{self._tag(body)}"

    def claim(self, token: str) -> SeatClaim | None:
        """The match and seat ``token`` was issued for, or ``None`` if this service (with this
        secret) did not issue it."""
        parts = token.split(".")
        if len(parts) != 4 or not is_match_id(parts[0]):
            return None
        seat = parse_number(parts[1])
        body = token[: -len(parts[3]) - 1]
        if seat is None or not hmac.compare_digest(parts[3].encode(), self._tag(body).encode()):
            return None
        return SeatClaim(parts[0], seat)


def hash_seat_token(token: str) -> str:
    """What the store keeps of a seat token. Nothing remembers tokens between requests:
    they are bearer secrets, and hashing one again costs well under a microsecond."""
    return hashlib.sha256(token.encode()).hexdigest()


def seat_of(token: str, seat_hashes: list[str]) -> int | None:
    """The seat whose stored hash matches ``token``, compared in constant time per seat."""
    digest = hash_seat_token(token)
    found = None
    for seat, stored in enumerate(seat_hashes):
        if hmac.compare_digest(digest, stored):
            found = seat
    return found


def parse_bearer(header: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` value; ``None`` for any other value."""
    scheme, _, token = header.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None
