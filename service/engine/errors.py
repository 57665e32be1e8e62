"""Errors raised by game engines.

The tree::

    EngineError
    ├── InvalidOptions     match options that the game does not accept (HTTP 422 at creation)
    └── IllegalAction      an action the rules forbid now (HTTP 422)
        └── NotYourTurn    the seat owes no decision now (HTTP 403)

Every error carries a stable machine ``code`` (snake_case, part of the public API) and a
human sentence that names the rule, so a client can both branch on it and show it.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error a game engine raises on purpose."""

    code: str = "engine_error"

    def __init__(self, code: str, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class InvalidOptions(EngineError):
    """The options (or player count) given at match creation do not fit the game."""


class IllegalAction(EngineError):
    """The action is well formed but the rules forbid it at this decision point.

    ``rule`` optionally names the rule in a few words (for example ``"pile order"``); the
    HTTP layer passes it on as the problem's ``rule`` field.
    """


class NotYourTurn(IllegalAction):
    """The seat is not among those that owe a decision now."""

    def __init__(self, seat: int, to_act: list[int]) -> None:
        waiting = ", ".join(str(s) for s in to_act) or "nobody (the match is over)"
        super().__init__(
            "not_your_turn",
            f"Seat {seat} owes no decision now; waiting for seat(s) {waiting}.",
            rule="turn order",
        )
        self.seat = seat
        self.to_act = to_act
