"""Fault lines: where the craters go so that the island can break apart.

The rulebook's only end is "two volcanoes or fewer after a sinking", and cracks form only on
the edges that craters face. So the craters decide whether that end can ever come. Every map
here (the standard one and every generated one) keeps one invariant:

    with every crater-facing edge cracked, no part of the island holds more than
    ``MAX_VOLCANOES_PER_PART`` (2) volcanoes, and there are no more such edges than crack tiles.

Whatever order the cracks come in, the smaller part sinks at each cut, so once every fault edge
is cracked at most two volcanoes are left: the rulebook's end is always reachable, and the
crack supply can never run out before it.

:func:`design_craters` draws the fault lines of a map: it splits the island into four cells of
two volcanoes each, choosing among every pairing of the volcanoes the split with the shortest
boundary, then puts a crater on each side of every boundary edge that is not a volcano hex.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from service.engine import Rng
from service.games.isola_dei_vulcani import board as B

MAX_VOLCANOES_PER_PART = 2


def fault_edges(land: Iterable[str], craters: Iterable[dict[str, Any]]) -> set[str]:
    """The edges between two land hexes that some crater faces (where cracks can form)."""
    landset = set(land)
    out = set()
    for c in craters:
        other = B.step(c["hex"], c["dir"])
        if other in landset:
            out.add(B.edge(c["hex"], other))
    return out


def parts(land: Iterable[str], cracked: set[str]) -> list[set[str]]:
    """The parts of the island: hexes joined across edges that are not cracked."""
    left = set(land)
    out = []
    while left:
        start = left.pop()
        part = {start}
        todo = [start]
        while todo:
            k = todo.pop()
            for n in B.neighbours(k):
                if n in left and B.edge(k, n) not in cracked:
                    left.discard(n)
                    part.add(n)
                    todo.append(n)
        out.append(part)
    return out


def breaks_apart(hexes: dict[str, Any], craters: list[dict[str, Any]], crack_tiles: int) -> bool:
    """The invariant of the module docstring, for a map given as ``hexes`` (each with a
    ``volcano`` field) and its ``craters``."""
    faults = fault_edges(hexes, craters)
    if len(faults) > crack_tiles:
        return False
    return all(
        sum(1 for k in part if hexes[k]["volcano"] is not None) <= MAX_VOLCANOES_PER_PART
        for part in parts(hexes, faults)
    )


def _pairings(items: list[str]) -> Iterator[list[tuple[str, ...]]]:
    """Every way to split ``items`` into pairs (a single one left over when odd)."""
    if len(items) <= MAX_VOLCANOES_PER_PART:
        yield [tuple(items)] if items else []
        return
    first, rest = items[0], items[1:]
    for i, mate in enumerate(rest):
        for tail in _pairings(rest[:i] + rest[i + 1 :]):
            yield [(first, mate), *tail]


def _grow(land: list[str], cores: list[set[str]]) -> dict[str, int]:
    """Each hex to the cell whose core (its volcanoes) is nearest (breadth first; ties to the
    lower cell)."""
    cell = {k: i for i, core in enumerate(cores) for k in core}
    frontier = sorted(cell)
    landset = set(land)
    while frontier:
        reached: dict[str, int] = {}
        for k in frontier:
            for n in B.neighbours(k):
                if n in landset and n not in cell:
                    reached[n] = min(reached.get(n, cell[k]), cell[k])
        cell.update(reached)
        frontier = sorted(reached)
    return cell


def _boundary(cell: dict[str, int]) -> set[str]:
    return {B.edge(k, n) for k, c in cell.items() for n in B.neighbours(k) if n in cell and cell[n] != c}


def _smooth(cell: dict[str, int], movable: list[tuple[str, list[str]]]) -> None:
    """Move each ``movable`` hex (every one but the volcanoes, in key order, with its land
    neighbours) to the neighbouring cell most of its neighbours belong to (the lowest such
    cell on a tie) while that shortens the boundary."""
    improved = True
    while improved:
        improved = False
        for k, near in movable:
            counts: dict[int, int] = {}
            for n in near:
                counts[cell[n]] = counts.get(cell[n], 0) + 1
            most = max(counts.values())
            if most > counts.get(cell[k], 0):
                cell[k] = min(c for c, n in counts.items() if n == most)
                improved = True


def design_craters(hexes: dict[str, Any]) -> list[dict[str, Any]]:
    """Craters on the shortest fault lines that split the island into cells of two volcanoes.

    Every fault edge gets a crater on each side that is not a volcano hex; splits that need
    an edge between two volcano hexes (which could hold no crater) are skipped. Returns
    ``[]`` when no split is usable (the caller then redraws the map).
    """
    volcanoes = sorted(k for k, h in hexes.items() if h["volcano"] is not None)
    land = sorted(hexes)
    movable = [(k, [n for n in B.neighbours(k) if n in hexes]) for k in land if k not in volcanoes]
    best: list[str] | None = None
    for pairing in _pairings(volcanoes):
        cores = [set(group) for group in pairing]
        cell = _grow(land, cores)
        _smooth(cell, movable)
        edges = sorted(_boundary(cell))
        if any(all(hexes[k]["volcano"] is not None for k in e.split("|")) for e in edges):
            continue
        if best is None or len(edges) < len(best):
            best = edges
    if best is None:
        return []
    craters = []
    for e in best:
        a, b = e.split("|")
        for here, there in ((a, b), (b, a)):
            if hexes[here]["volcano"] is None:
                craters.append({"hex": here, "dir": B.neighbours(here).index(there)})
    return craters


def breakable_map(rng: Rng, crack_tiles: int, attempts: int = 400) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A generated map (advanced set-up) and its craters, keeping the module's invariant.

    Maps are drawn until one both follows the rulebook's placement phases and can be cut into
    cells of two volcanoes by at most ``crack_tiles`` cracks (about one draw in three can);
    after ``attempts`` failures (never observed) the standard map is used.
    """
    for _ in range(attempts):
        placements = B.generate_map(rng)
        if placements is None:
            continue
        hexes = B.build_board(placements, [])["hexes"]
        craters = design_craters(hexes)
        if craters and breaks_apart(hexes, craters, crack_tiles):
            return placements, craters
    standard = B.standard_map()
    return standard["placements"], standard["craters"]
