"""Issue 13, "Rules, second reading": each point played up to its situation through the public
contract (seeded matches, actions from ``legal_actions``), then checked."""

from __future__ import annotations

import copy
import random

import pytest

from service.bots.esploratore import EsploratoreBot
from service.engine import IllegalAction, Rng
from service.games.esploratore import GAME
from service.games.esploratore import rules as R
from service.games.esploratore.engine import continuous, top_masks

from .reach import reach


def own(state: dict, seat: int) -> list[dict]:
    return [v for v in state["vehicles"] if v["owner"] == seat]


def meets(state: dict, pos: int, line: int) -> bool:
    return bool(top_masks(state, pos)[1] >> line & 1)


def finish_phase_one(r) -> None:
    """After a play: keep own vehicles where they are (or the forced shift), then draw."""
    while r.state["phase"] in ("shift", "draw"):
        skip = {"type": "skip_shift"}
        r.act(skip if skip in r.legal else r.legal[0])


# -- factory storage: "non si trovano su un'orbita continua con la Terra" ----------------------


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


# -- combining: "all'inizio della mossa … sullo stesso punto d'incontro" -------------------------


def _pair(state: dict, seat: int) -> tuple[int, int, list[int]] | None:
    """(position, line, vehicle ids) of two or more own combinable vehicles sharing a slot."""
    slots: dict[tuple[int, int], list[dict]] = {}
    for v in own(state, seat):
        if v["kind"] != "factory":
            slots.setdefault((v["pos"], v["line"]), []).append(v)
    for (pos, line), group in slots.items():
        if len(group) >= 2 and [v["kind"] for v in group] != ["station", "station"]:
            return pos, line, [v["id"] for v in group]
    return None


def _meeting_play(state: dict, seat: int, legal: list[dict], appears: bool) -> dict | None:
    """A legal play on the slot of an own pair that makes a meeting point appear there
    (``appears``) or disappear, the line being kept."""
    if state["phase"] != "play" or (pair := _pair(state, seat)) is None:
        return None
    pos, line, _ = pair
    if meets(state, pos, line) == appears:
        return None
    for a in legal:
        if a["type"] == "play" and R.POS_INDEX[a["position"]] == pos:
            lines, meet = R.CARDS[a["card"]].masks(a["flip"])
            if lines >> line & 1 and bool(meet >> line & 1) == appears:
                return a
    return None


def test_a_meeting_point_that_appears_during_the_turn_does_not_allow_combining() -> None:
    r = reach(
        lambda s, seat, legal: _meeting_play(s, seat, legal, appears=True) is not None,
        players=3,
        seeds=range(400),
        randomness=0.3,
    )
    pos, line, ids = _pair(r.state, r.seat)
    seat = r.seat
    r.act(_meeting_play(r.state, r.seat, r.legal, appears=True))
    finish_phase_one(r)
    assert r.seat == seat and r.state["phase"] == "build"
    assert meets(r.state, pos, line)  # the vehicles now stand on a meeting point...
    combines = [a for a in r.legal if a["type"] == "combine"]
    assert not [a for a in combines if set(a["vehicles"]) & set(ids)]  # ...that came too late
    with pytest.raises(IllegalAction) as info:
        GAME.apply(r.state, seat, {"type": "combine", "vehicles": ids[:2]}, r.rng)
    assert info.value.code == "combine_rule"


def test_vehicles_on_a_meeting_point_at_the_turn_start_combine_even_if_a_play_removed_it() -> None:
    r = reach(
        lambda s, seat, legal: _meeting_play(s, seat, legal, appears=False) is not None,
        players=3,
        seeds=range(400),
        randomness=0.3,
    )
    pos, line, ids = _pair(r.state, r.seat)
    seat = r.seat
    r.act(_meeting_play(r.state, r.seat, r.legal, appears=False))
    finish_phase_one(r)
    assert r.seat == seat and r.state["phase"] == "build" and not meets(r.state, pos, line)
    assert any(set(a["vehicles"]) <= set(ids) for a in r.legal if a["type"] == "combine")


def test_combine_accepts_the_vehicle_ids_in_any_order() -> None:
    r = reach(lambda s, seat, legal: any(a["type"] == "combine" for a in legal), players=2)
    combine = max((a for a in r.legal if a["type"] == "combine"), key=lambda a: len(a["vehicles"]))
    position = r.rng.position()
    results = []
    for ids in (combine["vehicles"], list(reversed(combine["vehicles"]))):
        state, events = GAME.apply(
            copy.deepcopy(r.state), r.seat, {"type": "combine", "vehicles": ids}, Rng(r.rng.seed, position)
        )
        results.append((state, events))
    assert results[0] == results[1]
    with pytest.raises(IllegalAction):  # the same vehicle twice is still no combination
        GAME.apply(
            copy.deepcopy(r.state),
            r.seat,
            {"type": "combine", "vehicles": [combine["vehicles"][0]] * 2},
            Rng(r.rng.seed, position),
        )


# -- beginners' variant: every card, wild cards included, upside down -----------------------------


def test_beginners_play_wild_cards_upside_down_too() -> None:
    def wild_in_play(state: dict, seat: int, legal: list[dict]) -> bool:
        return any(a["type"] == "play" and R.CARDS[a["card"]].wild for a in legal)

    r = reach(wild_in_play, players=3, options={"beginners": True}, randomness=0.5)
    wild_plays = [a for a in r.legal if a["type"] == "play" and R.CARDS[a["card"]].wild]
    flips = {(a["card"], a["position"]): set() for a in wild_plays}
    for a in wild_plays:
        flips[(a["card"], a["position"])].add(a["flip"])
    assert all(f == {False, True} for f in flips.values())
    play = next(a for a in wild_plays if a["flip"])
    card = R.CARDS[play["card"]]
    r.act(play)
    top = GAME.view(r.state, None)["positions"][R.POS_INDEX[play["position"]]]["top"]
    assert top["flip"] is True
    assert top["meeting"] == sorted(R.NLINES - 1 - ln for ln in R.bits(card.meet))


def test_every_card_played_in_the_beginners_variant_may_go_upside_down() -> None:
    chooser = random.Random(5)
    rng = Rng(b"beginners-flip")
    state = GAME.setup(4, GAME.resolve_options(4, {"beginners": True}), rng)
    checked = 0
    while to_act := GAME.to_act(state):
        legal = GAME.legal_actions(state, to_act[0])
        empty = {R.POSITIONS[p] for p in range(R.NPOS)} - {R.POSITIONS[v["pos"]] for v in state["vehicles"]}
        # where no vehicle's orbit must be kept, each card goes either way up
        plays = {(a["card"], a["position"], a["flip"]) for a in legal if a["type"] == "play" and a["position"] in empty}
        assert plays == {(c, p, f) for c, p, _ in plays for f in (False, True)}
        checked += len(plays)
        state, _ = GAME.apply(state, to_act[0], chooser.choice(legal), rng)
    assert checked > 100


# -- upkeep: the government only "in caso il baratto … non fosse possibile" -----------------------


def test_government_trade_only_once_no_barter_is_possible() -> None:
    def barter_before_trade(state: dict, seat: int, legal: list[dict]) -> bool:
        return (
            state["phase"] == "upkeep"
            and any(a["type"] == "offer" for a in legal)
            and max(state["totals"][seat]) >= R.TRADE_FACTOR
        )

    r = reach(barter_before_trade, players=4, options={"upkeep": True}, seeds=range(300), randomness=0.2)
    seat = r.seat
    assert not [a for a in r.legal if a["type"] == "trade"]
    short = next(a["get"] for a in r.legal if a["type"] == "offer")
    rich = max(R.RESOURCES, key=lambda res: r.state["totals"][seat][R.RESOURCES.index(res)])
    with pytest.raises(IllegalAction) as info:
        GAME.apply(r.state, seat, {"type": "trade", "give": rich, "get": short}, r.rng)
    assert info.value.code == "trade_rule" and "barter" in str(info.value)
    while offers := [a for a in r.legal if a["type"] == "offer"]:
        r.act(offers[0])
        assert r.seat == offers[0]["partner"]
        r.act({"type": "decline_offer"})
        assert r.seat == seat
    trades = [a for a in r.legal if a["type"] == "trade"]
    if any(r.state["upkeep_need"][i] > r.state["totals"][seat][i] for i in range(4)):
        assert trades, "every barter refused: the government trade is open"


# -- the 250 race and how matches end ------------------------------------------------------------


def _race(players: int, seed: int) -> dict:
    rng = Rng(seed.to_bytes(32, "big"))
    chooser = random.Random(seed)
    bots = [EsploratoreBot() for _ in range(players)]
    state = GAME.setup(players, GAME.resolve_options(players, {"race_250": True}), rng)
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, rng)
    return GAME.outcome(state)


@pytest.mark.parametrize("players", [2, 4])
def test_the_250_race_with_purposeful_play_mostly_ends_before_round_12(players: int) -> None:
    outcomes = [_race(players, seed) for seed in range(12)]
    early = [
        o for o in outcomes if o["detail"]["end_reason"] == "reached_250" and o["detail"]["rounds_played"] < R.ROUNDS
    ]
    assert len(early) >= 9, [(o["detail"]["end_reason"], o["detail"]["rounds_played"]) for o in outcomes]
    for o in early:
        winner = o["detail"]["race_winner"]
        assert o["winners"] == [winner] and o["scores"][winner] >= R.RACE_TARGET


def test_outcome_says_how_the_match_ended() -> None:
    from tests.support.contract import random_playout

    out = GAME.outcome(random_playout(GAME, 2, {}, seed=1, probe_illegal=False).state)
    assert out["detail"]["end_reason"] == "twelve_rounds" and out["detail"]["rounds_played"] == 12
    out = GAME.outcome(random_playout(GAME, 2, {"race_250": True}, seed=1, probe_illegal=False).state)
    assert out["detail"]["end_reason"] == "twelve_rounds" and out["detail"]["race_winner"] is None
