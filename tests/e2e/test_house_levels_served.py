"""Search levels as house seats on a real server (``referee serve``, one gevent worker), over
HTTP: they think in worker processes, so another match's moves stay fast, and within the
match's clock, so they never run out of time (bench/house_levels.py measures ten seats)."""

from __future__ import annotations

import time

from tests.support.http import MatchClient
from tests.support.thinking import decisions_made, move_latencies, served, thinking_matches


def test_level5_house_seats_thinking_do_not_hold_up_another_matchs_moves() -> None:
    """Three matches whose level-5 house seats think all the time (up to 1 s a decision):
    a search on the worker's own event loop would hold each of these moves up to a second."""
    with served(thinkers=2) as server:
        matches = thinking_matches(server.client, 3)
        time.sleep(0.5)
        before = decisions_made(matches)
        latencies = move_latencies(server.client, 20, pause_s=0.1)
        assert decisions_made(matches) > before, "the house seats went on thinking meanwhile"
    assert max(latencies) < 0.5, sorted(latencies)[-5:]


def test_a_search_house_seat_thinks_within_its_clock_and_never_times_out() -> None:
    """1 s per decision, so the search must stop 0.75 s in, before level 5's own 1 s cap, and a
    timeout forfeits: the search stops in time on every decision, so the match goes on (or ends
    by the game's rules, not by a timeout). The first decisions are those whose rollouts run
    longest, where the clock and not the iteration budget stops the search; the test watches the
    first 15. (0.3 s, 0.6 s and then 1 s each failed under a test suite's load; at 1 s the first
    decision timed out because the search worker was still importing the bots, which the server
    now waits for.)"""
    with served(thinkers=1) as server:
        house = [{"seat": 0, "bot": "level5"}, {"seat": 1, "bot": "level5"}]
        match = MatchClient.create(server.client, "the-game", 2, house=house, clock={"per_decision_s": 1.0})
        deadline = time.time() + 120
        while (body := match.get())["status"] == "active" and body["version"] < 15:
            assert time.time() < deadline, "the house seats stopped deciding"
            time.sleep(0.2)
    if body["status"] != "active":
        assert body["outcome"]["detail"]["end_reason"] in ("stuck", "all_played")
