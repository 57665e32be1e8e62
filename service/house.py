"""House seats: seats of a match that the referee's own bots play.

A house seat's turn is played by the node that committed the move which made it due, right
away and in the background (:class:`HouseSeats`), so the answer to that move is not delayed.
Should that node die first, the sweepers find the match in the due index shortly after
(:data:`HOUSE_GRACE_MS`) and play it instead. Either way the move goes through the
compare-and-set like a client's, so when two players try the same turn one wins and the
other moves on; and the bot's choice is seeded by the match, so both would choose the same.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from service.bots.registry import THINKING_MARGIN_MS, NoSampler, is_search, make_bot
from service.bots.thinkers import NoThinkerInTime, Thinkers
from service.clock import Clock
from service.engine import Game
from service.errors import Refused
from service.match import Match, Snapshot

HOUSE_GRACE_MS = 1000
"""How long after the commit that made a house seat due the due index points the sweepers at
it: the node that committed plays it at once, the sweepers only if that node did not."""

log = logging.getLogger("referee")


def checked_house(game_id: str, players: int, house: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The house seats a new match asks for, sorted; each a seat of the match, at most once,
    played by a bot this game has.

    :raises Refused: ``invalid_house`` otherwise.
    """
    seats = [h["seat"] for h in house]
    if len(set(seats)) != len(seats) or any(not 0 <= s < players for s in seats):
        raise Refused(
            "invalid_house",
            f"House seats must be distinct seats of the match (0 to {players - 1}); got {seats}.",
        )
    for h in house:
        try:
            make_bot(game_id, h["bot"])
        except NoSampler as exc:
            raise Refused("invalid_house", f"Seat {h['seat']}: {exc.args[0]}.") from None
        except KeyError:
            raise Refused("invalid_house", f"Seat {h['seat']}: {game_id} has no bot {h['bot']!r}.") from None
    return sorted(({"seat": h["seat"], "bot": h["bot"]} for h in house), key=lambda h: h["seat"])


def house_seat_due(match: Match, snapshot: Snapshot) -> int | None:
    """The first house seat that owes a decision now, if any."""
    return next((s for s in snapshot.to_act if match.house_bot(s) is not None), None)


def house_action(game: Game, match: Match, seat: int, now_ms: int, thinkers: Thinkers | None = None) -> dict[str, Any]:
    """The action the seat's bot chooses from the seat's view: seeded by the match, its
    version and the seat, so any node that plays the same turn chooses the same (as long as
    a search level's iteration budget, not the clock, ends its search).

    On a timed match a search stops :data:`THINKING_MARGIN_MS` before the seat's deadline
    (``now_ms`` is the match clock's now). With ``thinkers`` a search runs in one of their
    worker processes rather than in this one (:mod:`service.bots.thinkers`); should none come
    free before that point, or its answer not come shortly after it, the seat plays its
    level-2 move instead, which takes a millisecond. The cheap levels 1 and 2 always decide
    here.
    """
    name = match.house_bot(seat) or "random"
    within_s = _thinking_time_s(match, seat, now_ms)
    view, legal = game.view(match.state, seat), game.legal_actions(match.state, seat)
    seed = f"{match.seed}:{match.version}:{seat}"
    if thinkers is not None and is_search(name):
        stop_at = None if within_s is None else time.time() + within_s
        try:
            return thinkers.choose(game.id, name, view, legal, seed, stop_at)
        except NoThinkerInTime:
            log.warning("no search worker answered in time in match %s: seat %d plays level 2", match.match_id, seat)
            name = "level2"
    return make_bot(game.id, name, within_s=within_s).choose(view, legal, random.Random(seed))


def _thinking_time_s(match: Match, seat: int, now_ms: int) -> float | None:
    """How long the seat may think before its clock's deadline, less the margin; ``None``
    on an untimed match (or while the seat's clock does not run)."""
    if match.clock is None:
        return None
    clock = Clock.from_record(match.clock)
    if seat not in clock.started_ms:
        return None
    return max(0.0, (clock.deadline_of(seat) - now_ms - THINKING_MARGIN_MS) / 1000)


def spawn_thread(work: Callable[[], None]) -> None:
    """Run ``work`` in the background: a thread, which is a greenlet in a gevent worker (the
    worker patches ``threading``), so the answer that triggered it is not delayed."""
    threading.Thread(target=work, daemon=True, name="referee-house").start()


class HouseSeats:
    """The background loops of this process that play house turns, at most one per match.

    ``play_due(match_id)`` plays every house turn due in the match and returns when a
    client's seat owes the decision or the match is over; ``spawn`` runs a loop in the
    background (:func:`spawn_thread`; tests run it inline).
    """

    def __init__(self, play_due: Callable[[str], None], spawn: Callable[[Callable[[], None]], None]) -> None:
        self._play_due = play_due
        self.spawn = spawn
        self._lock = threading.Lock()
        self._loops: dict[str, bool] = {}
        """Matches a loop of this process plays, and whether another commit asked for it
        while it ran (so it looks once more before it stops)."""

    def start(self, match: Match, snapshot: Snapshot) -> None:
        """Start playing the house's turn in the background when one is due, unless a loop
        of this process already plays this match (then it looks once more before stopping)."""
        if house_seat_due(match, snapshot) is None:
            return
        with self._lock:
            if match.match_id in self._loops:
                self._loops[match.match_id] = True
                return
            self._loops[match.match_id] = False
        self.spawn(lambda: self._loop(match.match_id))

    def running(self, match_id: str) -> bool:
        """Whether a loop of this process is playing ``match_id``'s house turns now."""
        with self._lock:
            return match_id in self._loops

    def _loop(self, match_id: str) -> None:
        while True:
            try:
                self._play_due(match_id)
            except Exception:
                log.exception("playing the house's turns in match %s failed", match_id)
            with self._lock:
                if not self._loops.get(match_id):
                    self._loops.pop(match_id, None)
                    return
                self._loops[match_id] = False
