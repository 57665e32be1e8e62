"""The listing's opaque cursor: a position in the listing (:class:`ListPosition`), written
so that clients treat it as a token, not as numbers to edit."""

from __future__ import annotations

import base64
import binascii

from service.store import ListPosition
from service.tokens import is_match_id, parse_number


def encode_cursor(position: ListPosition) -> str:
    return base64.urlsafe_b64encode(f"{position.updated_ms}.{position.match_id}".encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> ListPosition | None:
    """The position ``cursor`` names, or ``None`` if no listing wrote it."""
    if not cursor.isascii() or len(cursor) > 100:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    millis, _, match_id = text.partition(".")
    updated_ms = parse_number(millis)
    if updated_ms is None or not is_match_id(match_id):
        return None
    return ListPosition(updated_ms, match_id)
