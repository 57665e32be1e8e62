"""The OpenAPI document as a client author uses it.

The npm tools come from ``tests/clients/package-lock.json`` (``npm ci``; Node and npm from
Debian's packages, which ``.ci/run`` installs when missing). Against a real ``referee serve``:

- Redocly's ``recommended`` rules and Spectral's ``spectral:oas`` ruleset find no error;
- openapi-python-client generates a client, and ``python_bot.py`` plays a match of every game
  to its end with it, and nothing else;
- openapi-typescript generates ``api.d.ts``; ``bot.ts`` (openapi-fetch over it) type-checks
  with ``tsc --strict`` and plays a match of every game to its end.

Generated code goes to a temporary folder, never into the repository.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.server.cli import spec_bytes
from tests.support.servers import clean_env, free_port, running

HERE = Path(__file__).resolve().parent
NODE_BIN = HERE / "node_modules" / ".bin"
VENV_BIN = Path(sys.executable).parent
GAMES_PLAYED = 5


def run(command: list[str], cwd: Path, timeout: float = 180, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert result.returncode == 0, f"{command[0]} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def node_tools() -> Path:
    """The npm tools of package-lock.json, installed once (``npm ci``)."""
    if shutil.which("npm") is None:
        pytest.fail("npm is missing: apt-get install -y nodejs npm (.ci/run does it)")
    if not (NODE_BIN / "tsc").exists():
        run(["npm", "ci", "--no-audit", "--no-fund"], HERE, timeout=600)
    return NODE_BIN


@pytest.fixture(scope="module")
def spec_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "openapi.json"
    path.write_bytes(spec_bytes())
    return path


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    port = free_port()
    env = clean_env(REFEREE_ACCESS_LOG="0", REFEREE_RATE_LIMIT="1000000 per minute")
    with running([str(VENV_BIN / "referee"), "serve", "--port", str(port)], env, port):
        yield f"http://127.0.0.1:{port}"


def test_redocly_recommended_rules_pass(node_tools: Path, spec_file: Path) -> None:
    run([str(node_tools / "redocly"), "lint", "--extends", "recommended", str(spec_file)], spec_file.parent)


def test_spectral_oas_ruleset_passes(node_tools: Path, spec_file: Path) -> None:
    ruleset = spec_file.parent / ".spectral.json"
    ruleset.write_text(json.dumps({"extends": ["spectral:oas"]}))
    run(
        [str(node_tools / "spectral"), "lint", "--fail-severity", "error", "--ruleset", str(ruleset), str(spec_file)],
        spec_file.parent,
    )


def played(output: str) -> list[dict[str, object]]:
    matches = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert len(matches) == GAMES_PLAYED, output
    return matches


def test_a_generated_python_client_plays_every_game(spec_file: Path, base_url: str, tmp_path: Path) -> None:
    package = tmp_path / "game_referee_client"
    run(
        [
            str(VENV_BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(spec_file),
            "--output-path",
            str(package),
            "--meta",
            "none",
        ],
        tmp_path,
    )
    output = run(
        [sys.executable, str(HERE / "python_bot.py"), base_url], tmp_path, env=clean_env(PYTHONPATH=str(tmp_path))
    )
    assert {match["game"] for match in played(output)} == {
        "esploratore",
        "halunken-und-spelunken",
        "isola-dei-vulcani",
        "the-game",
        "viaggio-al-centro-della-terra",
    }


def test_a_generated_typescript_client_type_checks_and_plays_every_game(
    node_tools: Path,
    spec_file: Path,
    base_url: str,
    tmp_path: Path,
) -> None:
    (tmp_path / "node_modules").symlink_to(HERE / "node_modules")
    shutil.copy(HERE / "bot.ts", tmp_path / "bot.ts")
    run([str(node_tools / "openapi-typescript"), str(spec_file), "-o", str(tmp_path / "api.d.ts")], tmp_path)
    run(
        [
            str(node_tools / "tsc"),
            "--strict",
            "--noEmit",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--skipLibCheck",
            "bot.ts",
            "api.d.ts",
        ],
        tmp_path,
    )
    output = run([str(node_tools / "tsx"), "bot.ts", base_url], tmp_path)
    assert len(played(output)) == GAMES_PLAYED
