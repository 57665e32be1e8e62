"""Action shapes: each action type's JSON schema from the catalogue, compiled once and checked
before a game engine sees an action.

An engine decides legality by comparing an action with its ``legal_actions``, and Python
compares ``True == 1`` and ``17.0 == 17``: without this check ``{"card": 17.0, "pile": false}``
would pass as ``{"card": 17, "pile": 0}`` and be stored as sent. So the check is stricter than
JSON Schema's own "integer" (which admits ``1.0``): integers are JSON integers of at most 64 bits,
never booleans or numbers written with a fraction part, numbers are never booleans, and ``enum`` and
``const`` compare types too (``1.0`` is not the choice ``1``). Every field is required and
no other field is allowed (see :meth:`service.engine.game.ActionType.json_schema`).

The validator is ``jsonschema``'s Draft 2020-12 with that stricter type checker; checking a
small action takes about 15 µs, so an action that is exactly one of the listed legal ones
skips it (:func:`is_listed`, about 1 µs: listed actions have their shapes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from service.engine.errors import IllegalAction

_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1
"""The integers JSON tools exchange exactly (signed or unsigned 64 bits); orjson reads larger
ones as floats, so an action can only hold them when built in Python."""

_STRICT_TYPES = Draft202012Validator.TYPE_CHECKER.redefine_many(
    {
        "integer": lambda _checker, value: type(value) is int and _INT_MIN <= value <= _INT_MAX,
        "number": lambda _checker, value: type(value) in (int, float),
    }
)


def _same(one: Any, two: Any) -> bool:
    """JSON equality that also compares types: ``1``, ``1.0`` and ``true`` all differ."""
    if type(one) is not type(two):
        return False
    if isinstance(one, list):
        return len(one) == len(two) and all(_same(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict):
        return one.keys() == two.keys() and all(_same(value, two[key]) for key, value in one.items())
    return bool(one == two)


def is_listed(action: Any, listed: list[Any]) -> bool:
    """Whether ``action`` is one of ``listed``, JSON types included (``true`` is not ``1``):
    Python's ``==`` finds the candidate at C speed, :func:`_same` rules out a lookalike."""
    try:
        found = listed[listed.index(action)]
    except ValueError:
        return False
    return _same(action, found)


def _strict_enum(_validator: Any, choices: list[Any], instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if not any(_same(instance, choice) for choice in choices):
        yield ValidationError(f"{instance!r} is not one of {choices!r}")


def _strict_const(_validator: Any, const: Any, instance: Any, _schema: Any) -> Iterator[ValidationError]:
    if not _same(instance, const):
        yield ValidationError(f"{const!r} was expected")


StrictValidator = validators.extend(
    Draft202012Validator,
    validators={"enum": _strict_enum, "const": _strict_const},
    type_checker=_STRICT_TYPES,
)
"""Draft 2020-12 where neither ``true`` nor ``1.0`` is an integer, nor equal to one in an
``enum`` or ``const``."""

_ECHO_CHARS = 120


class ActionShapes:
    """The compiled schema of every action type of one game."""

    def __init__(self, title: str, schemas: Mapping[str, Mapping[str, Any]]) -> None:
        for schema in schemas.values():
            StrictValidator.check_schema(schema)
        self._title = title
        self._validators = {name: StrictValidator(schema) for name, schema in schemas.items()}

    @property
    def names(self) -> Iterable[str]:
        return self._validators.keys()

    def check(self, action: Any) -> None:
        """Return if ``action`` has the shape of one of the game's action types.

        :raises IllegalAction: ``unknown_action_type`` when ``type`` names none of them (or is
            not a string), ``bad_action`` when a field is missing, unexpected or of the wrong
            type or range.
        """
        if not isinstance(action, dict):
            raise IllegalAction("bad_action", "An action is a JSON object with a 'type'.")
        kind = action.get("type")
        validator = self._validators.get(kind) if isinstance(kind, str) else None
        if validator is None:
            raise IllegalAction(
                "unknown_action_type",
                f"{self._title} has no action type {_clip(repr(kind))}; it has: {', '.join(self.names)}.",
            )
        if validator.is_valid(action):
            return
        error = best_match(validator.iter_errors(action))
        where = "/".join(str(part) for part in error.absolute_path) or "the action"
        raise IllegalAction(
            "bad_action",
            f"Action {kind!r} does not match its schema at {_clip(where)}: {_clip(error.message)}; "
            "see the game's action_schemas.",
        )


def _clip(text: str) -> str:
    """A client's value echoed in a message, cut short so the message stays a sentence."""
    return text if len(text) <= _ECHO_CHARS else text[: _ECHO_CHARS - 1] + "…"
