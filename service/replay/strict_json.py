"""Reading a replay's bytes the one way every reader agrees on (I-JSON, RFC 7493).

A signature covers the canonical JSON of the *parsed* document (RFC 8785), so two readers that
parse the same bytes into different values can disagree about what was signed. JSON leaves
several such choices to the reader, and each one lets a forger show a person (or another
program) one document while the signature checks another:

- **duplicate members**: ``{"outcome": <forged>, …, "outcome": <signed>}``. Python's parsers
  and JavaScript's ``JSON.parse`` keep the last copy, some readers and most people the first;
- **lone surrogates** (``"\\ud800"``): refused by some readers, replaced by U+FFFD or kept by
  others;
- **numbers** with a fraction or an exponent, ``NaN``/``Infinity``, or integers beyond
  ±(2**53 − 1): readers that hold numbers as doubles round or refuse them, others keep them
  exactly (and a replay has no floats at all);
- **object keys beyond U+FFFF**: RFC 8785 sorts keys by UTF-16 code units, a code-point sort
  orders them differently;
- **bytes that are not UTF-8**, or a byte order mark.

:func:`loads` refuses all of these with :class:`AmbiguousJson`, before anything trusts the
document. RFC 8785 requires its input to be I-JSON; these rules are I-JSON's, plus the
format's own "no floats".
"""

from __future__ import annotations

import json
from typing import Any

SAFE_INTEGER = 2**53 - 1
"""The largest integer every JSON reader holds exactly (a double's 53-bit mantissa)."""

_MAX_INTEGER_DIGITS = len(str(SAFE_INTEGER))
_MAX_DEPTH = 64
"""Deeper nesting is refused before Python's recursion limit is near: no replay nests deeper
than about ten levels."""


class AmbiguousJson(ValueError):
    """JSON that readers may parse into different values; the message says where and why."""


def loads(raw: bytes) -> Any:
    """The value of ``raw``, which must be strict I-JSON (see the module's docstring).

    :raises AmbiguousJson: for anything readers could disagree on.
    :raises json.JSONDecodeError: for text that is not JSON at all (a ``ValueError``).
    :raises ValueError: for nesting deeper than 64 levels.
    """
    if raw.startswith(b"\xef\xbb\xbf"):
        raise AmbiguousJson("the document starts with a byte order mark")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise AmbiguousJson(f"the document is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique_members,
            parse_int=_safe_integer,
            parse_float=_no_float,
            parse_constant=_no_constant,
        )
    except RecursionError:
        raise ValueError(f"the document nests deeper than {_MAX_DEPTH} levels") from None
    _check_strings(value)
    return value


def _unique_members(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    members: dict[str, Any] = {}
    for name, value in pairs:
        if name in members:
            raise AmbiguousJson(f"member {name!r} appears twice in one object")
        members[name] = value
    return members


def _safe_integer(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INTEGER_DIGITS or abs(int(text)) > SAFE_INTEGER:
        raise AmbiguousJson(f"integer {text[:40]} is beyond ±(2**53 - 1)")
    return int(text)


def _no_float(text: str) -> float:
    raise AmbiguousJson(f"number {text[:40]} has a fraction or an exponent: a replay has integers only")


def _no_constant(text: str) -> float:
    raise AmbiguousJson(f"{text} is not a JSON number")


def _check_strings(value: Any) -> None:
    """Every string and key is well-formed Unicode, and keys stay in the Basic Multilingual
    Plane; nesting stays within :data:`_MAX_DEPTH`."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > _MAX_DEPTH:
            raise ValueError(f"the document nests deeper than {_MAX_DEPTH} levels")
        if isinstance(item, str):
            _check_text(item)
        elif isinstance(item, dict):
            for key, member in item.items():
                if not key.isascii():
                    _check_text(key)
                    if any(ord(c) > 0xFFFF for c in key):
                        raise AmbiguousJson(f"object key {key!r} holds a character beyond U+FFFF")
                stack.append((member, depth + 1))
        elif isinstance(item, list):
            stack.extend((member, depth + 1) for member in item)


def _check_text(text: str) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise AmbiguousJson(f"string {text[:40]!r} holds a lone surrogate at {exc.start}") from None
