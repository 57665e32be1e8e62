"""The boards of Viaggio al centro della terra, built once from ``seeds/.../board.json``.

Both movement boards (the descent of phase 1 and the sea of phase 2) are grids seen along a
*depth* axis (down, resp. towards the far shore) and a *lateral* axis (sideways). A step goes
forward (depth + 1) or sideways (same depth, lateral ± 1); with a compass it may go one
forward diagonal. ``start`` lies before depth 0, ``end`` after the deepest row/column and is
entered by a forward step from any cell of the deepest line.
"""

from __future__ import annotations

from typing import Any

BLOCKING = frozenset({"chasm", "whirlpool"})


def _parse(code: str, symbols: dict[str, str]) -> dict[str, Any]:
    if code == ".":
        return {"kind": "plain"}
    if code == "C":
        return {"kind": "chasm"}
    if code == "W":
        return {"kind": "whirlpool"}
    if code == "H":
        return {"kind": "spring"}
    if code == "?":
        return {"kind": "event"}
    if code in ("R2", "R3"):
        return {"kind": "rocks", "rocks": int(code[1])}
    if code.startswith("D:"):
        return {"kind": "discovery", "symbols": [symbols[ch] for ch in code[2:]]}
    raise ValueError(f"unknown cell code {code!r}")


class Board:
    """One movement board: cells by id with depth/lateral/kind, and neighbour lists."""

    def __init__(self, spec: dict[str, Any], symbols: dict[str, str]) -> None:
        columns_are_depth = bool(spec.get("columns_are_depth"))
        self.rows: list[list[str]] = spec["rows"]
        self.cells: dict[str, dict[str, Any]] = {}
        by_pos: dict[tuple[int, int], str] = {}
        for r, row in enumerate(self.rows):
            for c, code in enumerate(row):
                if code == "#":
                    continue
                depth, lat = (c, r) if columns_are_depth else (r, c)
                cell = _parse(code, symbols)
                cell["depth"], cell["lateral"] = depth, lat
                cid = f"{r},{c}"
                self.cells[cid] = cell
                by_pos[(depth, lat)] = cid
        self.max_depth = max(cell["depth"] for cell in self.cells.values())
        start = spec["start"]
        self.cells["start"] = {"kind": "start", "depth": start["depth"], "lateral": start["lateral"]}
        self.cells["end"] = {"kind": "end", "depth": self.max_depth + 1, "lateral": None}
        self.ortho: dict[str, list[str]] = {"end": []}
        self.diag: dict[str, list[str]] = {"end": []}
        for cid, cell in self.cells.items():
            if cid == "end":
                continue
            d, lat = cell["depth"], cell["lateral"]
            ortho = [by_pos.get((d + 1, lat)), by_pos.get((d, lat - 1)), by_pos.get((d, lat + 1))]
            if cid == "start":
                ortho = ortho[:1]
            nbs = [n for n in ortho if n is not None]
            if d == self.max_depth:
                nbs.append("end")
            self.ortho[cid] = nbs
            self.diag[cid] = [n for n in (by_pos.get((d + 1, lat - 1)), by_pos.get((d + 1, lat + 1))) if n]

    def kind(self, cid: str) -> str:
        return self.cells[cid]["kind"]

    def depth(self, cid: str) -> int:
        return self.cells[cid]["depth"]

    def entry_cost(self, cid: str, pickaxe: bool) -> int:
        cell = self.cells[cid]
        if cell["kind"] == "rocks" and not pickaxe:
            return cell["rocks"]
        return 1
