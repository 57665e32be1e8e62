"""Viaggio, L'isola dei vulcani and Esploratore on the watch page of a real server: what is
drawn matches the view the API answers at the start, in the middle and at the end of a match
(for a spectator and for a seat), a move made over the API appears without a reload, and a
seat plays by clicking on the board."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from service.bots.registry import make_bot
from service.engine import Rng
from service.games import games
from tests.support.browser import WatchPage
from tests.support.http import MatchClient, WireClient
from tests.web.boards import BOARD_GAMES, expected

pytestmark = pytest.mark.browser

PLAYERS = 2
SEED = "b0" * 32
MIDDLE = {"viaggio-al-centro-della-terra": 120, "isola-dei-vulcani": 90, "esploratore": 50}
"""Moves played (by the game's bots) before the middle of a match is looked at."""


class BotPlayer:
    """Plays a match over HTTP with the game's heuristic bots at one request per move.

    The bots decide on an in-process copy of the match: the same engine from the same seed,
    each move applied with the random stream where the previous one left it, exactly as the
    referee does (``service.match.state_after``). A copy that drifted from the server would
    send a move the server refuses, and the test would fail there.
    """

    def __init__(self, match: MatchClient, game_id: str) -> None:
        self.match = match
        self.game = games()[game_id]
        self.bots = [make_bot(game_id, "heuristic") for _ in range(PLAYERS)]
        self.chooser = random.Random(game_id)
        self.rng = Rng(SEED)
        self.state = self.game.setup(PLAYERS, self.game.resolve_options(PLAYERS, {}), self.rng)
        self.token = match.created["state_token"]

    def play(self, moves: int) -> dict[str, Any]:
        """Up to ``moves`` moves (fewer if the match ends); the match body after them."""
        for _ in range(moves):
            to_act = self.game.to_act(self.state)
            if not to_act:
                break
            seat = to_act[0]
            view = json.loads(json.dumps(self.game.view(self.state, seat)))
            action = self.bots[seat].choose(view, self.game.legal_actions(self.state, seat), self.chooser)
            answer = self.match.act(seat, self.token, action)
            assert answer.status_code == 200, answer.get_json()
            self.token = answer.get_json()["state_token"]
            self.rng = Rng(SEED, self.rng.position())
            self.state, _ = self.game.apply(self.state, seat, action, self.rng)
        return self.match.get()


def assert_drawn_as(watch: WatchPage, game_id: str, view: dict[str, Any]) -> None:
    """Every count the view implies (tests/web/boards.py) holds on the page."""
    wrong = {}
    for selector, n in expected(game_id, view).items():
        drawn = watch.page.locator(f"#board {selector}").count()
        if drawn != n:
            wrong[selector] = (drawn, n)
    assert not wrong, f"drawn vs view: {wrong}"


@pytest.mark.parametrize("game_id", BOARD_GAMES)
def test_start_middle_and_end_are_drawn_as_the_view(api: WireClient, watch: WatchPage, game_id: str) -> None:
    match = MatchClient.create(api, game_id, PLAYERS, seed=SEED)
    bots = BotPlayer(match, game_id)
    match_id = match.created["match_id"]
    watch.open(match_id)
    assert_drawn_as(watch, game_id, match.get()["view"])

    middle = bots.play(MIDDLE[game_id])
    watch.wait_for_version(middle["version"])  # followed live, no reload
    assert_drawn_as(watch, game_id, middle["view"])
    watch.open(match_id, match.tokens[1])
    assert_drawn_as(watch, game_id, match.get(1)["view"])

    end = bots.play(20_000)
    assert end["status"] == "finished"
    watch.wait_for_status("finished")
    assert_drawn_as(watch, game_id, match.get(1)["view"])
    watch.open(match_id)
    assert_drawn_as(watch, game_id, end["view"])
    assert watch.text("#outcome .seed") == end["seed"]


@pytest.mark.parametrize("game_id", BOARD_GAMES)
def test_a_seat_moves_by_clicking_the_board(api: WireClient, watch: WatchPage, game_id: str) -> None:
    """The seat to act clicks what its drawing offers (a deck, a hex, a pile) until the
    page submits a move; the move is the one the clicks named, and it is drawn."""
    match = MatchClient.create(api, game_id, PLAYERS, seed=SEED)
    seat = match.get()["to_act"][0]
    watch.open(match.created["match_id"], match.tokens[seat])
    version = watch.version
    for _ in range(4):
        unpicked = "#board [data-pick].pickable:not(.picked)"
        watch.page.wait_for_selector(unpicked)  # once the legal actions are in
        watch.page.locator(unpicked).first.dispatch_event("click")  # the page delegates clicks
        watch.page.wait_for_function(
            "v => Number(document.querySelector('#board').dataset.version) > v"
            " || document.querySelector('#board .picked')",
            arg=version,
        )
        if watch.version > version:
            break
    watch.wait_for_version(version + 1)
    after = match.get(seat)
    assert after["version"] == version + 1
    assert_drawn_as(watch, game_id, after["view"])
