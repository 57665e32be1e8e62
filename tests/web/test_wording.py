"""Counts in the drawings' words agree with their number: "1 card", "1 pt", "1 crack" (the
modules run under Node on views of real matches with one count set to 1)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from typing import Any

from service.engine import Rng
from service.engine.seeds import seeds_dir
from service.games import games
from tests.web.test_board_drawings import RENDER, STATIC, node


def start_view(game_id: str, players: int = 2) -> dict[str, Any]:
    game = games()[game_id]
    state = game.setup(players, game.resolve_options(players, {}), Rng("ab" * 32))
    return json.loads(json.dumps(game.view(state, None)))


def drawn(
    game_id: str, view: dict[str, Any], match: dict[str, Any], entries: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    cases = [{"view": view, "ctx": {"match": match, "seat": None, "legal": []}, "entries": list(entries)}]
    done = subprocess.run(
        [node(), str(RENDER), str(STATIC / f"{game_id}.js"), str(seeds_dir())],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout)[0]


def test_the_game_counts_one_card_in_the_singular() -> None:
    view = {**start_view("the-game"), "turn": 0, "starter_agreement": None, "cards_left": 1}
    ended = {"version": 9, "seat": 0, "kind": "move", "action": {"type": "end_turn"}}
    ended["events"] = [{"type": "turn_ended", "seat": 0, "laid": 1, "drew": 1}]
    playing = drawn("the-game", view, {"game": "the-game", "players": 2}, [ended])
    assert "1 card not laid yet." in playing["svg"] and "1 cards" not in playing["svg"]
    assert "after 1 card and drew 1." in playing["words"][0]
    over = drawn("the-game", {**view, "over": True, "reason": "stuck"}, {"game": "the-game", "players": 2})
    assert "1 card not laid." in over["svg"]


def test_isola_counts_one_point_and_one_crack_in_the_singular() -> None:
    view = start_view("isola-dei-vulcani")
    view["players_info"][0]["score"] = 1
    view["supply"]["cracks"] = 1
    view["supply"]["prayer"] = 1
    svg = drawn("isola-dei-vulcani", view, {"game": "isola-dei-vulcani", "players": 2})["svg"]
    assert ">1 pt<" in svg and "1 crack," in svg and "1 prayer token<" in svg
    assert "1 pts" not in svg and "1 cracks" not in svg


def test_viaggio_counts_one_point_in_the_singular() -> None:
    match = {"game": "viaggio-al-centro-della-terra", "players": 2, "outcome": {"scores": [1, 0], "ranks": [1, 2]}}
    svg = drawn("viaggio-al-centro-della-terra", start_view("viaggio-al-centro-della-terra"), match)["svg"]
    assert ">1 pt<" in svg and ">0 pts<" in svg
