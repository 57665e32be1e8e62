"""service/live/slots.py: the cap, each client's share of it, and the call once a burst left."""

from __future__ import annotations

from service.live.slots import DRAINED_FROM, StreamSlots


def test_a_client_stops_at_half_and_the_last_slot_goes_to_a_newcomer() -> None:
    slots = StreamSlots(10)
    greedy = [slots.take(["addr:a"]) for _ in range(10)]
    assert sum(slot is not None for slot in greedy) == 5
    others = [slots.take([f"addr:{i}"]) for i in range(6)]
    assert [slot is not None for slot in others] == [True] * 5 + [False], "newcomers fill it, then it is full"
    assert slots.open == 10 and slots.held("addr:a") == 5


def test_every_key_of_a_request_counts_and_giving_back_twice_does_nothing() -> None:
    slots = StreamSlots(8)
    held = [slots.take([f"addr:{i}", "token:t"]) for i in range(8)]
    assert sum(slot is not None for slot in held) == 4, "one token from many addresses: half"
    first = next(slot for slot in held if slot is not None)
    first.give_back()
    first.give_back()
    assert slots.open == 3 and slots.held("token:t") == 3 and slots.held("addr:0") == 0


def test_the_drained_callback_runs_once_per_burst() -> None:
    calls: list[int] = []
    slots = StreamSlots(1000, on_drained=lambda: calls.append(slots.open))
    burst = [slots.take([f"addr:{i}"]) for i in range(DRAINED_FROM * 2)]
    for slot in burst:
        assert slot is not None
        slot.give_back()
    assert calls == [DRAINED_FROM // 2], "once, when a quarter of the peak was left"
    small = [slots.take([f"addr:{i}"]) for i in range(DRAINED_FROM - 1)]
    for slot in small:
        assert slot is not None
        slot.give_back()
    assert len(calls) == 1, "a few streams leaving is no burst"
