"""Group commit (service/store/batches.py): writes that arrive together run together, each
caller gets its own answer, and no failure or abandoned caller stalls the queue."""

from __future__ import annotations

import threading
import time

import pytest

from service.store import batches
from service.store.batches import Batches, Pending


def _doubling(sizes: list[int], pause: float = 0.002):
    def run(batch: list[Pending[int]]) -> None:
        sizes.append(len(batch))
        time.sleep(pause)  # a round trip, an fsync: others arrive meanwhile
        for pending in batch:
            pending.answer(pending.item * 2)

    return run


def test_callers_arriving_together_share_batches_and_get_their_own_answers() -> None:
    sizes: list[int] = []
    group: Batches[int] = Batches(_doubling(sizes))
    answers: dict[int, int] = {}
    start = threading.Barrier(16)

    def call(n: int) -> None:
        start.wait()
        for k in range(10):
            answers[n * 100 + k] = group.submit(n * 100 + k)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert answers == {item: item * 2 for item in answers} and len(answers) == 160
    assert sum(sizes) == 160 and max(sizes) > 1


def test_a_lone_caller_runs_at_once() -> None:
    sizes: list[int] = []
    group: Batches[int] = Batches(_doubling(sizes, pause=0))
    assert [group.submit(n) for n in range(3)] == [0, 2, 4]
    assert sizes == [1, 1, 1]


def test_a_failed_batch_fails_its_writes_and_the_next_batch_runs() -> None:
    def run(batch: list[Pending[int]]) -> None:
        if any(pending.item < 0 for pending in batch):
            raise OSError("connection lost")
        for pending in batch:
            pending.answer(pending.item)

    group: Batches[int] = Batches(run)
    with pytest.raises(OSError, match="connection lost"):
        group.submit(-1)
    assert group.submit(5) == 5


def test_a_write_the_runner_leaves_unanswered_fails_rather_than_hangs() -> None:
    group: Batches[int] = Batches(lambda batch: None)
    with pytest.raises(RuntimeError, match="without answering"):
        group.submit(1)
    with pytest.raises(RuntimeError):
        group.submit(2)


def test_a_caller_given_the_lead_as_it_is_killed_hands_it_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """A waiting caller can be killed (a gevent timeout) just as the lead reaches it: the
    lead goes to the next caller, and everyone else's write still runs."""
    killed = threading.Event()

    class KilledOnWake(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            woke = super().wait(timeout)
            if not killed.is_set():
                killed.set()
                raise TimeoutError("killed while waiting")
            return woke

    monkeypatch.setattr(batches, "Event", KilledOnWake)
    sizes: list[int] = []
    group: Batches[int] = Batches(_doubling(sizes, pause=0.05))
    results: dict[int, object] = {}

    def call(n: int) -> None:
        try:
            results[n] = group.submit(n)
        except TimeoutError as error:
            results[n] = error

    first = threading.Thread(target=call, args=(1,))
    first.start()
    time.sleep(0.01)  # the first leads; the next two queue behind it
    others = [threading.Thread(target=call, args=(n,)) for n in (2, 3)]
    for thread in others:
        thread.start()
        time.sleep(0.005)
    for thread in [first, *others]:
        thread.join(timeout=5)
        assert not thread.is_alive(), "the queue stalled"
    assert results[1] == 2
    assert sorted(type(r).__name__ for r in (results[2], results[3])) == ["TimeoutError", "int"]
