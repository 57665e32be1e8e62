"""``pip install .`` (not editable), then ``referee serve`` from another directory: the wheel
must carry everything, game data included.

The wheel is built from a copy of the checkout (so no build/ or *.egg-info lands in it) and
installed with ``--no-deps`` into a fresh venv whose dependencies come from this test venv
through a ``.pth`` line: the referee itself is only the wheel's copy, and the test needs no
network. The server then runs from an empty directory, away from the checkout.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from service.games import games
from tests.support.http import MatchClient
from tests.support.servers import ROOT, clean_env, free_port, running


def source_copy(target: Path) -> Path:
    """The files git knows of (committed or not, minus ignored ones), copied to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def installed_venv(wheel: Path, venv: Path) -> Path:
    """A fresh venv holding the wheel, its dependencies taken from this venv; its bin folder."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
    )
    return venv / "bin"


def test_the_wheel_serves_every_game_from_another_directory(tmp_path: Path) -> None:
    source = source_copy(tmp_path / "source")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        check=True,
        capture_output=True,
    )
    (wheel,) = (tmp_path / "dist").glob("game_referee-*.whl")
    bin_dir = installed_venv(wheel, tmp_path / "venv")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import service.engine.seeds as s;print(s.__file__);print(s.seeds_dir())"],
        cwd=elsewhere,
        env=clean_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(tmp_path / "venv")) for path in where), where

    port = free_port()
    command = [str(bin_dir / "referee"), "serve", "--port", str(port)]
    with running(command, clean_env(REFEREE_ACCESS_LOG="0"), port, cwd=elsewhere) as server:
        assert server.client.get("/readyz").get_json()["games"] == "ok"
        assert {g["id"] for g in server.client.get("/v1/games").get_json()["games"]} == set(games())
        for game in games().values():
            MatchClient.create(server.client, game.id, game.min_players)
        final = MatchClient.create(server.client, "the-game", 2).play_to_end(random.Random(7))
        assert final["status"] == "finished"
        assert server.client.get("/").status_code == 200
        for page_file in ("watch.js", "site.css", "shell/live.js", "games/the-game.js"):
            assert server.client.get(f"/static/{page_file}").status_code == 200, page_file
