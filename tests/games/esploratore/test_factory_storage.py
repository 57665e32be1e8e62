"""A factory stores (its multiplier grows) only when it is not on an orbit continuous with Earth
("non si trovano su un'orbita continua con la Terra"), on a meeting point or not. Each
situation is played up to through the public contract (seeded matches, actions from
``legal_actions``), then checked."""

from __future__ import annotations

from service.games.esploratore import rules as R
from service.games.esploratore.engine import continuous
from tests.games.esploratore.checks import meets

from .reach import reach


def _factory_move(state: dict, seat: int, legal: list[dict], linked: bool) -> dict | None:
    """A legal orbit change of an own factory to a line without a meeting point whose
    continuity to Earth is ``linked``."""
    if state["phase"] != "move":
        return None
    for a in legal:
        if a["type"] != "move":
            continue
        v = next(v for v in state["vehicles"] if v["id"] == a["vehicle"])
        if v["kind"] != "factory" or v["mult"] >= R.MAX_MULTIPLIER:
            continue
        pos = R.POS_INDEX[a["position"]]
        if not meets(state, pos, a["line"]) and continuous(state, a["line"], pos, R.EARTH) == linked:
            return a
    return None


def test_a_factory_cut_off_from_earth_fills_its_store_even_off_a_meeting_point() -> None:
    r = reach(lambda s, seat, legal: _factory_move(s, seat, legal, linked=False) is not None, players=3)
    move = _factory_move(r.state, r.seat, r.legal, linked=False)
    seat, vid = r.seat, move["vehicle"]
    before = next(v["mult"] for v in r.state["vehicles"] if v["id"] == vid)
    r.act(move)
    events = r.act({"type": "end_moves"}, seat)
    factory = next(v for v in r.state["vehicles"] if v["id"] == vid)
    assert factory["mult"] == before + 1
    assert {"type": "stored", "seat": seat, "vehicle": vid, "multiplier": before + 1} in events
    assert not [e for e in events if e["type"] == "yield" and e["vehicle"] == vid]


def test_a_factory_on_an_orbit_continuous_with_earth_stores_nothing_even_off_a_meeting_point() -> None:
    r = reach(lambda s, seat, legal: _factory_move(s, seat, legal, linked=True) is not None, players=3)
    move = _factory_move(r.state, r.seat, r.legal, linked=True)
    seat, vid = r.seat, move["vehicle"]
    before = next(v["mult"] for v in r.state["vehicles"] if v["id"] == vid)
    r.act(move)
    events = r.act({"type": "end_moves"}, seat)
    assert next(v["mult"] for v in r.state["vehicles"] if v["id"] == vid) == before
    assert not [e for e in events if e.get("vehicle") == vid and e["type"] in ("stored", "yield")]
