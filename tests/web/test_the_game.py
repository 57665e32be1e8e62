"""The Game's board in the browser: what is drawn matches the view at the start, in the middle
and at the end; a move made over the API appears without a reload; a person finishes a whole
solo match in seat mode by clicking cards and piles."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.support.browser import WatchPage
from tests.support.http import MatchClient, WireClient

pytestmark = pytest.mark.browser

SEED = "5e" * 32


def assert_drawn_as(watch: WatchPage, view: dict[str, Any]) -> None:
    piles = sorted(watch.drawn("pile"), key=lambda pile: pile["id"])
    assert [(p["id"], p["direction"], p["top"], p["count"]) for p in piles] == [
        (i, p["direction"], p["top"], p["count"]) for i, p in enumerate(view["piles"])
    ]
    assert [d["count"] for d in watch.drawn("draw-pile")] == [view["draw_pile"]]
    hands = {h["seat"]: h["count"] for h in watch.drawn("hand-count")}
    assert hands == dict(enumerate(view["hand_counts"]))
    assert sorted(card["id"] for card in watch.drawn("card")) == sorted(view.get("hand", []))


@pytest.mark.parametrize("moves", [0, 14, 10_000], ids=["start", "middle", "end"])
def test_the_board_shows_the_view_of_a_spectator_and_of_a_seat(api: WireClient, watch: WatchPage, moves: int) -> None:
    match = MatchClient.create(api, "the-game", 3, seed=SEED)
    spectator_view = match.play(random.Random(5), moves)
    assert (spectator_view["status"] == "finished") == (moves == 10_000)

    watch.open(match.created["match_id"])
    assert watch.version == spectator_view["version"]
    assert_drawn_as(watch, spectator_view["view"])
    watch.moves(spectator_view["version"])

    seat_view = match.get(1)
    watch.open(match.created["match_id"], match.tokens[1])
    assert_drawn_as(watch, seat_view["view"])
    assert watch.count("card") == len(seat_view["view"]["hand"]) > 0 or moves == 10_000
    if moves == 10_000:
        assert watch.text("#outcome .seed") == spectator_view["seed"]
        assert watch.page.is_hidden("#play")


def test_a_move_made_over_the_api_appears_without_a_reload(api: WireClient, watch: WatchPage) -> None:
    match = MatchClient.create(api, "the-game", 2, seed=SEED)
    before = match.play(random.Random(1), 4)
    watch.open(match.created["match_id"])
    watch.page.evaluate("window.notReloaded = true")

    after = match.play(random.Random(2), 1)
    watch.wait_for_version(after["version"])
    assert watch.page.evaluate("window.notReloaded === true")
    assert after["version"] == before["version"] + 1
    assert_drawn_as(watch, after["view"])
    watch.moves(after["version"])


def test_a_person_finishes_a_solo_match_by_clicking(api: WireClient, watch: WatchPage) -> None:
    match = MatchClient.create(api, "the-game", 1, seed=SEED)
    watch.open(match.created["match_id"], match.tokens[0])
    rng = random.Random(11)
    while watch.page.get_attribute("body", "data-status") == "active":
        watch.page.wait_for_selector("#play:not([hidden]) button.choice")
        version = watch.version
        choices = watch.choices()
        plays = [a for a in choices if a["type"] == "play"]
        if plays:
            card = rng.choice(plays)["card"]
            piles = [a["pile"] for a in plays if a["card"] == card]
            watch.click("card", id=card)
            if len(piles) > 1:  # the card fits several piles: the pile decides
                watch.click("pile", id=rng.choice(piles))
        else:
            watch.choose({"type": "end_turn"})
        watch.wait_for_version(version + 1)

    final = match.get()
    assert final["status"] == "finished"
    watch.wait_for_status("finished")
    assert watch.text("#outcome .seed") == final["seed"]
    assert_drawn_as(watch, match.get(0)["view"])
    watch.moves(final["version"])
    assert watch.page.is_hidden("#problem")
