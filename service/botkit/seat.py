"""Playing one seat of a match the referee started for the account: the arena's match loop
(:class:`service.arena.runner.MatchPlay`) holding that seat only, with the seat token of the
``match_started`` event; the other seats are remote (their bots decide, wherever they run).
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from service.arena.client import Body, RefereeClient
from service.arena.errors import BotFault
from service.arena.players import Observation, Player
from service.arena.runner import BotEntry, MatchPlay, MatchRecord, Plan

Choose = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]
"""A bot's decision: from its seat's view and legal actions to one of those actions."""


class SeatPlay(MatchPlay):
    """The seat that ``started`` (a ``match_started`` event's data) gives this account."""

    def __init__(
        self, client: RefereeClient, started: Body, name: str, move_timeout_s: float, stop: threading.Event
    ) -> None:
        self.seat = int(started["seat"])
        seats = [f"seat {seat}" for seat in range(started["players"])]
        seats[self.seat] = name
        plan = Plan(
            game=started["game"],
            players=started["players"],
            bots=[BotEntry(seat) for seat in seats],
            matches=1,
            move_timeout_s=move_timeout_s,
        )
        super().__init__(client, plan, 0, tuple(range(plan.players)), stop)
        self.match_id = self.record.match_id = started["match_id"]
        self.record.watch_url = started.get("watch_url") or client.watch_url(self.match_id)
        self.tokens = {self.seat: started["seat_token"]}
        self.remote = set(range(plan.players)) - {self.seat}

    def play(self, player: Player) -> MatchRecord:
        """Play the seat with ``player`` until the match ends (also when it had already)."""
        return self.play_with({self.seat: player}, self.join)


class CallablePlayer:
    """A Python bot's :data:`Choose`, as a :class:`~service.arena.players.Player`: it decides in
    the match's own thread when asked. An exception, or an answer that is not an action
    object, is the bot's fault (``crashed``, ``bad_output``), as for a command."""

    def __init__(self, choose: Choose) -> None:
        self._choose = choose
        self._decided: dict[str, Any] | None = None
        self._fault: BotFault | None = None

    def ask(self, observation: Observation) -> None:
        self._decided, self._fault = None, None
        try:
            action = self._choose(observation.view, observation.legal_actions)
        except Exception as exc:
            last = traceback.format_exception_only(exc)[-1].strip()
            self._fault = BotFault("crashed", f"choose raised {last}")
            return
        if not isinstance(action, dict):
            self._fault = BotFault("bad_output", f"choose returned {action!r:.200}, not an action object")
            return
        self._decided = action

    def poll(self, wait_s: float | None) -> dict[str, Any] | None:
        if self._fault is not None:
            raise self._fault
        return self._decided

    def close(self) -> None:
        self._decided = None
