"""A bot in Python: a class with one method, from a seat's view and legal actions to an action.

    class FirstLegal(Bot):
        def choose(self, view, legal_actions):
            return legal_actions[0]

    FirstLegal().run("http://127.0.0.1:8000", key)

:meth:`Bot.run` is the bridge of ``referee bot connect`` with the bot deciding in this process
instead of a command: the same event stream, challenges, reconnection and draining.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from service.botkit.bridge import DEFAULT_MAX_MATCHES, DEFAULT_MOVE_TIMEOUT_S, connect
from service.botkit.seat import CallablePlayer


class Bot(ABC):
    """Subclass it and define :meth:`choose`. One instance plays every match of the account,
    several at once from different threads: keep per-match state keyed by what the view says."""

    @abstractmethod
    def choose(self, view: dict[str, Any], legal_actions: list[dict[str, Any]]) -> dict[str, Any]:
        """The action to play: one of ``legal_actions``, given the seat's ``view`` (as
        ``GET /v1/matches/{id}`` shows it to the seat)."""

    def run(
        self,
        url: str,
        key: str,
        accept: str | None = None,
        max_matches: int = DEFAULT_MAX_MATCHES,
        move_timeout_s: float = DEFAULT_MOVE_TIMEOUT_S,
    ) -> int:
        """Play every match of the bot ``key`` on the referee at ``url``, accepting challenges
        by ``accept`` (docs/bots.md), until Ctrl-C; the exit status of ``referee bot connect``."""
        return connect(url, key, lambda started: CallablePlayer(self.choose), accept, max_matches, move_timeout_s)
