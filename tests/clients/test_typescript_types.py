"""What the TypeScript client generated from the document (openapi-typescript, with
openapi-fetch) promises a client author:

- a match narrows by ``game`` (its options and view are that game's), a replay by ``game`` and
  then each action by ``type``, with no cast: ``bot.ts`` does it and type-checks
  (test_generated_clients.py);
- the README's TypeScript snippet compiles;
- a misspelled game or action type, a field of another type, another game's options or an
  unnarrowed view do not compile: each file in ``typescript/`` fails ``tsc --strict`` exactly on
  the lines marked ``tsc rejects this line``, and nowhere else.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.clients.conftest import HERE, marked_lines, tsc
from tests.clients.test_python_types import readme_snippet

MUST_FAIL = sorted((HERE / "typescript").glob("*.ts"))
MARKER = "tsc rejects this line"


@pytest.mark.parametrize("source", MUST_FAIL, ids=lambda path: path.name)
def test_a_misspelled_client_does_not_compile(node_tools: Path, typescript_client: Path, source: Path) -> None:
    expected = marked_lines(source, MARKER)
    assert expected, f"{source.name} marks no line that tsc must reject"
    shutil.copy(source, typescript_client / source.name)
    checked = tsc(node_tools, typescript_client, source.name)
    assert checked.returncode != 0, f"tsc accepted {source.name}"
    rejected = {
        (name, int(line)) for name, line in re.findall(r"^([\w.]+)\((\d+),\d+\): error TS\d+", checked.stdout, re.M)
    }
    assert rejected == expected, checked.stdout[-4000:]


def test_the_readme_typescript_snippet_compiles(node_tools: Path, typescript_client: Path) -> None:
    (typescript_client / "readme.ts").write_text(readme_snippet("ts"))
    checked = tsc(node_tools, typescript_client, "readme.ts", module="esnext")
    assert checked.returncode == 0, checked.stdout[-4000:]


def test_the_generators_and_typescript_are_the_pinned_versions(node_tools: Path) -> None:
    """The types CI checks are those of these versions: openapi-typescript 7 crashes with the
    TypeScript 7 that an unpinned install takes."""
    pinned = json.loads((HERE / "package.json").read_text())["devDependencies"]
    for package in ("typescript", "openapi-typescript", "openapi-fetch"):
        installed = json.loads((HERE / "node_modules" / package / "package.json").read_text())["version"]
        assert installed == pinned[package], package
    assert pinned["typescript"].startswith("5.")
