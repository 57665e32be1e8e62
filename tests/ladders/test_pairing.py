"""Who plays whom: nearest ratings within a window that widens with waiting, the longest
waiting first, no immediate rematch while others wait, one owner's bots apart, house bots
only beside a real bot, seats evened out."""

from __future__ import annotations

import random
from collections import Counter

from service.ladders.pairing import Candidate, line_ups, seat_order, window


def bot(key: str, rating: float, waited_ms: int = 0, owner: str = "", last: tuple[str, ...] = ()) -> Candidate:
    return Candidate(key, owner or key, rating, waited_ms, frozenset(last))


def keys(found: list[list[Candidate]]) -> list[set[str]]:
    return [{c.key for c in line_up} for line_up in found]


def test_nearest_ratings_meet_first() -> None:
    found = line_ups([bot("a", 0), bot("b", 20), bot("c", 1), bot("d", 21)], 2, same_owner=False)
    assert sorted(keys(found), key=sorted) == [{"a", "c"}, {"b", "d"}]


def test_the_window_widens_with_waiting() -> None:
    assert line_ups([bot("a", 0), bot("b", 10)], 2, same_owner=False) == []
    assert window(5000) > 10
    assert keys(line_ups([bot("a", 0, waited_ms=5000), bot("b", 10)], 2, same_owner=False)) == [{"a", "b"}]


def test_the_longest_waiting_bot_is_seated_first() -> None:
    found = line_ups([bot("a", 0), bot("b", 1), bot("c", 2, waited_ms=9000)], 2, same_owner=False)
    assert len(found) == 1 and found[0][0].key == "c"


def test_no_immediate_rematch_while_someone_else_fits() -> None:
    found = line_ups([bot("a", 0, 1000, last=("b",)), bot("b", 0, last=("a",)), bot("c", 1)], 2, same_owner=False)
    assert keys(found) == [{"a", "c"}]
    assert keys(line_ups([bot("a", 0, last=("b",)), bot("b", 0, last=("a",))], 2, same_owner=False)) == [{"a", "b"}]


def test_one_owners_bots_meet_only_when_allowed() -> None:
    twins = [bot("a", 0, owner="ann"), bot("b", 0, owner="ann")]
    assert line_ups(twins, 2, same_owner=False) == []
    assert keys(line_ups(twins, 2, same_owner=True)) == [{"a", "b"}]


def test_house_bots_fill_seats_beside_real_bots_only() -> None:
    house = [Candidate("house:random", "", 0, 0, house=True), Candidate("house:heuristic", "", 1, 0, house=True)]
    assert line_ups(house, 2, same_owner=False) == []
    found = line_ups([bot("a", 0), bot("b", 30), *house], 2, same_owner=False)
    assert keys(found) == [{"a", "house:random"}]


def test_seats_even_out_over_matches() -> None:
    chooser = random.Random(7)
    counts: dict[str, list[int]] = {k: [0, 0, 0] for k in "abc"}
    for _ in range(300):
        for seat, key in enumerate(seat_order(list("abc"), counts, chooser)):
            counts[key][seat] += 1
    assert all(max(c) - min(c) <= 2 for c in counts.values()), counts
    assert Counter(seat_order(list("ab"), {}, chooser)[0] for _ in range(200))["a"] > 50
