"""The search of levels 3-5 starts from the heuristic bot's move and leaves it only on evidence."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from service.bots import halunken_und_spelunken, search
from service.bots.esploratore import EsploratoreBot
from service.bots.halunken_und_spelunken import ROLLOUT_WORLDS, WORLDS, HalunkenBot
from service.bots.isola_dei_vulcani import IsolaDeiVulcaniBot
from service.bots.registry import SEARCH_BUDGETS, heuristic_bot, sampler_of
from service.bots.search import (
    MIN_WORLDS,
    STAGES_AHEAD,
    Budget,
    Judging,
    SearchBot,
    _rollout,
    candidate_count,
    candidates,
    chance_ahead,
    expected_rank_reward,
    overturning,
    rank_reward,
)
from service.bots.the_game import TheGameBot
from service.bots.viaggio import ViaggioBot, progress
from service.engine import Action, Rng, State, View
from service.games import get_game
from tests.support.playout import play_out


def a_choice(game_id: str, players: int, seed: int) -> tuple[View, list[Action]]:
    """The view and legal actions of the first decision with at least five legal actions
    after ten decisions of a seeded random match."""
    game, rng, chooser = get_game(game_id), Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    decisions = 0
    while len(legal := game.legal_actions(state, seat := game.to_act(state)[0])) < 5 or decisions < 10:
        state, _ = game.apply(state, seat, chooser.choice(legal), rng)
        decisions += 1
    return game.view(state, seat), legal


def test_without_time_for_a_world_the_search_plays_the_heuristics_move() -> None:
    for game_id in ("the-game", "esploratore"):
        view, legal = a_choice(game_id, 2, seed=1)
        budget = Budget(iterations=100, seconds=0.0, candidates=4)
        bot = SearchBot(get_game(game_id), sampler_of(game_id), heuristic_bot(game_id), budget)
        assert bot.choose(view, legal, random.Random(1)) == heuristic_bot(game_id).choose(view, legal, random.Random(1))


def test_a_challenger_overturns_the_heuristics_move_only_on_evidence() -> None:
    assert overturning([[1.0] * MIN_WORLDS]) == 0
    assert overturning([[1.0] * (MIN_WORLDS - 1)]) == -1, "too few worlds"
    assert overturning([[1.0, -1.0] * MIN_WORLDS]) == -1, "better on some worlds, worse on as many"
    assert overturning([[-1.0] * MIN_WORLDS]) == -1
    assert overturning([[0.5] * MIN_WORLDS, [2.0, 1.0] * MIN_WORLDS]) == 1, "the larger mean difference"


def test_the_challengers_are_the_heuristics_next_choices() -> None:
    view, legal = a_choice("the-game", 2, seed=2)
    bot = TheGameBot()
    moves = [c.move for c in candidates(bot, view, legal, 3, random.Random(0))]
    assert moves[0] == bot.choose(view, legal, random.Random(0))
    assert moves[1:] == [a for a in bot.ranked(view, legal) if a != moves[0]][:2]


def test_a_bot_that_cannot_rank_is_asked_again_with_its_picks_withheld() -> None:
    class Smallest:
        def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
            return min(legal, key=lambda a: (a["type"], a.get("card", 0), a.get("pile", 0)))

    view, legal = a_choice("the-game", 2, seed=2)
    moves = [c.move for c in candidates(Smallest(), view, legal, 3, random.Random(0))]
    assert moves == sorted(legal, key=lambda a: (a["type"], a.get("card", 0), a.get("pile", 0)))[:3]


def test_a_bot_that_repeats_itself_is_followed_by_the_rest_in_a_seeded_order() -> None:
    view, legal = a_choice("the-game", 2, seed=2)

    class Stubborn:
        def choose(self, view: View, legal_now: list[Action], rng: random.Random) -> Action:
            return legal[-1]

    moves = [c.move for c in candidates(Stubborn(), view, legal, len(legal) + 1, random.Random(0))]
    assert moves[0] == legal[-1] and sorted(map(str, moves)) == sorted(map(str, legal))
    assert moves == [c.move for c in candidates(Stubborn(), view, legal, len(legal) + 1, random.Random(0))]


@pytest.mark.parametrize("players", [2, 3])
@pytest.mark.parametrize(
    "game_id", ["esploratore", "halunken-und-spelunken", "isola-dei-vulcani", "viaggio-al-centro-della-terra"]
)
def test_a_heuristic_bot_answers_with_any_kind_of_move_withheld(game_id: str, players: int) -> None:
    """The search asks a bot that cannot rank its options again with its earlier picks
    withheld, so a bot may be asked with every move of a kind gone (every draw, the pass, the
    skip): at each decision of a seeded match, asked once without each kind, it answers."""
    game, asker = get_game(game_id), heuristic_bot(game_id)

    def ask_without_each_kind(state: State, seat: int, legal: list[Action], action: Action, events: Any) -> None:
        view = game.view(state, seat)
        for kind in {a["type"] for a in legal}:
            rest = [a for a in legal if a["type"] != kind]
            if rest:
                asker.choose(view, rest, random.Random(0))

    play_out(game, [heuristic_bot(game_id) for _ in range(players)], 7, on_move=ask_without_each_kind)


@pytest.mark.parametrize(("players", "weighed"), [(2, 3), (3, 2), (4, 2)])
@pytest.mark.parametrize(
    ("game_id", "heuristic"), [("isola-dei-vulcani", IsolaDeiVulcaniBot), ("esploratore", EsploratoreBot)]
)
def test_a_search_weighs_one_challenger_among_several_rivals(
    game_id: str, heuristic: type, players: int, weighed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Level 4 (the heuristic's move and two challengers) lost to level 3 by its second
    challenger with several rivals, in L'Isola dei Vulcani at three players and in Esploratore
    at four; there the search plays out one challenger only."""
    played: set[str] = set()

    def rollout(game: object, fresh: object, state: State, seat: int, move: Action, *rest: object) -> float:
        played.add(str(move))
        return 0.0

    monkeypatch.setattr("service.bots.search._rollout", rollout)
    view, legal = a_choice(game_id, players, seed=3)
    budget = replace(SEARCH_BUDGETS["level4"], seconds=math.inf)
    bot = SearchBot(get_game(game_id), sampler_of(game_id), heuristic(), budget)
    bot.choose(view, legal, random.Random(0))
    assert len(played) == weighed
    assert candidate_count(heuristic(), view, budget) == weighed
    assert candidate_count(HalunkenBot(), view, budget) == budget.candidates, "no limit of its own"


def test_ranking_keys_give_the_outcomes_reward() -> None:
    assert rank_reward([(3,), (5,), (5,)], 0) == 0.0
    assert rank_reward([(3,), (5,), (5,)], 1) == 1.0, "equal keys share the first rank"
    assert rank_reward([(3,), (5,), (4,)], 2) == 0.5


def test_an_expected_rank_reward_tells_a_wide_lead_from_a_narrow_one() -> None:
    assert expected_rank_reward([10, 10], 0, 25.0) == 0.5
    narrow, wide = expected_rank_reward([11, 10], 0, 25.0), expected_rank_reward([40, 10], 0, 25.0)
    assert 0.5 < narrow < wide < 1.0
    assert expected_rank_reward([10, 40], 0, 25.0) == pytest.approx(1.0 - wide)
    three = [expected_rank_reward([20, 10, 30], seat, 25.0) for seat in range(3)]
    assert three[1] < three[0] < three[2]
    assert sum(three) == pytest.approx(1.5), "n/2 in all, as the rank rewards of any outcome sum to"
    assert expected_rank_reward([20, 10, 30], 0, 0.01) == rank_reward([(20,), (10,), (30,)], 0)


def test_a_lead_is_kept_by_the_normal_law_of_what_may_still_move() -> None:
    assert chance_ahead(0, 8.0) == 0.5, "a tie now is even"
    assert chance_ahead(8.0, 8.0) == pytest.approx(0.8413, abs=1e-4), "one deviation ahead"
    assert chance_ahead(-5.0, 8.0) == pytest.approx(1.0 - chance_ahead(5.0, 8.0))
    assert (chance_ahead(0, 0.0), chance_ahead(1, 0.0), chance_ahead(-1, 0.0)) == (1.0, 1.0, 0.0), (
        "at the end: a tie counts as ahead"
    )


@pytest.mark.parametrize(
    "game_id", ["esploratore", "halunken-und-spelunken", "isola-dei-vulcani", "viaggio-al-centro-della-terra"]
)
def test_a_judge_agrees_with_the_outcome_at_the_end_of_a_match(game_id: str) -> None:
    game, bot = get_game(game_id), heuristic_bot(game_id)
    assert isinstance(bot, Judging)
    played = play_out(game, [bot, bot], seed=3)
    for seat in range(2):
        assert bot.judge(played.state, seat) == 1.0 - (played.outcome["ranks"][seat] - 1)


@pytest.mark.parametrize(
    "game_id,heuristic,deep,ahead",
    [
        ("halunken-und-spelunken", HalunkenBot, False, STAGES_AHEAD),
        ("halunken-und-spelunken", HalunkenBot, True, STAGES_AHEAD),
        ("esploratore", EsploratoreBot, False, 1),
        ("isola-dei-vulcani", IsolaDeiVulcaniBot, False, STAGES_AHEAD),
        ("isola-dei-vulcani", IsolaDeiVulcaniBot, True, 4),
    ],
)
def test_a_rollout_stops_rounds_ahead_where_the_heuristic_judges_positions(
    game_id: str, heuristic: type, deep: bool, ahead: int
) -> None:
    """Levels 4 and 5 (a deep budget) judge L'Isola dei Vulcani four rounds on, level 3 two; a
    bot that names no farther horizon stops where it always does."""
    game, rng = get_game(game_id), Rng(bytes(8))
    state = game.setup(2, game.resolve_options(2, {}), rng)
    seen: list[int] = []

    class Judged(heuristic):
        def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
            seen.append(view["round"])
            return super().choose(view, legal, rng)

        @staticmethod
        def judge(state: State, seat: int) -> float:
            return 0.25

    seat, start = game.to_act(state)[0], state["round"]
    move = game.legal_actions(state, seat)[0]
    judged = _rollout(game, Judged, state, seat, move, Rng(bytes(8)), random.Random(0), math.inf, (), deep)
    assert judged == 0.25
    assert max(seen) == start + ahead - 1, "no decision once the round the bot judges at starts"


def test_a_viaggio_rollout_stops_once_the_journey_has_come_its_rows_further() -> None:
    """Viaggio has no rounds: its bot counts a rollout's stages in rows the explorers went down
    (a draw moves nobody), so a rollout from the start stops a few moves in, not at the end."""
    game, rng = get_game("viaggio-al-centro-della-terra"), Rng(bytes(8))
    state = game.setup(2, game.resolve_options(2, {}), rng)
    seen: list[int] = []

    @dataclass
    class Judged(ViaggioBot):
        def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
            seen.append(sum(1 for cell in view["explorers"].values() if cell != "start"))
            return super().choose(view, legal, rng)

        @staticmethod
        def judge(state: State, seat: int) -> float:
            return 0.25

    seat = game.to_act(state)[0]
    move = game.legal_actions(state, seat)[0]
    assert progress(state) == 0
    assert _rollout(game, Judged, state, seat, move, Rng(bytes(8)), random.Random(0), math.inf) == 0.25
    assert 0 < len(seen) < 100 and max(seen) >= 1, "a few moves, then the judge"


def value(card: str) -> int:
    """A pirate card's value: ``"green-13"`` is worth 13."""
    return int(card.rsplit("-", 1)[1])


Wanted = Callable[[View, list[Action]], bool]
"""Whether a decision (view, legal actions) is the one a test looks for."""


def a_halunken_decision(players: int, seed: int, wanted: Wanted) -> tuple[View, list[Action]]:
    """The view and legal actions of the first decision of a seeded random Halunken und
    Spelunken match that is ``wanted``."""
    game, rng, chooser = get_game("halunken-und-spelunken"), Rng(seed.to_bytes(8, "big")), random.Random(seed)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    while to_act := game.to_act(state):
        seat = to_act[0]
        legal, view = game.legal_actions(state, seat), game.view(state, seat)
        if wanted(view, legal):
            return view, legal
        state, _ = game.apply(state, seat, chooser.choice(legal), rng)
    raise AssertionError("no such decision")


def a_standing_bid(seed: int) -> tuple[View, list[Action]]:
    """A two-player auction in which the seat to act could match the standing bid."""

    def could_match(view: View, legal: list[Action]) -> bool:
        high = view["auction"]["high_card"] if view["phase"] == "auction" else None
        return high is not None and any(a["type"] == "bid" and value(a["card"]) == value(high) for a in legal)

    return a_halunken_decision(2, seed, could_match)


def test_a_search_never_matches_a_standing_bid_so_two_searches_end_the_auction() -> None:
    """The two-player rules let a bid equal the standing one until a player passes; the
    heuristic never matches, and the search tries no move its heuristic would never play, so
    two search levels facing each other cannot keep the auction going for ever."""
    for seed in range(3):
        view, legal = a_standing_bid(seed)
        floor = value(view["auction"]["high_card"])
        moves = [c.move for c in candidates(HalunkenBot(), view, legal, len(legal), random.Random(seed))]
        assert moves, "the heuristic's move at least"
        assert all(a["type"] != "bid" or value(a["card"]) > floor for a in moves)


def an_auction(players: int, seed: int) -> tuple[View, list[Action]]:
    """A standard-game auction after the first round in which the seat to act may bid."""
    return a_halunken_decision(
        players, seed, lambda view, legal: view["phase"] == "auction" and view["round"] > 1 and len(legal) > 2
    )


def test_halunken_und_spelunken_rolls_out_lighter_than_it_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its seats' auction look-aheads were nearly all of a four-player rollout's time, so
    rollouts look ahead over fewer worlds; the heuristic's move and the challengers do not."""
    looked: list[tuple[str, int]] = []
    real = halunken_und_spelunken._best_ahead

    def recording(view: View, options: list[Action], rng: random.Random, worlds: int, *play: Any) -> Action:
        looked.append((view["phase"], worlds))
        return real(view, options, rng, worlds, *play)

    monkeypatch.setattr(halunken_und_spelunken, "_best_ahead", recording)
    view, legal = an_auction(4, seed=1)
    asked = len(candidates(HalunkenBot(), view, legal, 2, random.Random(0)))
    looked.clear()
    budget = Budget(iterations=8, seconds=math.inf, candidates=2)
    game_id = "halunken-und-spelunken"
    SearchBot(get_game(game_id), sampler_of(game_id), HalunkenBot(), budget).choose(view, legal, random.Random(0))
    assert looked[:asked] == [("auction", WORLDS)] * asked, "the heuristic's move and its challenger"
    assert looked[asked:] and all(worlds == ROLLOUT_WORLDS for _, worlds in looked[asked:]), "the rollouts"


def test_every_seat_of_a_rollout_has_a_heuristic_bot_of_its_own() -> None:
    """A heuristic bot may remember its plan between decisions (Viaggio's does): one instance
    playing several seats would hand one seat's plan to another."""
    seats_of: dict[int, set[int]] = {}
    alive: list[object] = []  # keeps every instance, so that no id is reused

    @dataclass(frozen=True)
    class Recording(TheGameBot):
        def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
            alive.append(self)
            seats_of.setdefault(id(self), set()).add(view["seat"])
            return super().choose(view, legal, rng)

    view, legal = a_choice("the-game", 3, seed=2)
    budget = Budget(iterations=8, seconds=math.inf, candidates=2)
    SearchBot(get_game("the-game"), sampler_of("the-game"), Recording(), budget).choose(view, legal, random.Random(0))
    assert len(seats_of) > 3, "the seat's own bot and the rollouts' bots"
    assert all(len(seats) == 1 for seats in seats_of.values())


def test_the_games_rollouts_play_a_narrower_turn_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Game's rollout seats try fewer cards at each step of their turn search than the
    bot that decides, and the search plays its rollouts with them."""
    tried: list[int] = []
    real = TheGameBot.child

    def counting(self: TheGameBot, *args: Any) -> Any:
        tried.append(1)
        return real(self, *args)

    monkeypatch.setattr(TheGameBot, "child", counting)
    view, legal = a_choice("the-game", 2, seed=2)
    TheGameBot().choose(view, legal, random.Random(0))
    full, tried[:] = len(tried), []
    TheGameBot().for_rollouts().choose(view, legal, random.Random(0))
    assert 0 < len(tried) < full
    search = SearchBot(get_game("the-game"), sampler_of("the-game"), TheGameBot(), SEARCH_BUDGETS["level3"])
    assert search.rollout_blank == TheGameBot().for_rollouts() != TheGameBot() == search.blank


def a_planned_move() -> tuple[State, View, list[Action], Action, list[Action]]:
    """The first decision of a seeded Viaggio match at which the heuristic bot starts a move
    (it chooses an explorer and plans the steps): the state, the seat's view, the legal
    actions, the bot's move and its plan."""
    game, rng = get_game("viaggio-al-centro-della-terra"), Rng(bytes(8))
    state = game.setup(2, game.resolve_options(2, {}), rng)
    while True:
        seat = game.to_act(state)[0]
        view, legal = game.view(state, seat), game.legal_actions(state, seat)
        plain = ViaggioBot()
        move = plain.choose(view, legal, random.Random(0))
        if plain.plan:
            return state, view, legal, move, plain.plan
        state, _ = game.apply(state, seat, move, rng)


def test_a_rollout_plays_a_planned_move_on_as_its_plan_says() -> None:
    """The move that starts a planned turn (choosing an explorer) is worth what the plan makes
    of it: the seat's bot in the rollout plays that plan, where a bot that had not made it
    would end the move at the first space it could."""
    state, view, legal, move, plan = a_planned_move()
    assert candidates(ViaggioBot(), view, legal, 2, random.Random(0))[0] == (move, plan)
    seat = view["seat"]
    played: list[Action] = []

    @dataclass
    class Recording(ViaggioBot):
        def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
            action = super().choose(view, legal, rng)
            if view["seat"] == seat:
                played.append(action)
            return action

    game = get_game("viaggio-al-centro-della-terra")
    _rollout(game, Recording, state, seat, move, Rng(bytes(8)), random.Random(0), math.inf, plan)
    assert played[: len(plan)] == plan


def test_a_seat_whose_move_was_overturned_plays_on_the_plan_of_the_move_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """When a challenger that starts a planned turn replaces the heuristic's move, the seat's
    bot takes up the challenger's plan for the decisions that follow."""
    monkeypatch.setattr(search, "overturning", lambda differences: 0)  # the first challenger wins
    _, view, legal, move, _ = a_planned_move()
    withheld = [a for a in legal if a != move]
    challenger = ViaggioBot()
    assert challenger.choose(view, withheld, random.Random(0))["type"] == "choose" and challenger.plan
    game_id = "viaggio-al-centro-della-terra"
    budget = Budget(iterations=8, seconds=math.inf, candidates=2)
    bot = SearchBot(get_game(game_id), sampler_of(game_id), ViaggioBot(), budget)
    assert bot.choose(view, legal, random.Random(0)) == challenger.choose(view, withheld, random.Random(0))
    assert bot.policy.plan == challenger.plan


def test_the_seats_own_heuristic_bot_keeps_the_plan_of_its_move() -> None:
    """Viaggio's bot plans its whole turn at the start and plays the plan out: rollouts run
    between two steps of the plan must not change it."""
    game_id = "viaggio-al-centro-della-terra"
    game = get_game(game_id)
    _, view, legal, move, plan = a_planned_move()
    budget = Budget(iterations=2 * (MIN_WORLDS - 1), seconds=math.inf, candidates=2)  # rollouts, no overturn
    bot = SearchBot(game, sampler_of(game_id), ViaggioBot(), budget)
    assert bot.choose(view, legal, random.Random(0)) == move
    assert bot.policy.plan == plan
