"""The waiting requests a stopping worker ends (service/live/waiting.py)."""

from __future__ import annotations

from service.live.waiting import WaitingRequests


def test_ending_stops_every_request_still_waiting_and_any_that_starts_later() -> None:
    waiting, stopped = WaitingRequests(), []

    def finished() -> None:
        stopped.append("finished")

    waiting.add(lambda: stopped.append("stream"))
    waiting.add(finished)
    waiting.discard(finished)
    waiting.end_all()
    assert stopped == ["stream"]
    waiting.add(lambda: stopped.append("late"))
    assert stopped == ["stream", "late"]
    waiting.end_all()
    assert stopped == ["stream", "late"]
