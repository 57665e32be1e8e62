"""The Game's rulebook, section by section, with every worked example as a scenario."""

from __future__ import annotations

import random
from typing import Any

import pytest

from service.bots.the_game import TheGameBot
from service.engine import IllegalAction, InvalidOptions, NotYourTurn, Rng
from service.games.the_game import GAME
from service.games.the_game import piles as P
from tests.support.the_game import agree_in_engine

UP_A, UP_B, DOWN_A, DOWN_B = 0, 1, 2, 3
RNG = Rng(b"rulebook")


def table(
    hands: list[list[int]],
    tops: tuple[int, int, int, int] = (1, 1, 100, 100),
    deck: list[int] | None = None,
    turn: int = 0,
    **options: Any,
) -> dict[str, Any]:
    """A match laid out by hand after the seats agreed that ``turn`` starts: these hands,
    pile tops and draw pile (top card first)."""
    players = len(hands)
    state = GAME.setup(players, GAME.resolve_options(players, options), Rng(b"table"))
    agree_in_engine(state, turn)
    state["hands"] = [sorted(h) for h in hands]
    for pile, top in zip(state["piles"], tops, strict=True):
        pile["top"] = top
    state["deck"] = list(range(50, 60)) if deck is None else deck
    state["turn"] = turn
    return state


def play(state: dict[str, Any], card: int, pile: int, seat: int | None = None) -> list[dict[str, Any]]:
    seat = state["turn"] if seat is None else seat
    _, events = GAME.apply(state, seat, {"type": "play", "card": card, "pile": pile}, RNG)
    return events


def end_turn(state: dict[str, Any]) -> list[dict[str, Any]]:
    _, events = GAME.apply(state, state["turn"], {"type": "end_turn"}, RNG)
    return events


def refused(state: dict[str, Any], action: dict[str, Any], seat: int = 0) -> IllegalAction:
    before = repr(state)
    with pytest.raises(IllegalAction) as info:
        GAME.apply(state, seat, action, RNG)
    assert repr(state) == before, "a refused action changed the match"
    return info.value


# -- Preparazione ------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "hand"), [(1, 8), (2, 7), (3, 6), (4, 6), (5, 6)])
def test_hand_sizes_and_the_draw_pile(players: int, hand: int) -> None:
    state = GAME.setup(players, GAME.resolve_options(players, {}), Rng(b"deal"))
    assert [len(h) for h in state["hands"]] == [hand] * players
    assert len(state["deck"]) == 98 - players * hand
    assert sorted(state["deck"] + sum(state["hands"], [])) == list(range(2, 100))
    assert [(p["direction"], p["top"]) for p in state["piles"]] == [("up", 1), ("up", 1), ("down", 100), ("down", 100)]


# -- I mucchietti: regole per calare carte --------------------------------------------------------


def test_ascending_pile_example_4_8_13() -> None:
    """ "su questo mucchietto coi numeri crescenti è stato collocato prima il 4, poi l'8 e quindi il 13"."""
    state = table([[4, 8, 13, 60, 70, 80]])
    for card in (4, 8, 13):
        play(state, card, UP_A)
    assert state["piles"][UP_A]["top"] == 13 and state["piles"][UP_A]["count"] == 3


@pytest.mark.parametrize(
    ("pile", "sequence"),
    [
        (UP_A, [3, 11, 12, 13, 18, 20, 34, 35, 51]),
        (UP_A, [2, 7, 19, 25, 28, 29, 49]),
        (DOWN_A, [94, 90, 78, 61, 60, 57]),
    ],
)
def test_the_rulebooks_example_sequences_may_skip_numbers(pile: int, sequence: list[int]) -> None:
    state = table([sequence + [99 if pile == UP_A else 2]])
    for card in sequence:
        play(state, card, pile)
    assert state["piles"][pile]["top"] == sequence[-1]


def test_the_rulebooks_98_97_88_83_85_is_a_misprint_85_does_not_go_on_83() -> None:
    """The example "98, 97, 88, 83, 85" for a descending pile breaks the rule it illustrates:
    85 is neither lower than 83 nor exactly 10 higher. The rule wins; docs/the-game.md says so."""
    state = table([[98, 97, 88, 83, 85, 2]])
    for card in (98, 97, 88, 83):
        play(state, card, DOWN_A)
    error = refused(state, {"type": "play", "card": 85, "pile": DOWN_A})
    assert error.rule == "pile order" and "93" in error.message


def test_a_card_against_the_direction_is_refused_with_the_rule() -> None:
    state = table([[30, 40, 60, 70, 80, 90]], tops=(50, 1, 100, 100))
    error = refused(state, {"type": "play", "card": 30, "pile": UP_A})
    assert error.code == "pile_rule" and error.rule == "pile order"
    assert "higher" in error.message and "exactly 40" in error.message


def test_a_card_not_in_hand_is_refused() -> None:
    state = table([[30, 40, 60, 70, 80, 90]])
    error = refused(state, {"type": "play", "card": 31, "pile": UP_A})
    assert error.code == "card_not_in_hand" and error.rule == "own hand"


# -- Svolgimento della partita --------------------------------------------------------------------


def test_martino_lays_four_cards_on_three_piles_then_draws_four() -> None:
    """ "Mette una carta sopra un mucchietto dei numeri crescenti, poi due carte sull'altro
    mucchietto dei numeri crescenti e infine una carta sul mucchietto coi numeri decrescenti."
    "Martino ha giocato 4 carte, ne pesca altrettante e termina il suo turno." (three players)"""
    state = table(
        [[5, 10, 12, 90, 40, 41], [20, 21, 22, 23, 24, 25], [30, 31, 32, 33, 34, 35]], deck=[60, 61, 62, 63, 64]
    )
    play(state, 5, UP_A)
    play(state, 10, UP_B)
    play(state, 12, UP_B)
    play(state, 90, DOWN_A)
    events = end_turn(state)
    assert state["hands"][0] == [40, 41, 60, 61, 62, 63]
    assert state["deck"] == [64]
    assert state["turn"] == 1
    assert {"type": "turn_ended", "seat": 0, "laid": 4, "drew": 4} in events
    assert {"type": "drew", "seat": 0, "cards": [60, 61, 62, 63], "to": [0]} in events


def test_at_least_two_cards_while_the_draw_pile_lasts() -> None:
    state = table([[5, 10, 12, 90, 40, 41], [20, 21, 22, 23, 24, 25]])
    assert {"type": "end_turn"} not in GAME.legal_actions(state, 0)
    play(state, 5, UP_A)
    error = refused(state, {"type": "end_turn"})
    assert error.code == "minimum_not_met" and "at least 2" in error.message
    play(state, 10, UP_A)
    assert {"type": "end_turn"} in GAME.legal_actions(state, 0)


def test_a_player_may_lay_every_card_in_hand() -> None:
    state = table([[2, 3, 4, 5, 6, 7, 8], [20, 21, 22, 23, 24, 25, 26]], deck=list(range(60, 99)))
    for card in (2, 3, 4, 5, 6, 7, 8):
        play(state, card, UP_A)
    assert state["hands"][0] == [] and GAME.legal_actions(state, 0) == [{"type": "end_turn"}]
    end_turn(state)
    assert len(state["hands"][0]) == 7


def test_only_the_seat_in_turn_may_act() -> None:
    state = table([[5, 10, 12, 90, 40, 41], [20, 21, 22, 23, 24, 25]])
    with pytest.raises(NotYourTurn):
        GAME.apply(state, 1, {"type": "play", "card": 20, "pile": UP_A}, RNG)
    assert GAME.legal_actions(state, 1) == []


# -- La mossa al contrario ---------------------------------------------------------------------


def test_giacomo_lays_37_on_the_ascending_pile_showing_47() -> None:
    state = table([[37, 60, 70, 80, 90, 95]], tops=(47, 1, 100, 100))
    assert {"type": "play", "card": 37, "pile": UP_A} in GAME.legal_actions(state, 0)
    events = play(state, 37, UP_A)
    assert state["piles"][UP_A]["top"] == 37
    assert events[0]["backwards"] is True


def test_susanna_lays_75_on_the_descending_pile_showing_65() -> None:
    state = table([[75, 20, 30, 40, 50, 55]], tops=(1, 1, 65, 100))
    events = play(state, 75, DOWN_A)
    assert state["piles"][DOWN_A]["top"] == 75 and events[0]["backwards"] is True


def test_only_exactly_ten_goes_backwards() -> None:
    state = table([[36, 38, 57, 75, 76, 80]], tops=(47, 1, 65, 100))
    legal = GAME.legal_actions(state, 0)
    assert {"type": "play", "card": 36, "pile": UP_A} not in legal
    assert {"type": "play", "card": 38, "pile": UP_A} not in legal
    assert {"type": "play", "card": 76, "pile": DOWN_A} not in legal
    assert {"type": "play", "card": 57, "pile": UP_A} in legal, "57 is simply higher"


def test_backwards_moves_any_number_of_times_in_one_turn_on_different_piles() -> None:
    """ "calare normalmente una carta, poi ricorrere alla mossa al contrario, quindi calare altre
    due carte secondo le regole, usare di nuovo la mossa al contrario, giocare normalmente
    un'altra carta e così via.\""""
    state = table([[50, 40, 45, 48, 80, 90, 70, 69]], tops=(30, 1, 85, 100))
    play(state, 50, UP_A)  # normal
    play(state, 40, UP_A)  # backwards
    play(state, 45, UP_A)  # normal
    play(state, 48, UP_A)  # normal
    play(state, 80, DOWN_A)  # normal
    play(state, 90, DOWN_A)  # backwards, on another pile
    play(state, 70, DOWN_A)  # normal
    play(state, 69, DOWN_A)
    assert [p["top"] for p in state["piles"]] == [48, 1, 69, 100]


# -- Fine della partita ---------------------------------------------------------------------


def test_one_card_is_enough_once_the_draw_pile_is_empty() -> None:
    state = table([[5, 10, 12], [20, 21, 22]], deck=[])
    play(state, 5, UP_A)
    end_turn(state)
    assert state["turn"] == 1 and state["hands"][0] == [10, 12]
    assert GAME.view(state, 1)["minimum"] == 1


def test_the_draw_pile_running_out_mid_draw_leaves_a_short_hand() -> None:
    state = table([[5, 10, 12, 90, 40, 41, 42], [20, 21, 22, 23, 24, 25, 26]], deck=[60])
    play(state, 5, UP_A)
    play(state, 10, UP_A)
    end_turn(state)
    assert len(state["hands"][0]) == 6 and state["deck"] == []


def test_players_with_an_empty_hand_are_skipped() -> None:
    state = table([[5], [], [20, 30]], deck=[])
    play(state, 5, UP_A)
    end_turn(state)
    assert state["turn"] == 2, "seat 1 has no cards and is skipped"
    play(state, 20, UP_A)
    end_turn(state)
    assert state["turn"] == 2, "seats 0 and 1 are out: seat 2 plays on alone"


def test_the_match_ends_when_the_player_to_act_cannot_lay_the_minimum() -> None:
    state = table([[94, 95, 12, 13, 14, 15, 16], [20, 21, 22, 23, 24, 25, 26]], tops=(90, 1, 3, 21), deck=[60, 61, 62])
    play(state, 94, UP_B)
    play(state, 95, UP_B)  # now seat 1 can lay only the 20 (on 21): one card, two owed
    events = end_turn(state)
    assert state["over"] and state["reason"] == "stuck" and GAME.to_act(state) == []
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome["detail"]["cards_left"] == 7 + 7 + 1 and outcome["winners"] == []
    assert outcome["detail"]["brilliant"] is False
    assert events[-1] == {"type": "match_over", "reason": "stuck", "cards_left": 15}


def test_getting_stuck_before_the_minimum_mid_turn_ends_the_match() -> None:
    state = table([[20, 30, 40, 50, 60, 70], [2, 3, 4, 5, 6, 7]], tops=(45, 99, 25, 3))
    play(state, 50, UP_A)
    assert state["over"] is False, "60 and 70 could still follow"
    state2 = table([[50, 30, 31, 32, 33, 34], [2, 3, 4, 5, 6, 7]], tops=(45, 99, 25, 3))
    play(state2, 50, UP_A)
    assert state2["over"] and state2["reason"] == "stuck", "nothing else fits and one card is owed"


def test_laying_every_card_beats_the_game() -> None:
    state = table([[98], [99]], tops=(97, 1, 100, 100), deck=[])
    play(state, 98, UP_A)
    end_turn(state)
    play(state, 99, UP_A)
    end_turn(state)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome["winners"] == [0, 1]
    assert outcome["detail"] | {} == {
        "cards_left": 0,
        "won": True,
        "brilliant": True,
        "end_reason": "all_played",
        "score_means": outcome["detail"]["score_means"],
    }
    assert outcome["ranks"] == [1, 1] and outcome["scores"] == [0, 0]


def test_under_ten_cards_left_is_brilliant() -> None:
    state = table([[97, 98], [50, 51, 52, 53]], tops=(96, 99, 2, 2), deck=[])
    play(state, 97, UP_A)
    play(state, 98, UP_A)
    end_turn(state)
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome["detail"]["cards_left"] == 4
    assert outcome["detail"]["brilliant"] and not outcome["detail"]["won"]


# -- Versione per professionisti -----------------------------------------------------------------


def test_professionals_lay_three_cards_a_turn() -> None:
    state = table([[5, 10, 12, 90, 40, 41], [20, 21, 22, 23, 24, 25]], professional=True)
    play(state, 5, UP_A)
    play(state, 10, UP_A)
    assert "at least 3" in refused(state, {"type": "end_turn"}).message
    play(state, 12, UP_A)
    end_turn(state)
    assert state["turn"] == 1


def test_professionals_owe_one_card_once_the_draw_pile_is_empty() -> None:
    state = table([[5, 10], [20, 21]], deck=[], professional=True)
    play(state, 5, UP_A)
    end_turn(state)
    assert state["turn"] == 1


def first_card_leaving_one_more_but_not_two(seed: int) -> tuple[dict[str, Any], int, dict[str, Any]] | None:
    """Random professional play until the player to act, owing three cards, could lay a card
    after which one more card still fits but no two do: ``(state, seat, that play)``."""
    chooser = random.Random(seed)
    rng = Rng(seed.to_bytes(8, "big"))
    state = GAME.setup(2, GAME.resolve_options(2, {"professional": True}), rng)
    agree_in_engine(state, 0, rng)
    step = 10
    while to_act := GAME.to_act(state):
        seat = to_act[0]
        legal = GAME.legal_actions(state, seat)
        if GAME.view(state, seat)["minimum"] == 3 and state["played"] == 0:
            for action in legal:
                rest = [c for c in state["hands"][seat] if c != action["card"]]
                piles = [dict(p) for p in state["piles"]]
                piles[action["pile"]]["top"] = action["card"]
                if P.can_lay(rest, piles, 1, step) and not P.can_lay(rest, piles, 2, step):
                    return state, seat, action
        state, _ = GAME.apply(state, seat, chooser.choice(legal), rng)
    return None


def test_professionals_lose_as_soon_as_the_cards_still_owed_cannot_all_be_laid() -> None:
    """ "La partita termina appena il giocatore di turno non è in grado di calare il numero minimo
    di carte": a professional who owes three cards and lays one after which only one more
    fits cannot reach the minimum any more, so the match ends there, in the middle of the turn."""
    found = next(f for f in map(first_card_leaving_one_more_but_not_two, range(20)) if f is not None)
    state, seat, action = found
    _, events = GAME.apply(state, seat, action, RNG)
    assert state["over"] and state["reason"] == "stuck" and GAME.to_act(state) == []
    assert events[-1]["type"] == "match_over" and events[-1]["reason"] == "stuck"
    assert GAME.outcome(state)["detail"]["end_reason"] == "stuck"


@pytest.mark.parametrize(("players", "hand"), [(1, 7), (2, 6), (3, 5), (4, 5), (5, 5)])
def test_smaller_hands(players: int, hand: int) -> None:
    options = GAME.resolve_options(players, {"professional": True, "smaller_hands": True})
    state = GAME.setup(players, options, Rng(b"deal"))
    assert [len(h) for h in state["hands"]] == [hand] * players


# -- Espansione "On Fire" -----------------------------------------------------------------------


def test_martino_lays_the_44_and_susanna_covers_it_in_time() -> None:
    """ "è il turno di Martino, che gioca il 44. Dopo Martino tocca a Susanna. Il 44 deve essere
    coperto da Martino o al più tardi da Susanna.\""""
    martino, susanna = 0, 1
    state = table([[44, 10, 60, 70, 80, 90], [45, 46, 20, 21, 22, 23]], tops=(40, 1, 100, 100), on_fire=True)
    events = play(state, 44, UP_A, martino)
    assert events[0]["fire"] is True and GAME.view(state, None)["piles"][UP_A]["on_fire"]
    play(state, 10, UP_B, martino)
    end_turn(state)
    assert not state["over"], "Susanna still has her turn to cover it"
    play(state, 45, UP_A, susanna)
    assert not GAME.view(state, None)["piles"][UP_A]["on_fire"]
    play(state, 46, UP_A, susanna)
    end_turn(state)
    assert not state["over"]


def test_the_44_left_uncovered_after_susannas_turn_loses_at_once() -> None:
    state = table([[44, 10, 60, 70, 80, 90], [20, 21, 22, 23, 45, 46]], tops=(40, 1, 100, 100), on_fire=True)
    play(state, 44, UP_A)
    play(state, 10, UP_B)
    end_turn(state)
    play(state, 20, UP_B)
    play(state, 21, UP_B)
    events = end_turn(state)
    assert state["over"] and state["reason"] == "fire"
    assert {"type": "fire_uncovered", "pile": UP_A, "card": 44} in events
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome["winners"] == [] and outcome["detail"]["end_reason"] == "fire"


def bot_solo_on_fire(seed: int) -> dict[str, Any]:
    """A solo "On Fire" match played to its end by the reference bot."""
    rng = Rng(seed.to_bytes(8, "big"))
    chooser = random.Random(seed)
    state = GAME.setup(1, GAME.resolve_options(1, {"on_fire": True}), rng)
    bot = TheGameBot()
    while GAME.to_act(state):
        state, _ = GAME.apply(state, 0, bot.choose(GAME.view(state, 0), GAME.legal_actions(state, 0), chooser), rng)
    return state


def test_a_match_lost_to_fire_is_never_brilliant() -> None:
    """ "Altrimenti la partita è persa immediatamente": a match lost to an uncovered fire card is
    lost, however few cards are left, so it is never rated "brillante". The bot loses solo
    matches to fire with fewer than ten cards left on seeds 22 and 37 (a search over 0–299)."""
    lost = next(
        state
        for state in map(bot_solo_on_fire, range(22, 40))
        if state["reason"] == "fire" and 0 < GAME.outcome(state)["detail"]["cards_left"] < 10
    )
    detail = GAME.outcome(lost)["detail"]
    assert detail["end_reason"] == "fire" and not detail["won"]
    assert detail["brilliant"] is False


def test_martino_may_cover_his_own_fire_card() -> None:
    state = table([[44, 47, 60, 70, 80, 90], [20, 21, 22, 23, 24, 25]], tops=(40, 1, 100, 100), on_fire=True)
    play(state, 44, UP_A)
    play(state, 47, UP_A)
    assert state["piles"][UP_A]["burning"] is None


def test_a_backwards_move_covers_a_fire_card() -> None:
    state = table([[77, 87, 60, 50, 40, 30], [20, 21, 22, 23, 24, 25]], tops=(1, 1, 80, 100), on_fire=True)
    play(state, 77, DOWN_A)
    play(state, 87, DOWN_A)
    assert state["piles"][DOWN_A]["burning"] is None


def test_solo_the_fire_card_must_be_covered_by_the_end_of_the_next_turn() -> None:
    state = table([[44, 10, 60, 70, 80, 90, 91, 92]], tops=(40, 1, 100, 100), on_fire=True)
    play(state, 44, UP_A)
    play(state, 10, UP_B)
    end_turn(state)
    assert not state["over"]
    state["hands"][0] = [11, 12, 95, 96, 97, 98, 2, 3]
    play(state, 11, UP_B)
    play(state, 12, UP_B)
    end_turn(state)
    assert state["over"] and state["reason"] == "fire"


def test_without_the_expansion_22_to_77_are_plain_cards() -> None:
    state = table([[44, 10, 60, 70, 80, 90], [20, 21, 22, 23, 24, 25]], tops=(40, 1, 100, 100))
    events = play(state, 44, UP_A)
    assert events[0]["fire"] is False and state["piles"][UP_A]["burning"] is None


# -- Options -----------------------------------------------------------------------------------


def test_first_seat_option_and_its_range() -> None:
    state = GAME.setup(3, GAME.resolve_options(3, {"first_seat": 2}), Rng(b"x"))
    assert GAME.to_act(state) == [2]
    with pytest.raises(InvalidOptions) as info:
        GAME.resolve_options(2, {"first_seat": 2})
    assert info.value.code == "invalid_option"
