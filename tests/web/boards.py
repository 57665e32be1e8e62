"""What the drawings of Viaggio, L'isola dei vulcani and Esploratore must show for a view.

``expected(game_id, view)`` maps CSS attribute selectors (``[data-kind="hex"]``) to how many
drawn elements must match them, read straight from the view: the Node tests count them in
the SVG text, the browser tests in the page. ``moments`` plays seeded bot matches in process
and keeps the views of a few moments (start, middle, end) with the seat's legal actions and
every move as a history entry.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from xml.etree import ElementTree

from service.bots.registry import make_bot
from service.engine import load_seed
from service.games import games
from tests.support.playout import play_out

BOARD_GAMES = ("viaggio-al-centro-della-terra", "isola-dei-vulcani", "esploratore")
"""The games drawn by the modules these helpers check."""


@dataclass
class Moment:
    """One point of a match: the spectator's view, and one seat's view with its legal actions."""

    label: str
    spectator: dict[str, Any]
    seat: int
    seat_view: dict[str, Any]
    legal: list[dict[str, Any]]


@dataclass
class Recording:
    """A seeded match seen at a few moments, with every move as a history entry."""

    game_id: str
    moments: list[Moment] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)
    outcome: dict[str, Any] | None = None


def record(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None, points: int = 5) -> Recording:
    """Play a heuristic-bot match and keep ``points`` moments spread from start to end."""
    game = games()[game_id]
    seen: list[tuple[dict[str, Any], int, list[dict[str, Any]]]] = []
    recording = Recording(game_id)

    def on_move(state, seat, legal, action, events) -> None:
        seen.append((state, seat, legal))
        recording.entries.append(
            {
                "version": len(recording.entries) + 1,
                "seat": seat,
                "action": action,
                "events": events,
                "kind": "move",
                "at": "2026-01-01T00:00:00Z",
            }
        )

    played = play_out(game, [make_bot(game_id, "heuristic") for _ in range(players)], seed, options, on_move=on_move)
    recording.outcome = dict(played.outcome)
    picks = sorted({round(i * (len(seen) - 1) / (points - 1)) for i in range(points - 1)})
    for i in picks:
        state, seat, legal = seen[i]
        recording.moments.append(
            Moment(f"move {i}", _json(game.view(state, None)), seat, _json(game.view(state, seat)), legal)
        )
    final = played.state
    recording.moments.append(Moment("end", _json(game.view(final, None)), 0, _json(game.view(final, 0)), []))
    return recording


def _json(value: Any) -> Any:
    """As a client gets it over HTTP."""
    return json.loads(json.dumps(value))


# -- expectations -------------------------------------------------------------------------------


def _sel(kind: str, **attributes: Any) -> str:
    return f'[data-kind="{kind}"]' + "".join(f'[data-{k.replace("_", "-")}="{v}"]' for k, v in attributes.items())


def expected(game_id: str, view: dict[str, Any]) -> dict[str, int]:
    """Selector → number of drawn elements for ``view`` (a spectator's or a seat's)."""
    return {"viaggio-al-centro-della-terra": _viaggio, "isola-dei-vulcani": _isola, "esploratore": _esploratore}[
        game_id
    ](view)


def _viaggio(view: dict[str, Any]) -> dict[str, int]:
    board = load_seed("viaggio-al-centro-della-terra", "board")
    out = {
        _sel("cell", board="descent"): sum(len(row) for row in board["descent"]["rows"]),
        _sel("cell", board="sea"): sum(len(row) for row in board["sea"]["rows"]),
        _sel("lava-space"): len(board["lava"]["spaces"]),
        _sel("explorer"): sum(1 for where in view["explorers"].values() if where != "raft"),
        _sel("raft"): int(
            bool(view["phase"] == 2 and view["raft"]) or view["lava_position"] is not None or view["phase"] == 3
        ),
        _sel("deck"): len(view["deck_sizes"]),
        _sel("card", zone="display"): sum(1 for card in view["display"] if card),
        _sel("player"): len(view["players"]),
    }
    for colour, where in view["explorers"].items():
        if where != "raft":
            out[_sel("explorer", id=colour, at=where)] = 1
    for deck, size in view["deck_sizes"].items():
        out[_sel("deck", id=deck, count=size)] = 1
    for seat, player in enumerate(view["players"]):
        out[_sel("water", seat=seat, count=player["water"])] = 1
        for fossil, n in player["fossils"].items():
            out[_sel("fossil", seat=seat, id=fossil, count=n)] = 1
    if "hand" in view:
        for group in ("explorer", "equipment"):
            for card, n in view["hand"][group].items():
                out[_sel("hand-card", id=card, count=n)] = 1
    return out


def _isola(view: dict[str, Any]) -> dict[str, int]:
    hexes = view["hexes"]
    out = {
        _sel("hex"): len(hexes),
        _sel("sunk"): len(view["sunk"]),
        _sel("lava"): sum(1 for h in hexes.values() if h["lava"]),
        _sel("volcano"): len(view["volcanoes"]),
        _sel("crack"): len(view["cracks"]),
        _sel("crater"): len(view["geysers"]),
        _sel("moai", state="erected"): sum(1 for g in view["geysers"] if g["moai"] is not None),
        _sel("moai", state="lying"): sum(len(h["lying_moai"]) for h in hexes.values()),
        _sel("village"): sum(len(h["villages"]) for h in hexes.values()),
        _sel("colonist"): sum(1 for h in hexes.values() for n in h["colonists"] if n),
        _sel("player"): len(view["players_info"]),
    }
    for number, where in view["volcanoes"].items():
        out[_sel("volcano", id=number, hex=where)] = 1
    for k, h in hexes.items():
        for seat, n in enumerate(h["colonists"]):
            if n:
                out[_sel("colonist", hex=k, seat=seat, count=n)] = 1
        for seat, n in Counter(h["villages"]).items():
            out[_sel("village", hex=k, seat=seat)] = n
    for info in view["players_info"]:
        out[_sel("boat", seat=info["seat"], count=info["boat"])] = 1
    return out


def _esploratore(view: dict[str, Any]) -> dict[str, int]:
    tops = [p for p in view["positions"] if p["top"]]
    hand = view.get("hand") or []
    out = {
        _sel("position"): len(view["positions"]),
        _sel("card"): len(tops),
        _sel("pile"): len(view["positions"]) + 1,
        _sel("pile", id="reserve", count=view["reserve"]): 1,
        _sel("vehicle"): len(view["vehicles"]),
        _sel("meeting"): sum(len(p["top"]["meeting"]) for p in tops) + sum(len(c["meeting"]) for c in hand),
        _sel("orbit"): sum(len(p["top"]["lines"]) for p in tops) + sum(len(c["lines"]) for c in hand),
        _sel("player"): view["players"],
        _sel("hand-card"): len(hand),
    }
    for p in view["positions"]:
        out[_sel("pile", id=p["position"], count=p["pile"])] = 1
        out[_sel("stack", position=p["position"], count=len(p["stack"]))] = 1
        if p["top"]:
            out[_sel("card", position=p["position"], id=p["top"]["card"])] = 1
    for v in view["vehicles"]:
        out[_sel("vehicle", id=v["id"], seat=v["owner"], position=v["position"], line=v["line"])] = 1
    totals = view["score_sheet"]["totals"]
    for seat, row in enumerate(totals or []):
        if row is not None:
            for resource, n in zip(view["score_sheet"]["resources"], row, strict=True):
                out[_sel("total", seat=seat, id=resource, count=n)] = 1
    return out


# -- counting in SVG text ---------------------------------------------------------------------

_ATTRIBUTE = re.compile(r'\[([a-z-]+)="([^"]*)"\]')


def parse_svg(markup: str) -> ElementTree.Element:
    """The drawing as XML (which also checks that it is well formed)."""
    return ElementTree.fromstring(markup)


def count(root: ElementTree.Element, selector: str) -> int:
    """How many elements match a selector made of ``[name="value"]`` parts only."""
    wanted = _ATTRIBUTE.findall(selector)
    return sum(1 for node in root.iter() if all(node.get(name) == value for name, value in wanted))


def picks(root: ElementTree.Element) -> list[dict[str, Any]]:
    """Every ``data-pick`` partial action in the drawing."""
    return [json.loads(node.get("data-pick")) for node in root.iter() if node.get("data-pick")]
