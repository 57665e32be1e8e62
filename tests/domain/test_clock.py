"""The clock as a value: per-decision and Fischer arithmetic with "now" passed in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from service.clock import Clock, Expiry, TimeControl, iso_ms
from service.match import epoch_ms, now_iso

PER_DECISION = TimeControl({"per_decision_s": 5})
FISCHER = TimeControl({"initial_s": 60, "increment_s": 2})
T0 = 1_800_000_000_000


def test_a_new_clock_runs_only_for_the_seats_that_owe_the_first_decision() -> None:
    clock = Clock.start(FISCHER, 3, [1], T0)
    assert clock.running == [1]
    assert clock.remaining_at(T0 + 1500) == [60_000, 58_500, 60_000]
    assert clock.deadline_ms() == T0 + 60_000
    assert clock.expired(T0 + 59_999) is None
    assert clock.expired(T0 + 60_000) == Expiry(1, T0 + 60_000)


def test_fischer_charges_the_time_used_and_adds_the_increment_after_a_move_in_time() -> None:
    clock = Clock.start(FISCHER, 2, [0], T0)
    clock = clock.after_decision(0, [1], T0 + 10_000)
    assert clock.remaining_ms == (52_000, 60_000)
    assert clock.running == [1] and clock.deadline_ms() == T0 + 70_000
    clock = clock.after_decision(1, [0], T0 + 13_500)
    assert clock.remaining_ms == (52_000, 58_500)
    assert clock.deadline_ms() == T0 + 13_500 + 52_000


def test_fischer_gives_no_increment_to_a_decision_the_referee_made_on_time_out() -> None:
    clock = Clock.start(FISCHER, 2, [0], T0)
    clock = clock.after_decision(0, [1], T0 + 60_000, timed_out=True)
    assert clock.remaining_ms == (0, 60_000)
    assert clock.consecutive_timeouts == (1, 0)
    clock = clock.after_decision(1, [0], T0 + 61_000)
    assert clock.deadline_ms() == T0 + 61_000, "an empty bank flags at once"
    clock = clock.after_decision(0, [1], T0 + 61_000, timed_out=True)
    assert clock.consecutive_timeouts == (2, 0)


def test_a_seat_that_moves_itself_ends_its_timeout_streak() -> None:
    clock = Clock.start(PER_DECISION, 2, [0], T0)
    clock = clock.after_decision(0, [1], T0 + 5000, timed_out=True)
    clock = clock.after_decision(1, [0], T0 + 6000)
    assert clock.consecutive_timeouts == (1, 0)
    clock = clock.after_decision(0, [1], T0 + 7000)
    assert clock.consecutive_timeouts == (0, 0)


def test_per_decision_gives_each_decision_the_same_allowance() -> None:
    clock = Clock.start(PER_DECISION, 2, [0], T0)
    assert clock.deadline_ms() == T0 + 5000
    clock = clock.after_decision(0, [1], T0 + 4900)
    assert clock.remaining_ms == (5000, 5000), "nothing carries over"
    assert clock.deadline_ms() == T0 + 9900
    clock = clock.after_decision(1, [1], T0 + 5000)
    assert clock.deadline_ms() == T0 + 10_000, "a seat's next decision starts afresh"
    assert clock.remaining_at(T0 + 6000) == [5000, 4000]


def test_simultaneous_decisions_run_every_pending_clock_from_when_each_started() -> None:
    clock = Clock.start(FISCHER, 3, [0, 1, 2], T0)
    assert clock.running == [0, 1, 2]
    clock = clock.after_decision(1, [0, 2], T0 + 4000)
    assert clock.running == [0, 2]
    assert clock.started_ms == {0: T0, 2: T0}, "the others keep thinking on the same decision"
    assert clock.remaining_at(T0 + 5000) == [55_000, 58_000, 55_000]
    clock = clock.after_decision(2, [0], T0 + 9000)
    assert clock.expired(T0 + 60_000) == Expiry(0, T0 + 60_000)


def test_the_earliest_expiry_comes_first_and_the_lower_seat_on_a_tie() -> None:
    clock = Clock.start(PER_DECISION, 3, [2, 1], T0)
    assert clock.expired(T0 + 9000) == Expiry(1, T0 + 5000)
    clock = clock.after_decision(0, [0, 2], T0)  # seat 2 keeps its start, seat 0 starts now
    assert clock.expired(T0 + 5000) == Expiry(0, T0 + 5000)


def test_a_seat_whose_decision_went_away_is_charged_what_it_used() -> None:
    clock = Clock.start(FISCHER, 2, [0, 1], T0)
    clock = clock.after_decision(0, [0], T0 + 3000)
    assert clock.remaining_ms[1] == 57_000 and clock.running == [0]


def test_a_stopped_clock_charges_the_running_seats_and_runs_no_more() -> None:
    clock = Clock.start(FISCHER, 2, [1], T0).stopped(T0 + 61_000, timed_out=1)
    assert clock.remaining_ms == (60_000, 0)
    assert clock.running == [] and clock.deadline_ms() is None and clock.expired(T0 + 10**9) is None
    assert clock.consecutive_timeouts == (0, 1)


def test_forfeit_or_auto_decides_when_a_timeout_ends_the_match_for_the_seat() -> None:
    forfeit = Clock.start(TimeControl({"per_decision_s": 1}), 2, [0], T0)
    assert forfeit.times_out_for_good(0)
    auto = Clock.start(TimeControl({"per_decision_s": 1}, "auto", 3), 2, [0], T0)
    assert not auto.times_out_for_good(0)
    auto = auto.after_decision(0, [0], T0 + 1000, timed_out=True).after_decision(0, [0], T0 + 2000, timed_out=True)
    assert auto.times_out_for_good(0), "the third timeout in a row forfeits"


def test_the_clock_survives_its_record_and_describes_itself() -> None:
    control = TimeControl.from_request({"initial_s": 0.5, "increment_s": 0, "on_timeout": "auto"})
    assert control.control == {"initial_s": 0.5, "increment_s": 0}
    assert TimeControl.from_request({"per_decision_s": 5.0}).control == {"per_decision_s": 5}
    clock = Clock.start(control, 2, [0], T0).after_decision(0, [1], T0 + 100)
    assert Clock.from_record(clock.to_record()) == clock
    assert clock.describe(T0 + 200) == {
        "control": {"initial_s": 0.5, "increment_s": 0},
        "on_timeout": "auto",
        "max_consecutive_timeouts": 3,
        "remaining_ms": [400, 400],
        "running": [1],
        "deadline": iso_ms(T0 + 600),
        "deadline_ms": T0 + 600,
        "consecutive_timeouts": [0, 0],
    }
    assert control.in_ms() == {
        "initial_ms": 500,
        "increment_ms": 0,
        "on_timeout": "auto",
        "max_consecutive_timeouts": 3,
    }


@given(st.integers(min_value=0, max_value=253_402_300_799_999))  # to the end of year 9999
def test_a_time_is_written_to_the_millisecond_and_read_back(ms: int) -> None:
    exact = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    written = iso_ms(ms)
    assert written == exact.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert epoch_ms(written) == ms


def test_times_in_other_iso_forms_are_read_too() -> None:
    assert epoch_ms("2026-11-23T19:00:00.250+00:00") == epoch_ms("2026-11-23T19:00:00.250Z") == 1_795_460_400_250
    assert epoch_ms("2026-11-23T20:00:00+01:00") == 1_795_460_400_000
    assert abs(epoch_ms(now_iso()) - datetime.now(UTC).timestamp() * 1000) < 5_000
