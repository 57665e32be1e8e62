"""The Esploratore bot: only legal choices, finishes every variant and player count, beats the
random bot, and is registered as the game's heuristic bot. It is handed only a seat's view."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from service.bots import RandomBot
from service.bots.esploratore import ROLLOUT_FACES, EsploratoreBot
from service.bots.registry import SEARCH_BUDGETS, make_bot, sampler_of
from service.bots.search import SearchBot
from service.engine import Rng
from service.games.esploratore import GAME
from tests.support.playout import play_out

OPTIONS = [
    {},
    {"beginners": True},
    {"race_250": True},
    {"upkeep": True},
    {"beginners": True, "race_250": True, "upkeep": True, "hidden_totals": True},
]


def play(players: int, bots: list, seed: int, options: dict | None = None) -> dict:
    """The outcome of one seeded match; every choice is checked against the legal list."""
    assert len(bots) == players
    return play_out(GAME, bots, seed, options).outcome


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "+".join(o) or "standard")
@pytest.mark.parametrize("players", [2, 4, 7])
def test_bot_chooses_only_legal_actions_and_finishes(players: int, options: dict) -> None:
    play(players, [EsploratoreBot() for _ in range(players)], seed=players, options=options)


def test_registered_as_the_heuristic_bot() -> None:
    assert isinstance(make_bot("esploratore", "heuristic"), EsploratoreBot)


def test_bot_beats_the_random_bot() -> None:
    wins = 0
    matches = 40
    for seed in range(matches):
        seats = [EsploratoreBot(), RandomBot()] if seed % 2 == 0 else [RandomBot(), EsploratoreBot()]
        bot_seat = seed % 2
        wins += bot_seat in play(2, seats, seed)["winners"]
    assert wins >= 0.85 * matches


def a_state(players: int, wanted: Callable[[dict], bool], seed: int = 1) -> dict:
    """The first state ``wanted`` of a seeded match of heuristic bots."""
    state = GAME.setup(players, GAME.resolve_options(players, {}), Rng(seed.to_bytes(32, "big")))
    bots, chooser = [EsploratoreBot() for _ in range(players)], random.Random(seed)
    while not wanted(state):
        seat = GAME.to_act(state)[0]
        action = bots[seat].choose(GAME.view(state, seat), GAME.legal_actions(state, seat), chooser)
        state, _ = GAME.apply(state, seat, action, Rng(seed.to_bytes(32, "big")))
    return state


def a_round_start(players: int, round_: int) -> dict:
    return a_state(players, lambda state: state["round"] == round_)


def test_the_judge_expects_a_wide_lead_to_hold_better_than_a_narrow_one() -> None:
    """The rank now scores both leads alike; a search judging by it saw no worth in widening one."""
    state = a_round_start(3, round_=6)
    still = [[0, 0, 0, 0]] * 3
    narrow = {**state, "totals": [[31, 31, 31, 31], [30, 30, 30, 30], [30, 30, 30, 30]], "last_yield": still}
    wide = {**narrow, "totals": [[60, 60, 60, 60], [30, 30, 30, 30], [30, 30, 30, 30]]}
    assert 0.5 < EsploratoreBot.judge(narrow, 0) < EsploratoreBot.judge(wide, 0) < 1.0
    assert EsploratoreBot.judge({**wide, "phase": "over"}, 0) == 1.0, "at the end, the outcome's rank"
    assert all(EsploratoreBot.judge(wide, seat) < 0.5 for seat in (1, 2)), "far behind the leader"


def test_the_judge_counts_the_yield_each_round_still_brings() -> None:
    """A move that sets up vehicles to yield every round pays later than the judged round: the
    judge carries each seat's last yield through the rounds left."""
    state = a_round_start(2, round_=4)
    level = {**state, "totals": [[20, 20, 20, 20], [20, 20, 20, 20]], "last_yield": [[0, 0, 0, 0]] * 2}
    invested = {**level, "last_yield": [[6, 6, 6, 6], [0, 0, 0, 0]]}
    assert EsploratoreBot.judge(level, 0) == pytest.approx(0.5, abs=0.1)
    assert EsploratoreBot.judge(invested, 0) > 0.9
    assert EsploratoreBot.judge(invested, 1) < 0.1


def test_rollouts_weigh_fewer_unseen_cards_before_a_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """A draw lays every unseen card of every pile on a copy of the table, most of a rollout's
    time at four players: the rollouts' seats weigh a few; the search's own seat all."""
    weighed: list[int] = []
    real = EsploratoreBot.play_gain

    def counting(self: EsploratoreBot, *args: object) -> float:
        weighed.append(1)
        return real(self, *args)

    monkeypatch.setattr(EsploratoreBot, "play_gain", counting)

    def drawing(state: dict) -> bool:
        legal = GAME.legal_actions(state, GAME.to_act(state)[0])
        return state["round"] > 1 and sum(a["type"] == "draw" and a["pile"] != "reserve" for a in legal) > 1

    state = a_state(4, drawing)
    seat = GAME.to_act(state)[0]
    view, legal = GAME.view(state, seat), GAME.legal_actions(state, seat)
    piles = sum(1 for a in legal if a["pile"] != "reserve")
    EsploratoreBot().choose(view, legal, random.Random(0))
    every, weighed[:] = len(weighed), []
    EsploratoreBot().for_rollouts().choose(view, legal, random.Random(0))
    assert len(weighed) <= ROLLOUT_FACES * piles < every
    search = SearchBot(GAME, sampler_of("esploratore"), EsploratoreBot(), SEARCH_BUDGETS["level3"])
    assert search.rollout_blank == EsploratoreBot().for_rollouts()
    assert search.blank == EsploratoreBot()
