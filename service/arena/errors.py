"""What can go wrong in an arena run.

- :class:`ArenaError`: the tournament cannot go on (a referee that does not answer, a bad
  argument); ``referee arena`` prints it and exits 2.
  - :class:`service.arena.client.ApiError`: the referee refused a request.
- :class:`BotFault`: one seat's bot failed one decision (silence past its deadline, output that
  is not an action, a crash, an action the referee refused). It never stops the tournament: the
  seat then meets the match's timeout policy (docs/arena.md).
"""

from __future__ import annotations


class ArenaError(Exception):
    """The tournament cannot go on."""


class BotFault(Exception):
    """A bot failed a decision; ``reason`` is one of ``timeout``, ``bad_output``, ``crashed``,
    ``illegal_action``, with a human ``detail``."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}")
