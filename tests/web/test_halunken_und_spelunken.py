"""Halunken und Spelunken's board in the browser: the ring of taverns, the captains, Black
Jack, the harbour and every seat's pirate cards drawn as the view says, at the start, in the
middle and at the end (where the scores drawn are the outcome's); a seat places its captain by
clicking a space."""

from __future__ import annotations

import random
from collections import defaultdict
from typing import Any

import pytest

from tests.support.browser import WatchPage
from tests.support.http import MatchClient, WireClient

pytestmark = pytest.mark.browser

GAME = "halunken-und-spelunken"
SEED = "4a" * 32


def by_seat(drawn: list[dict[str, Any]]) -> dict[int, list[Any]]:
    seats: dict[int, list[Any]] = defaultdict(list)
    for thing in drawn:
        seats[thing["seat"]].append(thing["id"])
    return dict(seats)


def assert_drawn_as(watch: WatchPage, view: dict[str, Any]) -> None:
    taverns = sorted((t["space"], t["count"], t.get("top")) for t in watch.drawn("tavern"))
    assert taverns == [(t["space"], t["cards"], t["top"]) for t in view["taverns"]]
    captains = {c["seat"]: c["space"] for c in watch.drawn("captain")}
    assert captains == {seat: space for seat, space in enumerate(view["captains"]) if space is not None}
    black_jack = [b["space"] for b in watch.drawn("black-jack")]
    assert black_jack == ([] if view["black_jack"] is None else [view["black_jack"]])
    assert [c["id"] for c in watch.drawn("harbour-card")] == view["harbour"]
    taken = by_seat(watch.drawn("pirate-card"))
    assert {seat: taken.get(seat, []) for seat in range(view["players"])} == dict(enumerate(view["collections"]))
    played = by_seat(watch.drawn("movement-card"))
    assert {seat: played.get(seat, []) for seat in range(view["players"])} == dict(enumerate(view["played"]))
    assert [c["id"] for c in watch.drawn("card")] == view.get("hand", [])


@pytest.mark.parametrize(("players", "moves"), [(3, 0), (4, 40), (2, 10_000)], ids=["start", "middle", "end"])
def test_the_board_shows_the_view(api: WireClient, watch: WatchPage, players: int, moves: int) -> None:
    match = MatchClient.create(api, GAME, players, seed=SEED)
    spectator = match.play(random.Random(players), moves)
    watch.open(match.created["match_id"])
    assert_drawn_as(watch, spectator["view"])

    watch.open(match.created["match_id"], match.tokens[1])
    assert_drawn_as(watch, match.get(1)["view"])
    if spectator["status"] == "finished":
        scores = [s["score"] for s in sorted(watch.drawn("seat"), key=lambda s: s["seat"])]
        assert scores == spectator["outcome"]["scores"]
        assert watch.text("#outcome .seed") == spectator["seed"]


def test_a_seat_places_its_captain_by_clicking_a_space(api: WireClient, watch: WatchPage) -> None:
    match = MatchClient.create(api, GAME, 3, seed=SEED)
    watch.open(match.created["match_id"], match.tokens[0])
    watch.page.wait_for_selector("#board [data-kind=space][data-id='4'].pickable")
    watch.click("space", id=4)
    watch.wait_for_version(1)
    assert match.get()["view"]["captains"][0] == 4
    assert [c["space"] for c in watch.drawn("captain")] == [4]
    assert watch.moves(1)[0].startswith("Seat 0 placed its captain at space 4 and took ")
