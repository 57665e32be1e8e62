"""Viaggio al centro della terra: contract, rulebook examples, every space, card and event."""

from __future__ import annotations

import copy
import random

import orjson
import pytest

from service.engine import IllegalAction, InvalidOptions, Rng
from service.games.viaggio import GAME
from service.games.viaggio.data import BOARDS, COLOURS, EQUIP, FOSSILS, LAVA, fossil_points
from tests.support.contract import assert_replays, random_playout

RNG_SEED = b"viaggio-test"


# ---------------------------------------------------------------- helpers


def fresh(players: int = 2) -> dict:
    return GAME.setup(players, GAME.resolve_options(players, {}), Rng(RNG_SEED))


def set_hand(st: dict, seat: int, explorer: dict | None = None, equipment: dict | None = None) -> None:
    st["hands"][seat] = {
        "explorer": {c: (explorer or {}).get(c, 0) for c in COLOURS},
        "equipment": {t: (equipment or {}).get(t, 0) for t in EQUIP},
    }


def set_fossils(st: dict, seat: int, **counts: int) -> None:
    st["fossils"][seat] = {f: counts.get(f, 0) for f in FOSSILS}


def act(st: dict, seat: int, action: dict) -> tuple[dict, list]:
    return GAME.apply(st, seat, action, Rng(RNG_SEED, 7))


def run(st: dict) -> list:
    events: list = []
    GAME._run(st, Rng(RNG_SEED, 3), events)
    return events


def types(actions: list) -> set:
    return {a["type"] for a in actions}


def steps(st: dict, seat: int) -> set:
    return {a["to"] for a in GAME.legal_actions(st, seat) if a["type"] == "step"}


def fossil_total(st: dict, seat: int) -> int:
    return sum(st["fossils"][seat].values())


# ---------------------------------------------------------------- contract


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_playouts_finish_and_replay(players: int, seed: int) -> None:
    playout = random_playout(GAME, players, {}, seed=seed)
    assert_replays(GAME, playout)
    outcome = GAME.outcome(playout.state)
    assert outcome is not None and playout.state["phase"] == "over"


def test_no_options_and_player_counts() -> None:
    assert GAME.resolve_options(3, {}) == {}
    for bad in (1, 5):
        with pytest.raises(InvalidOptions, match="2–4 players"):
            GAME.resolve_options(bad, {})


def test_setup_matches_the_rulebook() -> None:
    st = fresh(4)
    for hand in st["hands"]:
        assert sum(hand["explorer"].values()) == 6 and sum(hand["equipment"].values()) == 3
    assert len(st["display"]) == 3 and all(st["display"])
    assert st["water"] == [1, 1, 1, 1] and st["supply"] == 16
    assert len(st["decks"]["fossil"]) == 64 and len(st["decks"]["event"]) == 16
    assert len(st["decks"]["adventure"]) == 10
    assert len(st["decks"]["explorer"]) == 63 - 24 and len(st["decks"]["equipment"]) == 45 - 12 - 3
    assert set(st["explorers"].values()) == {"start"}
    assert orjson.loads(orjson.dumps(st)) == st


def test_legal_lists_stay_small_and_views_never_leak() -> None:
    chooser = random.Random(5)
    st = fresh(3)
    rng = Rng(RNG_SEED)
    biggest = 0
    for _ in range(3000):
        to_act = GAME.to_act(st)
        if not to_act:
            break
        # Leak test: change every hidden thing seat 0 may not know; its view must not change.
        other = copy.deepcopy(st)
        for deck in other["decks"].values():
            deck.reverse()
        # ...but the fossils returned to the bottom are known to be there.
        fossils, returned = other["decks"]["fossil"], len(st["fossil_bottom"])
        fossils[:] = st["decks"]["fossil"][:returned] + fossils[: len(fossils) - returned]
        for s in (1, 2):
            hand = other["hands"][s]["explorer"]
            total = sum(hand.values())
            other["hands"][s]["explorer"] = {"blue": total, "red": 0, "yellow": 0}
            eq = other["hands"][s]["equipment"]
            other["hands"][s]["equipment"] = {t: (sum(eq.values()) if t == "lamp" else 0) for t in EQUIP}
        head = other["tasks"][0] if other["tasks"] else {}
        if head.get("kind") == "lamp" and head["seat"] != 0:
            head["drawn"] = sorted(head["drawn"])[::-1]
        assert GAME.view(other, 0) == GAME.view(st, 0)
        assert "hand" not in GAME.view(st, None)
        seat = chooser.choice(to_act)
        legal = GAME.legal_actions(st, seat)
        biggest = max(biggest, len(legal))
        st, events = GAME.apply(st, seat, chooser.choice(legal), Rng(RNG_SEED, rng.position()))
        for e in GAME.visible_events(events, 0):
            if e.get("type") == "drew" and e["seat"] != 0 and not e["source"].startswith("display"):
                assert "card" not in e
    assert biggest < 120


def test_redacted_lamp_returns() -> None:
    action = {"type": "lamp_return", "fossil": "gold"}
    assert GAME.redact_action(action, 1, 0) == {"type": "lamp_return", "fossil": "hidden"}
    assert GAME.redact_action(action, 1, 1) == action


# ---------------------------------------------------------------- phase 1: drawing


def test_draw_three_cards_limits_display_refill_and_reshuffle() -> None:
    st = fresh()
    set_hand(st, 0, {"red": 10}, {"rope": 5})
    st["display"] = ["compass", "rope", "lamp"]
    st["decks"]["explorer"] = []
    st["discards"]["explorer"] = {"blue": 2, "red": 0, "yellow": 0}
    st, events = act(st, 0, {"type": "draw", "source": "display:compass"})
    assert st["tasks"][0] == {"kind": "discard", "seat": 0, "hand": "equipment"}, "6 equipment > 5: discard at once"
    st, _ = act(st, 0, {"type": "discard", "card": "compass"})
    st, events = act(st, 0, {"type": "draw", "source": "explorer_deck"})
    assert any(e["type"] == "reshuffled" for e in events)
    assert st["hands"][0]["explorer"]["blue"] == 1 and st["tasks"][0]["kind"] == "discard"
    st, _ = act(st, 0, {"type": "discard", "card": "red"})
    assert st["display"][0] is None, "the display is refilled only at the end of the turn"
    st, _ = act(st, 0, {"type": "draw", "source": "display:lamp"})
    st, _ = act(st, 0, {"type": "discard", "card": "lamp"})
    assert st["turn"] == 1 and all(st["display"])


# ---------------------------------------------------------------- phase 1: the two movement examples


def test_movement_example_1() -> None:
    st = fresh()
    st["explorers"]["red"] = "0,1"
    set_hand(st, 0, {"red": 3}, {"rope": 2, "compass": 1, "pickaxe": 1})
    st["decks"]["fossil"] += ["gold", "misc"]
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    assert "1,1" not in steps(st, 0), "a chasm needs a rope played"
    st, _ = act(st, 0, {"type": "play_equipment", "card": "rope"})
    st, _ = act(st, 0, {"type": "step", "to": "1,1"})
    assert "finish" not in types(GAME.legal_actions(st, 0)), "no stopping on a chasm"
    st, _ = act(st, 0, {"type": "step", "to": "2,1"})
    assert "3,2" not in steps(st, 0), "diagonal only with a compass"
    st, _ = act(st, 0, {"type": "play_equipment", "card": "compass"})
    st, _ = act(st, 0, {"type": "step", "to": "3,2"})
    assert GAME.view(st, 0)["decision"]["cost"] == 3
    st, _ = act(st, 0, {"type": "finish"})
    assert st["explorers"]["red"] == "3,2" and st["hands"][0]["explorer"]["red"] == 0
    assert GAME.legal_actions(st, 0) == [
        {"type": "discover", "cards": ["rope", "pickaxe"], "flexible": 0, "lamp": False},
        {"type": "pass_discovery"},
    ]
    st, _ = act(st, 0, {"type": "discover", "cards": ["pickaxe", "rope"], "flexible": 0, "lamp": False})
    assert st["fossils"][0]["gold"] == 1 and st["fossils"][0]["misc"] == 1
    assert sum(st["hands"][0]["equipment"].values()) == 0
    assert st["discards"]["equipment"]["rope"] == 2 and st["discards"]["equipment"]["compass"] == 1
    assert st["turn"] == 1


def test_movement_example_2_ends_phase_one() -> None:
    st = fresh()
    st["explorers"]["blue"] = "20,5"
    set_hand(st, 0, {"blue": 1}, {"biscuits": 2, "pickaxe": 1, "compass": 1})
    st["decks"]["event"].append("permanenza_in_liquido")
    st, _ = act(st, 0, {"type": "choose", "colour": "blue"})
    for to in ("21,5", "21,6"):
        st, _ = act(st, 0, {"type": "step", "to": to})
    st, _ = act(st, 0, {"type": "play_equipment", "card": "compass"})
    st, _ = act(st, 0, {"type": "step", "to": "22,7"})
    st, _ = act(st, 0, {"type": "play_equipment", "card": "pickaxe"})
    st, _ = act(st, 0, {"type": "step", "to": "23,7"})
    st, _ = act(st, 0, {"type": "step", "to": "end"})
    assert "finish" not in types(GAME.legal_actions(st, 0)), "5 spaces with 1 card: biscuits first"
    st, _ = act(st, 0, {"type": "play_equipment", "card": "biscuits"})
    assert "finish" not in types(GAME.legal_actions(st, 0))
    st, _ = act(st, 0, {"type": "play_equipment", "card": "biscuits"})
    assert GAME.view(st, 0)["decision"]["cards_needed"] == 1
    st, events = act(st, 0, {"type": "finish"})
    assert st["water"][0] == 2 and st["bonuses"][0] == ["foresta_di_funghi"]
    assert st["kept"][0] == ["permanenza_in_liquido"], "the event card is drawn at the end of the turn"
    assert st["phase"] == 2 and st["raft"] == "start" and set(st["explorers"].values()) == {"raft"}
    assert any(e["type"] == "water_check" for e in events)
    assert st["tasks"][0] == {"kind": "turn", "seat": 1}


# ---------------------------------------------------------------- phase 1: spaces


def test_granite_is_impassable_and_moves_go_down() -> None:
    st = fresh()
    st["explorers"]["yellow"] = "1,2"
    set_hand(st, 0, {"yellow": 5})
    st, _ = act(st, 0, {"type": "choose", "colour": "yellow"})
    assert steps(st, 0) == {"1,3"}, "2,2 is granite, 1,1 a chasm without rope, never up"
    st, _ = act(st, 0, {"type": "step", "to": "1,3"})
    assert "finish" not in types(GAME.legal_actions(st, 0)), "a move must end lower than it began"
    assert "1,2" in steps(st, 0)


def test_rocks_cost_one_card_per_rock_or_one_with_a_pickaxe() -> None:
    st = fresh()
    st["explorers"]["red"] = "2,1"
    set_hand(st, 0, {"red": 2}, {"pickaxe": 1})
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    st, _ = act(st, 0, {"type": "step", "to": "3,1"})  # 3 rocks: affordable only with the pickaxe in hand
    assert GAME.view(st, 0)["decision"]["cost"] == 3
    assert "finish" not in types(GAME.legal_actions(st, 0))
    st, _ = act(st, 0, {"type": "play_equipment", "card": "pickaxe"})
    assert GAME.view(st, 0)["decision"]["cost"] == 1
    st, _ = act(st, 0, {"type": "finish"})
    assert st["hands"][0]["explorer"]["red"] == 1
    st2 = fresh()
    st2["explorers"]["red"] = "2,1"
    set_hand(st2, 0, {"red": 2})
    st2, _ = act(st2, 0, {"type": "choose", "colour": "red"})
    assert "3,1" not in steps(st2, 0), "3 rocks with 2 cards and no pickaxe"
    set_hand(st2, 0, {"red": 3})
    assert "3,1" in steps(st2, 0)


def test_hans_spring_and_event_spaces_trigger_when_passed() -> None:
    st = fresh()
    st["explorers"]["blue"] = "0,3"
    set_hand(st, 0, {"blue": 4})
    st["decks"]["event"].append("oca_gertrude")
    st["decks"]["fossil"].append("quartz")
    st, _ = act(st, 0, {"type": "choose", "colour": "blue"})
    for to in ("1,3", "1,4", "2,4", "2,5"):  # spring, plain, event (passed), discovery
        st, _ = act(st, 0, {"type": "step", "to": to})
    st, _ = act(st, 0, {"type": "finish"})
    assert st["water"][0] == 2, "passed a Hans spring"
    assert st["explorers"]["blue"] == "2,5"
    # no pickaxe+biscuits: the discovery can only be declined (it is asked all the same)
    assert GAME.legal_actions(st, 0) == [{"type": "pass_discovery"}]
    st, _ = act(st, 0, {"type": "pass_discovery"})
    # then the event card (Gertrude) resolves
    assert st["fossils"][0]["quartz"] == 1 and st["turn"] == 1


def test_a_space_triggers_once_per_move() -> None:
    st = fresh()
    st["explorers"]["blue"] = "4,2"
    set_hand(st, 0, {"blue": 5})
    st["decks"]["event"] += ["fonte_energetica", "oca_gertrude"]
    st["decks"]["fossil"].append("gold")
    st, _ = act(st, 0, {"type": "choose", "colour": "blue"})
    for to in ("4,1", "4,2", "4,1", "5,1"):  # the event space 4,1 entered twice
        st, _ = act(st, 0, {"type": "step", "to": to})
    assert GAME.view(st, 1)["decision"]["events"] == 1 and GAME.view(st, 1)["decision"]["cost"] == 4
    st, _ = act(st, 0, {"type": "finish"})
    assert st["fossils"][0]["gold"] == 1 and st["decks"]["event"][-1] == "fonte_energetica" and st["turn"] == 1


def test_one_explorer_per_space_but_passing_through_is_allowed() -> None:
    st = fresh()
    st["explorers"]["blue"] = "1,0"
    st["explorers"]["red"] = "2,0"
    set_hand(st, 0, {"blue": 5})
    st, _ = act(st, 0, {"type": "choose", "colour": "blue"})
    st, _ = act(st, 0, {"type": "step", "to": "2,0"})
    assert "finish" not in types(GAME.legal_actions(st, 0)), "2,0 is occupied"
    st, _ = act(st, 0, {"type": "step", "to": "3,0"})
    st, _ = act(st, 0, {"type": "finish"})
    assert st["explorers"]["blue"] == "3,0"


def test_discovery_payment_options_and_lamp() -> None:
    st = fresh()
    st["explorers"]["yellow"] = "4,1"
    set_hand(st, 0, {"yellow": 2}, {"rope": 1, "lamp": 2})
    st["kept"][0] = ["uso_flessibile"]
    st["decks"]["fossil"] += ["misc", "skull_front", "gold", "gold"]
    st, _ = act(st, 0, {"type": "choose", "colour": "yellow"})
    st, _ = act(st, 0, {"type": "step", "to": "5,1"})
    st, _ = act(st, 0, {"type": "step", "to": "5,0"})  # D:** two stars
    st, _ = act(st, 0, {"type": "finish"})
    options = [
        (tuple(a["cards"]), a["flexible"], a["lamp"]) for a in GAME.legal_actions(st, 0) if a["type"] == "discover"
    ]
    assert sorted(options) == sorted(
        [
            (("rope", "lamp"), 0, False),
            (("lamp", "lamp"), 0, False),
            (("rope",), 1, False),
            (("lamp",), 1, False),
            (("rope", "lamp", "lamp"), 0, True),
            (("rope", "lamp"), 1, True),
            (("lamp", "lamp"), 1, True),
        ]
    ), "stars take any card, the lamp a lamp or the stand-in; never more cards than held"
    st, events = act(st, 0, {"type": "discover", "cards": ["lamp", "rope"], "flexible": 1, "lamp": True})
    assert st["kept"][0] == [] and sum(st["hands"][0]["equipment"].values()) == 1
    assert st["tasks"][0]["kind"] == "lamp" and sorted(st["tasks"][0]["drawn"]) == [
        "gold",
        "gold",
        "misc",
        "skull_front",
    ]
    assert "drawn" not in GAME.view(st, 1)["decision"] and "drawn" in GAME.view(st, 0)["decision"]
    lamp_events = [e for e in events if e["type"] == "lamp_drawn"]
    assert lamp_events and lamp_events[0]["to"] == [0]
    st, _ = act(st, 0, {"type": "lamp_return", "fossil": "misc"})
    st, _ = act(st, 0, {"type": "lamp_return", "fossil": "skull_front"})
    assert st["fossils"][0]["gold"] == 2 and fossil_total(st, 0) == 2
    assert st["decks"]["fossil"][:2] == ["skull_front", "misc"], "returned to the bottom"


# ---------------------------------------------------------------- phase 1: equipment


def test_biscuits_need_one_real_card_and_allow_more_than_five_spaces() -> None:
    st = fresh()
    st["explorers"]["yellow"] = "start"
    set_hand(st, 0, {"yellow": 5}, {"biscuits": 1})
    st, _ = act(st, 0, {"type": "choose", "colour": "yellow"})
    for to in ("0,0", "0,1", "0,2", "0,3", "1,3", "1,4", "2,4"):
        assert to in steps(st, 0)
        st, _ = act(st, 0, {"type": "step", "to": to})
    assert "finish" not in types(GAME.legal_actions(st, 0))
    st, _ = act(st, 0, {"type": "play_equipment", "card": "biscuits"})
    st, _ = act(st, 0, {"type": "finish"})
    assert st["hands"][0]["explorer"]["yellow"] == 0 and st["explorers"]["yellow"] == "2,4"
    st2 = fresh()
    set_hand(st2, 0, {}, {"biscuits": 3})
    assert "choose" not in types(GAME.legal_actions(st2, 0)), "biscuits alone cannot move"


def test_compass_diagonal_never_up() -> None:
    st = fresh()
    st["explorers"]["red"] = "start"
    set_hand(st, 0, {"red": 1}, {"compass": 1})
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    assert steps(st, 0) == {"0,0"}
    st, _ = act(st, 0, {"type": "play_equipment", "card": "compass"})
    assert steps(st, 0) == {"0,0", "0,1"}
    assert BOARDS[1].diag["3,3"] == ["4,2", "4,4"]


# ---------------------------------------------------------------- water check


def water_state(fossils: int, water: int, liquid: int = 0) -> dict:
    st = fresh()
    set_fossils(st, 0, misc=fossils - 3, gold=3) if fossils >= 3 else set_fossils(st, 0, misc=fossils)
    set_fossils(st, 1)
    st["water"] = [water, 0]
    st["kept"][0] = ["permanenza_in_liquido"] * liquid
    st["tasks"] = [{"kind": "water_check"}, {"kind": "turn", "seat": 1}]
    run(st)
    return st


def test_water_example_eleven_fossils_three_tokens() -> None:
    st = water_state(11, 3)
    assert st["water"][0] == 0
    assert st["tasks"][0]["kind"] == "loss" and st["tasks"][0]["seats"] == {"0": {"left": 2, "total": 2}}
    st, _ = act(st, 0, {"type": "lose_fossil", "fossil": "gold"})
    st, _ = act(st, 0, {"type": "lose_fossil", "fossil": "misc"})
    assert fossil_total(st, 0) == 9 and st["tasks"][0] == {"kind": "turn", "seat": 1}


def test_water_tokens_left_score_and_permanenza_counts_as_two() -> None:
    st = water_state(4, 3)
    assert st["water"][0] == 1 and st["tasks"][0]["kind"] == "turn"
    st = water_state(11, 1, liquid=1)
    assert st["water"][0] == 0 and st["kept"][0] == [] and st["tasks"][0]["seats"]["0"]["left"] == 2
    st = water_state(6, 0, liquid=1)
    assert st["kept"][0] == [] and st["tasks"][0]["kind"] == "turn"
    st = water_state(3, 1, liquid=1)
    assert st["water"][0] == 0 and st["kept"][0] == ["permanenza_in_liquido"], "the cheaper way is chosen"


# ---------------------------------------------------------------- event cards


def event_state(card: str, fossils: dict | None = None) -> dict:
    st = fresh()
    st["decks"]["event"].append(card)
    set_fossils(st, 0, **(fossils or {}))
    st["tasks"] = [{"kind": "events", "seat": 0, "n": 1}, {"kind": "end_turn", "seat": 0}]
    run(st)
    return st


@pytest.mark.parametrize("card", ["miscela_di_colori", "uso_flessibile", "permanenza_in_liquido", "colpo_di_fortuna"])
def test_kept_events_are_kept(card: str) -> None:
    st = event_state(card)
    assert st["kept"][0] == [card] and GAME.view(st, 0)["hand"]["kept"] == [card]
    assert GAME.view(st, 1)["players"][0]["kept_count"] == 1 and "kept" not in GAME.view(st, 1)["players"][0]


def test_event_oca_gertrude_draws_one_fossil() -> None:
    st = fresh()
    st["decks"]["fossil"].append("skeleton_head")
    st["decks"]["event"].append("oca_gertrude")
    st["tasks"] = [{"kind": "events", "seat": 0, "n": 1}, {"kind": "end_turn", "seat": 0}]
    run(st)
    assert st["fossils"][0]["skeleton_head"] == 1 and st["turn"] == 1


def test_event_possibilita_favorevole() -> None:
    st = fresh()
    st["decks"]["fossil"] += ["gold", "quartz"]
    st["decks"]["event"].append("possibilita_favorevole")
    set_fossils(st, 0, misc=2, skull_back=1)
    st["tasks"] = [{"kind": "events", "seat": 0, "n": 1}, {"kind": "end_turn", "seat": 0}]
    run(st)
    assert st["tasks"][0]["kind"] == "favorable"
    st, _ = act(st, 0, {"type": "return_fossil", "fossil": "misc"})
    st, _ = act(st, 0, {"type": "return_fossil", "fossil": "skull_back"})
    st, _ = act(st, 0, {"type": "keep_fossils"})
    assert st["fossils"][0]["gold"] == 1 and st["fossils"][0]["quartz"] == 1 and st["fossils"][0]["misc"] == 1
    assert st["decks"]["fossil"][:2] == ["skull_back", "misc"]


def test_event_fonte_energetica_gives_another_turn() -> None:
    st = event_state("fonte_energetica")
    assert st["turn"] == 0 and st["tasks"][0] == {"kind": "turn", "seat": 0}


def test_event_rifornimenti_graditi_draws_three() -> None:
    st = fresh()
    before = sum(st["hands"][0]["explorer"].values()) + sum(st["hands"][0]["equipment"].values())
    st["decks"]["event"].append("rifornimenti_graditi")
    st["tasks"] = [{"kind": "events", "seat": 0, "n": 1}, {"kind": "end_turn", "seat": 0}]
    run(st)
    for _ in range(3):
        st, _ = act(st, 0, {"type": "draw", "source": "explorer_deck"})
    after = sum(st["hands"][0]["explorer"].values()) + sum(st["hands"][0]["equipment"].values())
    assert after == before + 3 and st["turn"] == 1


def test_event_miscela_di_colori_pays_with_any_colour() -> None:
    st = fresh()
    st["explorers"]["red"] = "start"
    st["kept"][0] = ["miscela_di_colori"]
    set_hand(st, 0, {"blue": 2, "yellow": 1})
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    st, _ = act(st, 0, {"type": "step", "to": "0,0"})
    st, _ = act(st, 0, {"type": "step", "to": "1,0"})
    assert "finish" not in types(GAME.legal_actions(st, 0))
    st, _ = act(st, 0, {"type": "play_mix"})
    assert [a for a in GAME.legal_actions(st, 0) if a["type"].startswith("finish")] == [
        {"type": "finish_mixed", "colours": ["blue", "blue"]},
        {"type": "finish_mixed", "colours": ["blue", "yellow"]},
    ]
    st, _ = act(st, 0, {"type": "finish_mixed", "colours": ["yellow", "blue"]})  # the player's choice, any order
    assert st["hands"][0]["explorer"] == {"blue": 1, "red": 0, "yellow": 0} and st["kept"][0] == []


def test_event_uso_flessibile_as_a_rope() -> None:
    st = fresh()
    st["explorers"]["red"] = "0,1"
    st["kept"][0] = ["uso_flessibile"]
    set_hand(st, 0, {"red": 2})
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    st, _ = act(st, 0, {"type": "play_flexible", "as": "rope"})
    st, _ = act(st, 0, {"type": "step", "to": "1,1"})
    st, _ = act(st, 0, {"type": "step", "to": "2,1"})
    st, _ = act(st, 0, {"type": "finish"})
    assert st["explorers"]["red"] == "2,1" and st["discards"]["equipment"]["rope"] == 0


def test_event_colpo_di_fortuna_and_permanenza_points() -> None:
    st = fresh()
    set_fossils(st, 0, misc=3, gold=1)
    st["kept"][0] = ["colpo_di_fortuna", "permanenza_in_liquido"]
    st["tasks"] = [
        {"kind": "loss", "why": "lava", "equip": None, "seats": {"0": {"left": 2, "total": 2}}},
        {"kind": "turn", "seat": 0},
    ]
    assert types(GAME.legal_actions(st, 0)) == {"lose_fossil", "use_luck"}
    st, _ = act(st, 0, {"type": "use_luck"})
    assert fossil_total(st, 0) == 4 and st["kept"][0] == ["permanenza_in_liquido"]
    assert GAME.score_detail(st, 0)["permanenza"] == 2


# ---------------------------------------------------------------- phase 2


def sea_state(players: int = 3) -> dict:
    st = fresh(players)
    st["phase"] = 2
    st["raft"] = "start"
    st["explorers"] = {c: "raft" for c in COLOURS}
    return st


def test_raft_moves_toward_the_far_shore_and_needs_rope_for_whirlpools() -> None:
    st = sea_state()
    st["raft"] = "1,0"
    set_hand(st, 0, {"yellow": 5})
    st["decks"]["adventure"].append("fossil_blue")
    st, _ = act(st, 0, {"type": "choose", "colour": "yellow"})
    assert steps(st, 0) == {"0,0", "2,0"}, "1,1 is a whirlpool: rope needed; never backwards"
    st, _ = act(st, 0, {"type": "step", "to": "0,0"})
    assert "finish" not in types(GAME.legal_actions(st, 0)), "sideways only is not allowed"
    st, _ = act(st, 0, {"type": "step", "to": "0,1"})
    assert st["tasks"][0]["kind"] == "move"
    st, _ = act(st, 0, {"type": "finish"})
    assert st["raft"] == "0,1"


def test_sea_discovery_is_open_to_everyone_clockwise_and_lamp_is_the_movers() -> None:
    st = sea_state(3)
    st["raft"] = "1,0"
    set_hand(st, 1, {"red": 2}, {"pickaxe": 1, "lamp": 1})
    set_hand(st, 2, {}, {"pickaxe": 1, "lamp": 1})
    set_hand(st, 0, {}, {"lamp": 1})
    st["decks"]["fossil"] += ["quartz", "gold"]
    st["decks"]["adventure"] = ["fossil_yellow"]
    st["turn"] = 1
    st["tasks"] = [{"kind": "turn", "seat": 1}]
    st, _ = act(st, 1, {"type": "choose", "colour": "red"})
    st, _ = act(st, 1, {"type": "step", "to": "0,0"})
    st, _ = act(st, 1, {"type": "step", "to": "0,1"})  # D:p
    st, _ = act(st, 1, {"type": "finish"})
    assert {"type": "discover", "cards": ["pickaxe", "lamp"], "flexible": 0, "lamp": True} in GAME.legal_actions(st, 1)
    st, _ = act(st, 1, {"type": "pass_discovery"})
    assert GAME.to_act(st) == [2]
    assert GAME.legal_actions(st, 2) == [
        {"type": "discover", "cards": ["pickaxe"], "flexible": 0, "lamp": False},
        {"type": "pass_discovery"},
    ]
    st, _ = act(st, 2, {"type": "discover", "cards": ["pickaxe"], "flexible": 0, "lamp": False})
    assert GAME.to_act(st) == [0], "seat 0 cannot pay the pickaxe but is asked like everyone"
    assert GAME.legal_actions(st, 0) == [{"type": "pass_discovery"}]
    st, _ = act(st, 0, {"type": "pass_discovery"})
    # then the sea adventure: nobody holds a yellow card, each declines in turn
    for s in (1, 2, 0):
        assert GAME.legal_actions(st, s) == [{"type": "decline_adventure"}]
        st, _ = act(st, s, {"type": "decline_adventure"})
    assert st["fossils"][2]["gold"] == 1
    assert st["decks"]["adventure"] == [] and st["turn"] == 2


def test_sea_adventure_offer_passes_clockwise_and_sightings_score() -> None:
    st = sea_state(3)
    set_hand(st, 0, {"red": 1}, {})
    set_hand(st, 1, {"blue": 1}, {})
    set_hand(st, 2, {"blue": 2}, {})
    st["tasks"] = [{"kind": "adventure", "seat": 0}, {"kind": "end_turn", "seat": 0}]
    st["decks"]["adventure"].append("geyser")
    run(st)
    for s in (0, 1):  # they cannot pay two blue cards, but are asked like everyone
        assert GAME.legal_actions(st, s) == [{"type": "decline_adventure"}]
        st, _ = act(st, s, {"type": "decline_adventure"})
    assert GAME.to_act(st) == [2]
    st, _ = act(st, 2, {"type": "accept_adventure", "colours": ["blue", "blue"]})
    assert st["sightings"][2] == ["geyser"] and GAME.score_detail(st, 2)["sightings"] == 3


def test_ball_lightning_passes_until_it_strikes() -> None:
    st = sea_state(3)
    set_hand(st, 0, {"red": 2}, {})
    set_hand(st, 1, {"red": 2}, {})
    set_hand(st, 2, {"red": 1, "blue": 1}, {})
    set_fossils(st, 1, gold=1, misc=1)
    st["tasks"] = [{"kind": "adventure", "seat": 0}, {"kind": "end_turn", "seat": 0}]
    st["decks"]["adventure"].append("lightning_same")
    run(st)
    assert GAME.legal_actions(st, 0) == [{"type": "protect", "colours": ["red", "red"]}, {"type": "take_strike"}]
    st, _ = act(st, 0, {"type": "protect", "colours": ["red", "red"]})
    assert GAME.to_act(st) == [1]
    st, _ = act(st, 1, {"type": "take_strike"})
    assert st["tasks"][0]["kind"] == "loss" and GAME.to_act(st) == [1]
    st, _ = act(st, 1, {"type": "lose_fossil", "fossil": "misc"})
    assert st["fossils"][1]["gold"] == 1 and st["turn"] == 1, "seat 2 is never reached"


def test_ball_lightning_everyone_protected() -> None:
    st = sea_state(2)
    set_hand(st, 0, {"red": 2}, {})
    set_hand(st, 1, {"red": 1, "yellow": 1}, {})
    st["tasks"] = [{"kind": "adventure", "seat": 0}, {"kind": "end_turn", "seat": 0}]
    st["decks"]["adventure"].append("lightning_any")
    run(st)
    st, _ = act(st, 0, {"type": "protect", "colours": ["red", "red"]})
    st, events = act(st, 1, {"type": "protect", "colours": ["red", "yellow"]})
    assert any(e["type"] == "lightning_gone" for e in events) and st["turn"] == 1


def test_arrival_of_phase_two_gives_the_bonus_and_starts_the_lava() -> None:
    st = sea_state(2)
    st["raft"] = "1,9"
    set_hand(st, 0, {"blue": 1}, {})
    st["decks"]["adventure"] = []
    st["decks"]["explorer"] = ["red"] * 5
    set_fossils(st, 0)
    set_fossils(st, 1)
    st, _ = act(st, 0, {"type": "choose", "colour": "blue"})
    st, _ = act(st, 0, {"type": "step", "to": "end"})
    st, events = act(st, 0, {"type": "finish"})
    assert st["bonuses"][0] == ["citta_in_rovina"]
    assert st["over"] and GAME.outcome(st)["scores"] == [5, 1]  # 4 bonus + 1 water token vs 1 water token


# ---------------------------------------------------------------- phase 3


def lava_state(top_cards: list[str], equipment: list[str]) -> dict:
    st = fresh(2)
    st["phase"] = 3
    st["lava"] = 8
    st["decks"]["explorer"] = list(reversed(top_cards))
    st["decks"]["equipment"] = list(reversed(equipment))
    set_hand(st, 0, {}, {"rope": 1, "pickaxe": 1})
    set_hand(st, 1, {}, {"compass": 1})
    set_fossils(st, 0, misc=2, gold=2)
    set_fossils(st, 1, misc=2, gold=2)
    st["tasks"] = [{"kind": "lava"}]
    run(st)
    return st


def test_lava_example() -> None:
    st = lava_state(["yellow", "yellow", "red", "blue"], ["rope", "pickaxe"])
    assert st["lava"] == 10 and GAME.to_act(st) == [0, 1]
    assert "discard_equipment" in types(GAME.legal_actions(st, 0))
    assert "discard_equipment" not in types(GAME.legal_actions(st, 1))
    st, _ = act(st, 0, {"type": "discard_equipment"})
    st, _ = act(st, 1, {"type": "lose_fossil", "fossil": "misc"})
    assert st["lava"] == 13 and GAME.to_act(st) == [0, 1]
    assert st["tasks"][0]["equip"] == "pickaxe" and st["tasks"][0]["seats"]["1"]["total"] == 2
    st, _ = act(st, 0, {"type": "discard_equipment"})
    st, _ = act(st, 1, {"type": "lose_fossil", "fossil": "misc"})  # only gold left: the last loss is forced
    assert st["over"] and fossil_total(st, 0) == 4 and fossil_total(st, 1) == 1
    assert sum(st["hands"][0]["equipment"].values()) == 0


def test_lava_ends_when_no_space_of_the_colour_lies_ahead() -> None:
    st = lava_state(["yellow", "yellow", "red", "red"], ["rope", "pickaxe"])
    st, _ = act(st, 0, {"type": "lose_fossil", "fossil": "misc"})
    st, _ = act(st, 1, {"type": "lose_fossil", "fossil": "misc"})
    assert st["over"] and st["lava"] == 12
    assert [s["colour"] for s in LAVA[13:]] == ["blue"]


# ---------------------------------------------------------------- scoring


def test_scoring_example_35_points() -> None:
    st = fresh()
    set_fossils(st, 0, misc=4, skull_front=2, skull_back=1, skeleton_head=1, skeleton_tail=1, gold=4, quartz=1)
    st["bonuses"][0] = ["foresta_di_funghi"]
    st["sightings"][0] = ["geyser"]
    st["water"][0] = 1
    d = GAME.score_detail(st, 0)
    assert (d["misc"], d["skulls"], d["skeletons"], d["gold"], d["quartz"]) == (8, 5, 3, 10, 1)
    assert d["total"] == 35


def test_gold_sequence_and_skeleton_sets() -> None:
    assert [fossil_points({**dict.fromkeys(FOSSILS, 0), "gold": n})["gold"] for n in range(9)] == [
        0,
        1,
        3,
        6,
        10,
        15,
        20,
        25,
        30,
    ]
    st = fresh()
    set_fossils(st, 0, skeleton_head=2, skeleton_body=1, skeleton_tail=1)
    assert GAME.score_detail(st, 0)["skeletons"] == 13


def test_tie_break_on_fossil_count_then_shared() -> None:
    st = fresh(3)
    st["over"], st["tasks"], st["phase"] = True, [], "over"
    st["water"] = [0, 0, 0]
    set_fossils(st, 0, misc=2)  # 4 points, 2 cards
    set_fossils(st, 1, gold=2, quartz=1)  # 4 points, 3 cards
    set_fossils(st, 2, gold=2, quartz=1)
    out = GAME.outcome(st)
    assert out["scores"] == [4, 4, 4] and out["ranks"] == [3, 1, 1] and out["winners"] == [1, 2]


# ---------------------------------------------------------------- reasons


def test_illegal_actions_name_the_rule() -> None:
    st = fresh()
    with pytest.raises(IllegalAction) as info:
        GAME.apply(st, 0, {"type": "finish"}, Rng(RNG_SEED))
    assert "draw or choose" in info.value.message
    st["explorers"]["red"] = "0,1"
    set_hand(st, 0, {"red": 3}, {"rope": 1})
    st, _ = act(st, 0, {"type": "choose", "colour": "red"})
    with pytest.raises(IllegalAction) as info:
        GAME.apply(st, 0, {"type": "step", "to": "1,1"}, Rng(RNG_SEED))
    assert "rope" in info.value.message
    with pytest.raises(IllegalAction) as info:
        GAME.apply(st, 0, {"type": "step", "to": "5,5"}, Rng(RNG_SEED))
    assert "never up" in info.value.message


def test_every_space_can_be_left_downward_with_five_cards_a_rope_and_a_pickaxe() -> None:
    from service.games.viaggio.board import BLOCKING

    for board in BOARDS.values():
        for cid, cell in board.cells.items():
            if cid == "end" or cell["kind"] in BLOCKING:
                continue
            assert GAME._completable(board, cid, 5, 1, 0, True, 0, board.depth(cid), frozenset()), cid


def test_pass_only_when_nothing_can_be_drawn_moving_or_not() -> None:
    st = fresh()
    set_hand(st, 0)
    st["decks"]["explorer"], st["decks"]["equipment"] = [], []
    st["display"] = [None, None, None]
    assert GAME.legal_actions(st, 0) == [{"type": "pass"}]
    set_hand(st, 0, {"red": 2})
    assert GAME.legal_actions(st, 0) == [{"type": "choose", "colour": "red"}, {"type": "pass"}]
    st, _ = act(st, 0, {"type": "pass"})
    assert st["turn"] == 1


def test_game_description_is_complete() -> None:
    entry = GAME.describe()
    assert entry["id"] == "viaggio-al-centro-della-terra" and entry["options"] == []
    assert {"draw", "choose", "step", "play_equipment", "finish", "discover"} <= set(entry["action_types"])
    orjson.dumps(entry)


def test_a_state_stored_before_the_returned_fossils_were_kept_reads_as_none_returned() -> None:
    stored = fresh(2)
    del stored["fossil_bottom"]
    upgraded = GAME.upgrade_state(stored)
    assert upgraded["fossil_bottom"] == [] and GAME.view(upgraded, 0)["fossil_deck_bottom"] == []
    assert GAME.upgrade_state(fresh(2)) == fresh(2), "today's states pass through"
