"""The enums the document names once: every body that holds one shares its type, so a
generated client has one ``MatchStatus`` to compare any match's ``status`` with (not one
enum per body and per game) and one ``EntryKind`` for the history, answers and replays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from marshmallow import fields, validate

STATUSES = ["active", "finished", "aborted"]
"""A match is active until it ends: finished by its rules (or a forfeit, a resignation), or
aborted before anyone moved."""

KINDS = ["move", "house", "auto", "timeout", "resign", "abort"]
"""Who made a log entry."""


class NamedEnum(fields.String):
    """A string of few values, documented as the component ``component`` (with ``meaning`` as
    its description) wherever it is used; loading accepts those values only."""

    def __init__(self, component: str, values: Sequence[str], meaning: str, **kwargs: Any) -> None:
        super().__init__(validate=validate.OneOf(values), **kwargs)
        self.component = component
        self.values = list(values)
        self.meaning = meaning


def match_status(**kwargs: Any) -> NamedEnum:
    return NamedEnum(
        "MatchStatus",
        STATUSES,
        "`active` until the match ends: `finished` by its rules, a forfeit on time or a resignation; "
        "`aborted`: called off before anyone moved (no outcome; the seed is revealed).",
        **kwargs,
    )


def entry_kind(**kwargs: Any) -> NamedEnum:
    return NamedEnum(
        "EntryKind",
        KINDS,
        "Who made a log entry: `move` the seat itself, `house` a house seat's bot, `auto` the referee for a "
        "seat whose time ran out, `timeout` a forfeit on time, `resign`, `abort`.",
        **kwargs,
    )
