"""The OpenAPI document as a client author uses it, against a real ``referee serve``:

- Redocly's ``recommended`` rules and Spectral's ``spectral:oas`` ruleset find no error;
- openapi-python-client generates a client, and ``python_bot.py`` plays a match of every game
  to its end with it, and nothing else;
- openapi-typescript generates ``api.d.ts``; ``bot.ts`` (openapi-fetch over it) type-checks
  with ``tsc --strict`` and plays a match of every game to its end.

What the types promise (narrowing, misspellings refused, decoding) is tested beside this, in
test_typescript_types.py and test_python_types.py.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.clients.conftest import HERE, succeed, tsc
from tests.support.servers import clean_env

GAMES = {"esploratore", "halunken-und-spelunken", "isola-dei-vulcani", "the-game", "viaggio-al-centro-della-terra"}


def test_redocly_recommended_rules_pass(node_tools: Path, spec_file: Path) -> None:
    succeed([str(node_tools / "redocly"), "lint", "--extends", "recommended", str(spec_file)], spec_file.parent)


def test_spectral_oas_ruleset_passes(node_tools: Path, spec_file: Path) -> None:
    ruleset = spec_file.parent / ".spectral.json"
    ruleset.write_text(json.dumps({"extends": ["spectral:oas"]}))
    succeed(
        [str(node_tools / "spectral"), "lint", "--fail-severity", "error", "--ruleset", str(ruleset), str(spec_file)],
        spec_file.parent,
    )


def played(output: str) -> list[dict[str, object]]:
    """The JSON line a bot printed for each match it finished."""
    return [json.loads(line) for line in output.splitlines() if line.startswith("{")]


def test_a_generated_python_client_plays_every_game(python_client: Path, base_url: str) -> None:
    env = clean_env(PYTHONPATH=str(python_client))
    output = succeed([sys.executable, str(HERE / "python_bot.py"), base_url], python_client, env=env)
    assert sorted(match["game"] for match in played(output)) == sorted(GAMES)


def test_a_generated_typescript_client_type_checks_and_plays_every_game(
    node_tools: Path, typescript_client: Path, base_url: str
) -> None:
    shutil.copy(HERE / "bot.ts", typescript_client / "bot.ts")
    checked = tsc(node_tools, typescript_client, "bot.ts")
    assert checked.returncode == 0, checked.stdout[-4000:]
    output = succeed([str(node_tools / "tsx"), "bot.ts", base_url], typescript_client)
    matches = played(output)
    assert sorted(match["game"] for match in matches) == sorted(GAMES)
    assert all(match["replayed"] == match["moves"] for match in matches), matches
