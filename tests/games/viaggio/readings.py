"""Small readings of a Viaggio state shared by the rule tests."""

from __future__ import annotations

from typing import Any


def head(state: dict[str, Any]) -> dict[str, Any]:
    """The task the match waits on now (the first of its queue of tasks)."""
    return state["tasks"][0]
