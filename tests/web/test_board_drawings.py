"""The drawing modules of Viaggio, L'isola dei vulcani and Esploratore, run under Node on the
views of seeded bot matches (start, middle, end; spectator and seat): each drawing is well
formed SVG, shows what the view holds (tests/web/boards.py), offers clicks only towards legal
actions, and every history entry gets a sentence. Fast: no server, no browser, one Node run
per game."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from service.engine.seeds import seeds_dir
from tests.web.boards import BOARD_GAMES, Moment, Recording, count, expected, parse_svg, picks, record

STATIC = Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "games"
RENDER = Path(__file__).with_name("render.mjs")

MATCHES = {
    "viaggio-al-centro-della-terra": [(3, 7, {}), (2, 11, {})],
    "isola-dei-vulcani": [(3, 7, {}), (4, 5, {"setup": "advanced"})],
    "esploratore": [(3, 7, {}), (4, 3, {"beginners": True, "upkeep": True})],
}
"""Per game: (players, seed, options) of the matches whose moments are drawn."""


@dataclass
class Drawn:
    """One moment drawn for one viewer."""

    moment: Moment
    view: dict[str, Any]
    legal: list[dict[str, Any]]
    svg: ElementTree.Element
    markup: str
    labels: list[str]


@dataclass
class Drawings:
    recordings: list[Recording]
    drawn: list[Drawn]
    words: list[str]


def node() -> str:
    found = shutil.which("node")
    if not found:
        pytest.fail("node is missing: apt-get install -y nodejs (.ci/run does it)")
    return found


@cache
def drawings(game_id: str) -> Drawings:
    """Every moment of the game's matches drawn for a spectator and for the seat to act,
    and the first match's history in words, from one Node run."""
    recordings = [record(game_id, players, seed, options) for players, seed, options in MATCHES[game_id]]
    cases, viewers = [], []
    for recording in recordings:
        match = {"outcome": recording.outcome}
        for moment in recording.moments:
            cases.append({"view": moment.spectator, "ctx": {"seat": None, "legal": [], "match": match}})
            cases.append(
                {"view": moment.seat_view, "ctx": {"seat": moment.seat, "legal": moment.legal, "match": match}}
            )
            viewers += [(moment, moment.spectator, []), (moment, moment.seat_view, moment.legal)]
    first = recordings[0].moments[0].spectator
    cases.append({"view": first, "ctx": {}, "entries": recordings[0].entries})
    done = subprocess.run(
        [node(), str(RENDER), str(STATIC / f"{game_id}.js"), str(seeds_dir())],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    *answers, in_words = json.loads(done.stdout)  # a drawing per viewer, then the history in words
    drawn = [
        Drawn(m, v, legal, parse_svg(a["svg"]), a["svg"], a["labels"])
        for (m, v, legal), a in zip(viewers, answers, strict=True)
    ]
    return Drawings(recordings, drawn, in_words["words"])


def contains(action: dict[str, Any], partial: dict[str, Any]) -> bool:
    return all(key in action and action[key] == value for key, value in partial.items())


@pytest.mark.parametrize("game_id", BOARD_GAMES)
def test_drawing_shows_what_the_view_holds(game_id: str) -> None:
    for d in drawings(game_id).drawn:
        assert "undefined" not in d.markup and "NaN" not in d.markup and "[object" not in d.markup, d.moment.label
        assert d.svg.get("viewBox") == "0 0 1280 860"
        wrong = {
            selector: (count(d.svg, selector), n)
            for selector, n in expected(game_id, d.view).items()
            if count(d.svg, selector) != n
        }
        assert not wrong, f"{d.moment.label}: drawn vs view {wrong}"


@pytest.mark.parametrize("game_id", BOARD_GAMES)
def test_clicks_lead_only_to_legal_actions(game_id: str) -> None:
    """Every ``data-pick`` is part of a legal action, and at almost every moment of a match
    the seat to act can click towards one of its moves."""
    seat_drawings = [d for d in drawings(game_id).drawn if d.legal]
    for d in seat_drawings:
        for partial in picks(d.svg):
            assert any(contains(action, partial) for action in d.legal), (d.moment.label, partial)
    clickable = [bool(picks(d.svg)) for d in seat_drawings]
    assert sum(clickable) >= len(clickable) - 1, clickable


def readable(words: str) -> bool:
    return bool(words) and not any(bad in words for bad in ("undefined", "NaN", "null", "[object"))


@pytest.mark.parametrize("game_id", BOARD_GAMES)
def test_every_history_entry_and_every_choice_has_words(game_id: str) -> None:
    found = drawings(game_id)
    entries = found.recordings[0].entries
    assert len(found.words) == len(entries)
    for entry, sentence in zip(entries, found.words, strict=True):
        assert sentence.startswith(f"Seat {entry['seat']}: ") and readable(sentence), (entry, sentence)
    for d in found.drawn:
        assert len(d.labels) == len(d.legal)
        for action, label in zip(d.legal, d.labels, strict=True):
            assert readable(label) and label[0].isupper(), (action, label)
        assert len(set(d.labels)) == len(d.labels), f"two choices read the same: {d.labels}"
