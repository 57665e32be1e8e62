"""Kept event cards are held like a hand: announced without their face, seen only by their
holder. Reached by seeded play through the public contract."""

from __future__ import annotations

import random

from service.games.viaggio import GAME
from tests.games.viaggio.reach import reach
from tests.games.viaggio.readings import head


def test_kept_event_cards_are_held_like_a_hand() -> None:
    def kept_drawn(state: dict, seat: int, legal: list) -> bool:
        return bool(state["kept"][seat]) and head(state)["kind"] == "turn"

    r = reach(kept_drawn, range(0, 200))
    seat = r.seat
    other = (seat + 1) % r.state["players"]
    assert GAME.view(r.state, seat)["hand"]["kept"] == r.state["kept"][seat]
    for viewer in (other, None):
        entry = GAME.view(r.state, viewer)["players"][seat]
        assert entry["kept_count"] == len(r.state["kept"][seat]) and "kept" not in entry


def test_a_kept_event_card_is_announced_without_its_face() -> None:
    seen: list[tuple[list, int]] = []
    for seed in range(0, 30):
        r = reach(lambda s, seat, legal: head(s)["kind"] == "turn", [seed])
        chooser = random.Random(seed)
        while GAME.to_act(r.state):
            events = r.act(chooser.choice(r.legal))
            for e in events:
                if e["type"] == "event_card" and e["kept"]:
                    seen.append((events, e["seat"]))
        if seen:
            break
    assert seen
    events, drawer = seen[0]
    public = [e for e in GAME.visible_events(events, (drawer + 1) % 2) if e["type"] == "event_card"]
    private = [e for e in GAME.visible_events(events, drawer) if e["type"] == "event_card"]
    assert any("card" not in e for e in public) and all("card" not in e for e in public if e["kept"])
    assert any("card" in e and e["kept"] for e in private)
