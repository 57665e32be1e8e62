"""Hex geometry, the standard map and the advanced-set-up map generator of L'Isola dei Vulcani.

Hexes use axial coordinates ``(q, r)``; in the state a hex is the string ``"q,r"``. The six
directions, numbered 0–5, are E, NE, NW, W, SW, SE (``DIRS``). An edge between two hexes is
the string ``"a|b"`` with the two hex keys in sorted order.

All data (tile shapes, volcanoes, the standard map with its craters and landing bay) comes
from ``seeds/isola-dei-vulcani/``; this module only turns it into placed hexes. Where the
craters of a generated map go is decided in ``faults``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from service.engine import Rng, load_seed

GAME_ID = "isola-dei-vulcani"
DIRS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def key(q: int, r: int) -> str:
    return f"{q},{r}"


def parse(k: str) -> tuple[int, int]:
    q, r = k.split(",")
    return int(q), int(r)


def step(k: str, d: int, n: int = 1) -> str:
    q, r = parse(k)
    dq, dr = DIRS[d]
    return key(q + dq * n, r + dr * n)


@lru_cache(maxsize=8192)
def neighbours(k: str) -> tuple[str, ...]:
    """The six hexes around ``k`` in direction order (cached: hex keys repeat a lot)."""
    q, r = parse(k)
    return tuple(key(q + dq, r + dr) for dq, dr in DIRS)


def edge(a: str, b: str) -> str:
    return f"{a}|{b}" if a < b else f"{b}|{a}"


def distance(a: str, b: str) -> int:
    (aq, ar), (bq, br) = parse(a), parse(b)
    dq, dr = aq - bq, ar - br
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def rotate(q: int, r: int, k: int) -> tuple[int, int]:
    """Rotate an axial vector by ``k`` sixth-turns (clockwise on screen)."""
    for _ in range(k % 6):
        q, r = -r, q + r
    return q, r


def rotate_dir(d: int, k: int) -> int:
    return DIRS.index(rotate(*DIRS[d], k))


def tiles() -> dict[int, dict[str, Any]]:
    return {t["id"]: t for t in load_seed(GAME_ID, "tiles")["tiles"]}


def place(tile: dict[str, Any], at: tuple[int, int], rotation: int) -> list[tuple[int, int]]:
    """The board positions of a tile's hexes with its first hex at ``at``."""
    return [(at[0] + dq, at[1] + dr) for dq, dr in (rotate(q, r, rotation) for q, r in tile["hexes"])]


def build_board(placements: list[dict[str, Any]], craters: list[dict[str, Any]]) -> dict[str, Any]:
    """Hexes, volcanoes and craters of a map given as tile placements and crater positions
    (``{"hex": "q,r", "dir": d}``; the map's, not the tiles': see ``faults``)."""
    data = tiles()
    hexes: dict[str, dict[str, Any]] = {}
    volcanoes: dict[str, str] = {}
    for p in placements:
        tile = data[p["tile"]]
        for i, (q, r) in enumerate(place(tile, tuple(p["at"]), p["rotation"])):
            k = key(q, r)
            is_volcano = tile["volcano"] == i
            hexes[k] = {"tile": tile["id"], "volcano": tile["id"] if is_volcano else None}
            if is_volcano:
                volcanoes[str(tile["id"])] = k
    geysers = [{"hex": c["hex"], "dir": c["dir"], "moai": None} for c in craters]
    geysers.sort(key=lambda g: (parse(g["hex"])[1], parse(g["hex"])[0], g["dir"]))
    return {"hexes": hexes, "volcanoes": volcanoes, "geysers": geysers}


def tile_of_hex(placements: list[dict[str, Any]]) -> dict[str, int]:
    """Every hex of a map as laid at set-up (sunk ones included), with its tile number."""
    return dict(_tile_of_hex(tuple((p["tile"], tuple(p["at"]), p["rotation"]) for p in placements)))


@lru_cache(maxsize=64)
def _tile_of_hex(placements: tuple[tuple[int, tuple[int, int], int], ...]) -> tuple[tuple[str, int], ...]:
    """Cached by map: a match asks at every view, with the same few placements."""
    data = tiles()
    return tuple((key(q, r), tile) for tile, at, rotation in placements for q, r in place(data[tile], at, rotation))


def standard_map() -> dict[str, Any]:
    data = load_seed(GAME_ID, "standard_map")
    return {
        "placements": data["placements"],
        "bay": [key(*h) for h in data["landing_bay"]],
        "craters": [{"hex": key(*c["hex"]), "dir": c["dir"]} for c in data["craters"]],
    }


# -- the advanced set-up ----------------------------------------------------------------------


def has_hole(land: set[tuple[int, int]]) -> bool:
    """Whether some sea hex is enclosed by land (not connected to the open sea)."""
    qs = [q for q, _ in land]
    rs = [r for _, r in land]
    q0, q1, r0, r1 = min(qs) - 1, max(qs) + 1, min(rs) - 1, max(rs) + 1
    start = (q0, r0)
    seen = {start}
    todo = [start]
    while todo:
        q, r = todo.pop()
        for dq, dr in DIRS:
            n = (q + dq, r + dr)
            if n in seen or n in land or not (q0 <= n[0] <= q1 and r0 <= n[1] <= r1):
                continue
            seen.add(n)
            todo.append(n)
    for q in range(q0, q1 + 1):
        for r in range(r0, r1 + 1):
            if (q, r) not in land and (q, r) not in seen:
                return True
    return False


def _adjacent(cells: list[tuple[int, int]], other: set[tuple[int, int]]) -> bool:
    return any((q + dq, r + dr) in other for q, r in cells for dq, dr in DIRS)


def _frontier(land: set[tuple[int, int]]) -> list[tuple[int, int]]:
    out = {(q + dq, r + dr) for q, r in land for dq, dr in DIRS} - land
    return sorted(out)


Cell = tuple[int, int]
Placing = tuple[Cell, int, list[Cell]]
"""Where a tile goes: its first hex, its rotation and the cells it covers."""


def _fits(tile: dict[str, Any], target: Cell, land: set[Cell]) -> list[Placing]:
    """Every (at, rotation, cells) placing the tile without overlap so that it covers ``target``."""
    out = []
    for rot in range(6):
        rel = [rotate(q, r, rot) for q, r in tile["hexes"]]
        for dq, dr in rel:
            at = (target[0] - dq, target[1] - dr)
            cells = [(at[0] + a, at[1] + b) for a, b in rel]
            if any(c in land for c in cells):
                continue
            out.append((at, rot, cells))
    return out


def _attach(
    rng: Rng, tile: dict[str, Any], land: set[Cell], to: set[Cell], groups: list[set[Cell]] | None = None
) -> Placing | None:
    """A random placement of ``tile`` touching ``to`` without overlapping ``land``.

    With ``groups`` (cells of placed tiles), placements touching two of them are preferred.
    """
    options: list[Placing] = []
    seen = set()
    for f in _frontier(to):
        if f in land:
            continue
        for at, rot, cells in _fits(tile, f, land):
            sig = tuple(sorted(cells))
            if sig in seen:
                continue
            seen.add(sig)
            options.append((at, rot, cells))
    if groups and len(groups) >= 2:
        better = [o for o in options if sum(1 for g in groups if _adjacent(o[2], g)) >= 2]
        options = better or options
    return rng.choice(options) if options else None


def generate_map(rng: Rng) -> list[dict[str, Any]] | None:
    """Random legal placements following the rulebook's three phases (advanced set-up), or
    ``None`` when this draw failed (a hole, a phase that could not be completed)."""
    data = tiles()
    placements: list[dict[str, Any]] = []
    land: set[tuple[int, int]] = set()
    cells_of: dict[int, list[tuple[int, int]]] = {}

    def put(t: int, at: Cell, rot: int, cells: list[Cell]) -> None:
        placements.append({"tile": t, "at": [at[0], at[1]], "rotation": rot})
        land.update(cells)
        cells_of[t] = cells

    # Phase 1: the five inner volcano tiles, a compact block without holes, each touching two.
    inner = [1, 2, 3, 4, 5]
    rng.shuffle(inner)
    first = data[inner[0]]
    rot = rng.below(6)
    put(inner[0], (0, 0), rot, place(first, (0, 0), rot))
    for t in inner[1:]:
        groups = [set(c) for c in cells_of.values()]
        choice = _attach(rng, data[t], land, set(land), groups)
        if choice is None:
            return None
        put(t, *choice)
    for t in inner:
        touching = sum(1 for o in inner if o != t and _adjacent(cells_of[t], set(cells_of[o])))
        if touching < 2:
            return None
    if has_hole(land):
        return None
    inner_cells = set(land)
    # Phase 2: the three coastal volcano tiles joined to the block.
    coastal = [6, 7, 8]
    rng.shuffle(coastal)
    for t in coastal:
        choice = _attach(rng, data[t], land, inner_cells)
        if choice is None:
            return None
        put(t, *choice)
    # Phase 3: outer tiles until no inner (straight-edged) hex borders the sea.
    rest = list(range(9, 23))
    rng.shuffle(rest)
    while True:
        exposed = sorted({(q + dq, r + dr) for q, r in inner_cells for dq, dr in DIRS} - land)
        if not exposed:
            break
        target = rng.choice(exposed)
        options = [(t, fit) for t in rest for fit in _fits(data[t], target, land)]
        if not options:
            return None
        t, (at, rot, cells) = rng.choice(options)
        rest.remove(t)
        put(t, at, rot, cells)
    if has_hole(land):
        return None
    # Coastal volcano tiles must keep a coast.
    for t in coastal:
        if not any((q + dq, r + dr) not in land for q, r in cells_of[t] for dq, dr in DIRS):
            return None
    return placements


def coast_hexes(hexes: dict[str, Any]) -> list[str]:
    """Land hexes (not volcanoes) with at least one sea neighbour."""
    return sorted(k for k, h in hexes.items() if h["volcano"] is None and any(n not in hexes for n in neighbours(k)))


def choose_bays(hexes: dict[str, Any], players: int, rng: Rng) -> list[list[str]]:
    """One landing bay per player, spread around the coast (advanced set-up).

    A bay is a coastal hex and up to two coastal neighbours of it; centres are chosen one at a
    time, each as far as possible from those already chosen (random among the farthest).
    """
    coast = coast_hexes(hexes)
    coast_set = set(coast)
    centres = [rng.choice(coast)]
    while len(centres) < players:
        best = -1
        cands: list[str] = []
        for c in coast:
            if c in centres:
                continue
            d = min(distance(c, o) for o in centres)
            if d > best:
                best, cands = d, [c]
            elif d == best:
                cands.append(c)
        centres.append(rng.choice(cands))
    bays = []
    for c in centres:
        near = [n for n in neighbours(c) if n in coast_set][:2]
        bays.append(sorted([c, *near]))
    return bays


def render(hexes: dict[str, Any], label: Callable[[str, dict[str, Any]], str] | None = None) -> str:
    """An ASCII drawing of a map (pointy-top hexes, each row shifted half a hex).

    ``label(key, hex)`` gives each hex's 2-character text (default: ``Vn`` for volcano n,
    else the tile number).
    """

    def default(k: str, h: dict[str, Any]) -> str:
        return f"V{h['volcano']}" if h["volcano"] is not None else f"{h['tile']:02d}"

    label = label or default
    cells = {parse(k): k for k in hexes}
    xs = [2 * q + r for q, r in cells]
    rs = [r for _, r in cells]
    x0 = min(xs)
    lines = []
    for r in range(min(rs), max(rs) + 1):
        row = [" "] * (2 * (max(xs) - x0) + 4)
        for (q, rr), k in cells.items():
            if rr != r:
                continue
            x = 2 * (2 * q + r - x0)
            text = label(k, hexes[k])
            row[x : x + 2] = list(text[:2].rjust(2))
        lines.append(f"r={r:<2} " + "".join(row).rstrip())
    return "\n".join(lines)
