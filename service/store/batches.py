"""Group commit: writes that arrive while another is under way go together, next.

A store's write costs mostly per round, not per write: a Redis round trip (system calls and
wake-ups on both sides), an fsync of the SQLite file. :class:`Batches` lets one caller at a
time (the *leader*) run every write queued so far as one batch; callers arriving meanwhile
queue and wait, and when the batch is done the first of them leads the next one. A caller
alone runs at once, so an idle node pays nothing; a busy one pays one round for several
moves.

Safe between threads and between greenlets (the lock and events are gevent's in a patched
worker). A caller killed while it waits (a timeout) leaves the queue, and hands the lead on
if it had just been given it, so the queue never stalls.
"""

from __future__ import annotations

from collections.abc import Callable
from threading import Event, Lock
from typing import Any, Generic, TypeVar

from service.store.processes import current_pid

Item = TypeVar("Item")


class Pending(Generic[Item]):
    """One caller's write on its way: the batch runner sets its reply or its error."""

    __slots__ = ("error", "item", "leads", "reply", "settled", "woken")

    def __init__(self, item: Item) -> None:
        self.item = item
        self.settled = False
        self.leads = False
        self.reply: Any = None
        self.error: BaseException | None = None
        self.woken: Event | None = None

    def answer(self, reply: Any) -> None:
        self.reply, self.settled = reply, True

    def fail(self, error: BaseException) -> None:
        self.error, self.settled = error, True

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.reply


class Batches(Generic[Item]):
    """Runs ``run`` on batches of the items submitted at once; see the module's docstring.

    ``run(batch)`` settles each :class:`Pending` of ``batch`` (:meth:`Pending.answer` or
    :meth:`Pending.fail`). If it raises, every write it left unsettled fails with what it
    raised, and the leader's own call raises it too."""

    def __init__(self, run: Callable[[list[Pending[Item]]], None]) -> None:
        self._run = run
        self._forked()

    def _forked(self) -> None:
        """A forked child starts with no queue: its parent's callers are not its own."""
        self._pid = current_pid()
        self._queue: list[Pending[Item]] = []
        self._leading = False
        self._lock = Lock()

    def submit(self, item: Item) -> Any:
        """``item``'s reply, once a batch holding it has run.

        :raises BaseException: what the batch runner failed ``item`` with.
        """
        if current_pid() != self._pid:
            self._forked()
        pending: Pending[Item] = Pending(item)
        with self._lock:
            self._queue.append(pending)
            if self._leading:
                pending.woken = Event()
            else:
                self._leading = pending.leads = True
        if not pending.leads:
            self._wait(pending)
            if pending.settled:
                return pending.outcome()
        try:
            with self._lock:
                batch, self._queue = self._queue, []
            self._run_batch(batch)
        finally:
            with self._lock:
                self._hand_over()
        return pending.outcome()

    def _run_batch(self, batch: list[Pending[Item]]) -> None:
        try:
            self._run(batch)
        except BaseException as error:
            for pending in batch:
                if not pending.settled:
                    pending.fail(error)
            raise
        finally:
            for pending in batch:
                if not pending.settled:
                    pending.fail(RuntimeError("the batch ended without answering this write"))
                if pending.woken is not None:
                    pending.woken.set()

    def _wait(self, pending: Pending[Item]) -> None:
        """Until ``pending``'s batch has run or it is its turn to lead."""
        assert pending.woken is not None
        try:
            pending.woken.wait()
        except BaseException:
            with self._lock:
                if pending in self._queue:
                    self._queue.remove(pending)
                if pending.leads:
                    self._hand_over()
            raise

    def _hand_over(self) -> None:
        """The lead to the first caller queued, or to whoever comes next (lock held)."""
        if self._queue:
            following = self._queue[0]
            following.leads = True
            assert following.woken is not None
            following.woken.set()
        else:
            self._leading = False
