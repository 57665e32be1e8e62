"""Every ``# type: ignore`` names the error it silences and says why: after it on its line, or
in a comment on the line just above (where the line would be too long).

mypy enforces the code (``enable_error_code = ["ignore-without-code"]`` in pyproject.toml) and
flags ignores it no longer needs (``warn_unused_ignores``); the reason is for the reader, and
only this test asks for it.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ("service", "schemas", "tools", "tests", "bench")

IGNORE = re.compile(r"#\s*type:\s*ignore\b(?P<code>\[[a-z0-9-, ]+\])?(?P<rest>.*)$")
REASON = re.compile(r"^\s*#\s*\S")


def ignores_without_a_reason(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` with an ignore that lacks a code, or a reason after it or in a
    comment line right above it."""
    found = []
    lines = text.splitlines()
    for number, line in enumerate(lines, 1):
        match = IGNORE.search(line)
        if match is None:
            continue
        above = lines[number - 2] if number >= 2 else ""
        reasoned = REASON.match(match["rest"]) or REASON.match(above)
        if match["code"] is None or not reasoned:
            found.append((number, line.strip()))
    return found


def test_every_type_ignore_names_its_code_and_a_reason() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for folder in CHECKED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "node_modules" not in path.parts and path != Path(__file__)  # this file quotes bad ones
        for number, line in ignores_without_a_reason(path.read_text())
    ]
    assert not found, (
        "add the error code and why, e.g. '# type: ignore[attr-defined]  # set by pre_fork':\n" + "\n".join(found)
    )


def test_the_check_tells_a_reason_from_none() -> None:
    assert ignores_without_a_reason("x = f()  # type: ignore[arg-type]  # may be None, refused below\n") == []
    assert ignores_without_a_reason("x = f()  # type: ignore[arg-type]\n") == [(1, "x = f()  # type: ignore[arg-type]")]
    assert ignores_without_a_reason("x = f()  # type: ignore  # no code\n") != []
    assert ignores_without_a_reason("text = 'type: ignore'\n") == []
    assert ignores_without_a_reason("# a stub's signature differs\ndef f():  # type: ignore[override]\n") == []
    assert ignores_without_a_reason("x = 1\ndef f():  # type: ignore[override]\n") == [
        (2, "def f():  # type: ignore[override]")
    ]
