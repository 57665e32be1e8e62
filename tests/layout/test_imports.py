"""The layout holds: every import in service/ runs down the layers or stays inside its part.

The parts, low to high (docs/architecture.md draws the same map): the engine contract, the
games, then what stores and plays them, the caches, the domain core (the modules directly in
``service/``), the ladders built on it, what runs beside requests (live feeds, replays), the HTTP edge, what is built
on the edge (pages, the arena), the bots' side of bot accounts, built on the arena (botkit),
and the server that starts it all. ``service/__init__.py`` only defers to the server's app
factory, lazily, and is not a part.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SERVICE = Path(__file__).resolve().parents[2] / "service"

LAYERS: list[set[str]] = [
    {"engine"},
    {"games"},
    {"bots", "codec", "store"},
    {"cache"},
    {"core"},
    {"ladders"},
    {"live", "replay"},
    {"api"},
    {"web", "arena"},
    {"botkit"},
    {"server"},
]
"""The parts of ``service``, lowest first; ``core`` is the modules directly in service/."""

CORE_ORDER = [
    "clock",
    "tokens",
    "errors",
    "match",
    "answers",
    "house",
    "listing",
    "referee",
    "accounts",
    "challenges",
]
"""The domain core's modules, each importing only those before it."""

LAYER_OF = {part: depth for depth, parts in enumerate(LAYERS) for part in parts}


def part_of(module: str) -> str | None:
    """The part a ``service.…`` module belongs to (``None`` for other packages)."""
    names = module.split(".")
    if names[0] != "service" or len(names) == 1:
        return None
    return names[1] if names[1] in LAYER_OF else "core"


def imports_of(path: Path) -> list[tuple[str, int]]:
    """The ``service…`` modules a file imports (``from service import x`` as ``service.x``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "service":
                found += [(f"service.{alias.name}", node.lineno) for alias in node.names]
            else:
                found.append((node.module, node.lineno))
    return [(name, line) for name, line in found if name.split(".")[0] == "service"]


def service_files() -> list[Path]:
    return [p for p in sorted(SERVICE.rglob("*.py")) if p != SERVICE / "__init__.py"]


def module_name(path: Path) -> str:
    parts = path.relative_to(SERVICE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_runs_up_a_layer() -> None:
    upward = []
    for path in service_files():
        here = part_of(module_name(path))
        assert here is not None
        for imported, line in imports_of(path):
            there = part_of(imported)
            if there is not None and there != here and LAYER_OF[there] >= LAYER_OF[here]:
                upward.append(f"{path.relative_to(SERVICE.parent)}:{line} ({here}) imports {imported} ({there})")
    assert not upward, "imports that run up or across the layers:\n" + "\n".join(upward)


def test_the_core_modules_import_in_one_order() -> None:
    backwards = []
    for path in sorted(SERVICE.glob("*.py")):
        if path.stem == "__init__":
            continue
        assert path.stem in CORE_ORDER, f"service/{path.name} is not placed in CORE_ORDER (nor in a package)"
        for imported, line in imports_of(path):
            names = imported.split(".")
            if part_of(imported) == "core" and len(names) == 2:
                if CORE_ORDER.index(names[1]) >= CORE_ORDER.index(path.stem):
                    backwards.append(f"service/{path.name}:{line} imports {imported}")
    assert not backwards, "\n".join(backwards)


@pytest.mark.parametrize("part", ["engine", "games", "bots", "codec", "store", "cache", "core", "live", "replay"])
def test_below_the_http_edge_nothing_imports_flask(part: str) -> None:
    offenders = []
    for path in service_files():
        if part_of(module_name(path)) != part:
            continue
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n.split(".")[0] in {"flask", "flask_smorest", "werkzeug"} for n in names):
                offenders.append(f"{path.relative_to(SERVICE.parent)}:{node.lineno}")
    assert not offenders, offenders


def test_the_tools_that_build_data_live_outside_the_runtime_packages() -> None:
    assert not list(SERVICE.rglob("build*.py")), "data-building tools belong in tools/"
