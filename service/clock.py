"""Time controls as a value: what each seat has left, and whose clock runs since when.

Nothing ticks. A :class:`Clock` holds, per seat, the time it had left when its clock last
started, when each running clock started (epoch milliseconds), and how many timeouts in a row
each seat has had. Every question ("what is left now?", "when is the next deadline?", "has
someone flagged?") takes "now" as an argument, so the referee, the sweeper and the tests (with
a fake clock) ask the same pure functions, and the deadline can be stored and indexed.

Two controls (docs/clocks.md):

- **per decision** (``{"per_decision_s": 5}``): each decision a seat starts to owe gets the
  same allowance; nothing carries over;
- **Fischer** (``{"initial_s": 300, "increment_s": 2}``): one bank per seat, charged with the
  time each decision took; a decision made in time adds the increment afterwards.

Simultaneous decisions run every pending seat's clock (the seats in ``to_act``). A seat that
still owes the same decision after another seat moved keeps its clock running from when it
started, as its state token stays valid (:meth:`service.match.Match.accepts_token_version`).
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from service.store import StoreUnavailable

ON_TIMEOUT = ("forfeit", "auto")
"""What happens to a seat whose time runs out: it loses the match, or the referee plays a
random legal action for it (and it forfeits after ``max_consecutive_timeouts`` in a row)."""

DEFAULT_MAX_CONSECUTIVE_TIMEOUTS = 3

RESYNC_SECONDS = 10.0
"""How often a node reads the store's clock again (:class:`StoreClock`): clocks drift by
microseconds a second; a clock that steps is caught by the store's own check of the commit."""

log = logging.getLogger("referee.clock")


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _seconds(value: float) -> float:
    """A number of seconds as the client would write it: ``5``, not ``5.0``."""
    return int(value) if float(value).is_integer() else value


def wall_ms() -> int:
    """Now by this process's clock, in epoch milliseconds: the referee's "now" on the embedded
    stores, whose node is this machine (docs/clocks.md)."""
    return time.time_ns() // 1_000_000


class StoreClock:
    """ "Now" as the store's clock tells it, so that every node judges deadlines alike.

    Each node's own clock may be off (a node 1.5 s ahead timed matches out 1.5 s early; one
    behind accepted moves after their deadline). So a node keeps the offset between its clock
    and the store's: it reads the store's time (one round trip) every ``resync_seconds``,
    taking the midpoint of the round trip as the moment the store read it, and adds the
    offset to its own clock. The store also judges every timed commit by its own clock in the
    same round trip as the compare-and-set (service/store/commit.lua) and answers its time
    with each judgement; :meth:`observe` takes that in, so a node whose clock stepped since
    its last reading is corrected at its first refused commit and decides again.

    Calling the object is "now" in epoch milliseconds, like :func:`wall_ms`.
    """

    def __init__(
        self,
        read_store_ms: Callable[[], int],
        resync_seconds: float = RESYNC_SECONDS,
        local_ms: Callable[[], int] = wall_ms,
    ) -> None:
        self._read_store_ms = read_store_ms
        self._resync_seconds = resync_seconds
        self._local_ms = local_ms
        self._offset_ms = 0
        self._next_sync = -math.inf

    @property
    def offset_ms(self) -> int:
        """What is added to this node's clock: the store's clock minus this node's."""
        return self._offset_ms

    def __call__(self) -> int:
        if time.monotonic() >= self._next_sync:
            self.sync()
        return self._local_ms() + self._offset_ms

    def sync(self) -> None:
        """Read the store's time now. If it cannot be read, the offset stays as it was and
        the next reading is one interval away (a store that is down is not asked on every
        call); the store still judges every timed commit by its own clock."""
        self._next_sync = time.monotonic() + self._resync_seconds
        sent = self._local_ms()
        try:
            store = self._read_store_ms()
        except StoreUnavailable as exc:  # requests that need the store fail on their own
            log.warning("could not read the store's time (%s); keeping an offset of %d ms", exc, self._offset_ms)
            return
        self.observe(store, sent, self._local_ms())

    def observe(self, store_ms: int, sent_ms: int | None = None, received_ms: int | None = None) -> None:
        """Take in the store's time ``store_ms``, read between ``sent_ms`` and
        ``received_ms`` by this node's clock (by default: just now)."""
        received = self._local_ms() if received_ms is None else received_ms
        sent = received if sent_ms is None else sent_ms
        self._offset_ms = store_ms - (sent + received) // 2


def iso_ms(epoch_ms: int) -> str:
    """``2026-11-23T19:00:00.000Z`` for an epoch time in milliseconds."""
    seconds, ms = divmod(epoch_ms, 1000)
    return f"{_calendar_second(seconds)}.{ms:03d}Z"


@functools.lru_cache(maxsize=16)
def _calendar_second(epoch_s: int) -> str:
    """``2026-11-23T19:00:00`` for an epoch second. Every move stamps the match with
    :func:`iso_ms`, and building the datetime costs more than the rest of the stamp; the
    moves of one second share it."""
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="seconds").removesuffix("+00:00")


@dataclass(frozen=True)
class TimeControl:
    """A match's time control and timeout policy, as its creator asked for them.

    ``control`` is kept as created (``{"per_decision_s": 5}`` or ``{"initial_s": 300,
    "increment_s": 2}``) and shown back as such; the arithmetic is in whole milliseconds.
    """

    control: Mapping[str, float]
    on_timeout: str = "forfeit"
    max_consecutive_timeouts: int = DEFAULT_MAX_CONSECUTIVE_TIMEOUTS

    @classmethod
    def from_request(cls, body: Mapping[str, Any]) -> TimeControl:
        """The control a creation request's ``clock`` member describes (already checked by
        its schema: exactly one of ``per_decision_s`` and ``initial_s``)."""
        if body.get("per_decision_s") is not None:
            control: dict[str, float] = {"per_decision_s": _seconds(body["per_decision_s"])}
        else:
            control = {"initial_s": _seconds(body["initial_s"]), "increment_s": _seconds(body.get("increment_s") or 0)}
        return cls(
            control=control,
            on_timeout=body.get("on_timeout") or "forfeit",
            max_consecutive_timeouts=body.get("max_consecutive_timeouts") or DEFAULT_MAX_CONSECUTIVE_TIMEOUTS,
        )

    @property
    def per_decision_ms(self) -> int | None:
        value = self.control.get("per_decision_s")
        return None if value is None else _ms(value)

    @property
    def initial_ms(self) -> int:
        """What every seat has at the start: its bank (Fischer) or one decision's allowance."""
        per_decision = self.per_decision_ms
        return per_decision if per_decision is not None else _ms(self.control["initial_s"])

    @property
    def increment_ms(self) -> int:
        return _ms(self.control.get("increment_s", 0))

    def in_ms(self) -> dict[str, Any]:
        """The control in whole milliseconds, as a replay carries it (no floats there)."""
        per_decision = self.per_decision_ms
        control = (
            {"per_decision_ms": per_decision}
            if per_decision is not None
            else {"initial_ms": self.initial_ms, "increment_ms": self.increment_ms}
        )
        return {**control, "on_timeout": self.on_timeout, "max_consecutive_timeouts": self.max_consecutive_timeouts}

    def to_record(self) -> dict[str, Any]:
        return {
            "control": dict(self.control),
            "on_timeout": self.on_timeout,
            "max_consecutive_timeouts": self.max_consecutive_timeouts,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> TimeControl:
        return cls(data["control"], data["on_timeout"], data["max_consecutive_timeouts"])


@dataclass(frozen=True)
class Expiry:
    """A running clock that reached zero: whose, and at which moment (epoch ms)."""

    seat: int
    at_ms: int


@dataclass(frozen=True)
class Clock:
    """Every seat's time at one version of a match.

    ``remaining_ms[s]`` is what seat ``s`` had when its clock last started (or stopped);
    ``started_ms`` maps each seat whose clock runs to the moment it started.
    """

    time_control: TimeControl
    remaining_ms: tuple[int, ...]
    started_ms: Mapping[int, int]
    consecutive_timeouts: tuple[int, ...]

    @classmethod
    def start(cls, time_control: TimeControl, players: int, to_act: Sequence[int], now_ms: int) -> Clock:
        """The clock of a new match: every seat has its initial time; the seats that owe the
        first decision start now."""
        return cls(
            time_control,
            (time_control.initial_ms,) * players,
            {seat: now_ms for seat in to_act},
            (0,) * players,
        )

    # -- questions -------------------------------------------------------------------------

    @property
    def running(self) -> list[int]:
        return sorted(self.started_ms)

    def deadline_of(self, seat: int) -> int:
        """When the running clock of ``seat`` reaches zero."""
        return self.started_ms[seat] + self.remaining_ms[seat]

    def deadline_ms(self) -> int | None:
        """The earliest moment a running clock reaches zero; ``None`` when none runs."""
        return min((self.deadline_of(seat) for seat in self.started_ms), default=None)

    def expired(self, now_ms: int) -> Expiry | None:
        """The running clock that reached zero first by ``now_ms`` (the lower seat on a tie),
        if any: the referee applies it before anything else."""
        due = sorted((self.deadline_of(seat), seat) for seat in self.started_ms)
        if due and due[0][0] <= now_ms:
            return Expiry(due[0][1], due[0][0])
        return None

    def remaining_at(self, now_ms: int) -> list[int]:
        """What each seat has left at ``now_ms`` (never below zero)."""
        return [
            max(0, left - (now_ms - self.started_ms[seat])) if seat in self.started_ms else left
            for seat, left in enumerate(self.remaining_ms)
        ]

    def times_out_for_good(self, seat: int) -> bool:
        """Whether a timeout of ``seat`` now ends the match for it (the policy is
        ``forfeit``, or this is its ``max_consecutive_timeouts``-th timeout in a row)."""
        control = self.time_control
        return (
            control.on_timeout == "forfeit" or self.consecutive_timeouts[seat] + 1 >= control.max_consecutive_timeouts
        )

    # -- changes ---------------------------------------------------------------------------

    def after_decision(self, actor: int, to_act: Sequence[int], at_ms: int, *, timed_out: bool = False) -> Clock:
        """The clock once ``actor`` decided at ``at_ms`` and ``to_act`` owe decisions.

        The actor is charged the time it took (Fischer) and gets the increment only when it
        decided in time; under a per-decision control its next decision starts afresh. Seats
        that still owe the decision they owed keep their clocks running; seats whose decision
        went away are charged what they used; seats that start owing one start now.
        ``timed_out`` marks a decision the referee made for the actor when its time ran out.
        """
        control = self.time_control
        remaining = list(self.remaining_ms)
        started: dict[int, int] = {}
        for seat, since in self.started_ms.items():
            if seat != actor and seat in to_act:
                started[seat] = since
            else:
                remaining[seat] = self._charged(seat, at_ms)
        if not timed_out and actor in self.started_ms:
            remaining[actor] += control.increment_ms
        for seat in to_act:
            if seat not in started:
                started[seat] = at_ms
                if control.per_decision_ms is not None:
                    remaining[seat] = control.per_decision_ms
        streaks = list(self.consecutive_timeouts)
        streaks[actor] = streaks[actor] + 1 if timed_out else 0
        return replace(self, remaining_ms=tuple(remaining), started_ms=started, consecutive_timeouts=tuple(streaks))

    def stopped(self, at_ms: int, timed_out: int | None = None) -> Clock:
        """The clock of a match that ended at ``at_ms``: every running seat is charged what it
        used and no clock runs any more. ``timed_out`` is a seat that flagged (one more
        timeout in its streak)."""
        remaining = list(self.remaining_ms)
        for seat in self.started_ms:
            remaining[seat] = self._charged(seat, at_ms)
        streaks = list(self.consecutive_timeouts)
        if timed_out is not None:
            streaks[timed_out] += 1
        return replace(self, remaining_ms=tuple(remaining), started_ms={}, consecutive_timeouts=tuple(streaks))

    def _charged(self, seat: int, at_ms: int) -> int:
        """What ``seat`` has left at ``at_ms`` once its running clock stops: a per-decision
        allowance is not a bank, so it is back in full for the next decision."""
        if self.time_control.per_decision_ms is not None:
            return self.time_control.per_decision_ms
        return max(0, self.remaining_ms[seat] - (at_ms - self.started_ms[seat]))

    # -- storage and display ---------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        return {
            **self.time_control.to_record(),
            "remaining_ms": list(self.remaining_ms),
            "started_ms": {str(seat): since for seat, since in self.started_ms.items()},
            "consecutive_timeouts": list(self.consecutive_timeouts),
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> Clock:
        return cls(
            TimeControl.from_record(data),
            tuple(data["remaining_ms"]),
            {int(seat): since for seat, since in data["started_ms"].items()},
            tuple(data["consecutive_timeouts"]),
        )

    def describe(self, now_ms: int) -> dict[str, Any]:
        """The ``clock`` member of the match resource, as of ``now_ms``."""
        deadline = self.deadline_ms()
        return {
            **self.time_control.to_record(),
            "remaining_ms": self.remaining_at(now_ms),
            "running": self.running,
            "deadline": None if deadline is None else iso_ms(deadline),
            "deadline_ms": deadline,
            "consecutive_timeouts": list(self.consecutive_timeouts),
        }
