"""The README as a newcomer follows it: the curl walkthrough runs as written against a real
``referee serve`` (its address in one variable), the listing example prints one cursor per
page, and the games are named as the catalogue and the pages name them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from service.games import games
from tests.support.servers import BIN, ROOT, clean_env, free_port, running

README = (ROOT / "README.md").read_text()
SHELL_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
BASE_LINE = re.compile(r"^BASE=(http://127\.0\.0\.1:(\d+))$", re.M)


@pytest.fixture
def store_kind() -> str:
    """One store is enough, and the embedded one lists only this test's matches."""
    return "embedded"


def section(title: str) -> str:
    """The README's lines from the heading ``title`` to the next heading of any level (a
    ``#`` line inside a code block is a shell comment, not a heading)."""
    lines, inside, code = [], False, False
    for line in README.splitlines(keepends=True):
        if line.startswith("```"):
            code = not code
        elif not code and re.match(r"#{1,6} ", line):
            if inside:
                break
            inside = line.rstrip("\n") == title
        if inside:
            lines.append(line)
    assert lines, title
    return "".join(lines)


def test_the_examples_write_the_base_url_once() -> None:
    """Every shell example reaches the service through ``$BASE``, set once (the compose block
    talks to its own nginx, and the gunicorn block's comments say where it listens)."""
    blocks = SHELL_BLOCK.findall(README.replace(section("### Docker compose"), ""))
    literal = [
        line
        for block in blocks
        for line in block.splitlines()
        if re.search(r"localhost:\d|https?://(127\.0\.0\.1|localhost)", line)
    ]
    assert literal == ["BASE=http://127.0.0.1:8000"]
    curls = [line for block in blocks for line in block.splitlines() if re.match(r"\s*(\S+=\$\()?curl ", line)]
    assert len(curls) > 15 and all("$BASE/" in line for line in curls), [c for c in curls if "$BASE/" not in c]


def test_the_curl_walkthrough_runs_as_written(tmp_path: Path) -> None:
    """The block of "A match with curl", pasted into bash with only ``BASE`` pointing at a
    server on a free port."""
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")
    (block,) = SHELL_BLOCK.findall(section("## A match with curl"))
    port = free_port()
    script = BASE_LINE.sub(f"BASE=http://127.0.0.1:{port}", block)
    assert script != block
    with running([str(BIN / "referee"), "serve", "--port", str(port)], clean_env(REFEREE_ACCESS_LOG="0"), port):
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line]  # answers end in a newline, then `echo`
    assert json.loads(lines[0]) == {"type": "propose_starter", "seat": 0}  # echo "$ACTION"
    assert json.loads(lines[1])["legal"] is True  # validate
    assert lines[2].startswith("1 [1] ")  # the new version, who acts next
    assert json.loads(lines[3])["code"] == "stale_state_token"  # the old token, refused
    assert lines[4] == 'seat 1 plays {"type": "accept_starter"}' and lines[5].startswith('seat 0 plays {"type": "play"')
    assert json.loads(lines[6])["view"]["hand_counts"] and "hand" not in json.loads(lines[6])["view"]
    assert json.loads(lines[7])["total"] == 3


def test_the_listing_example_prints_each_match_then_the_cursor_once(client: FlaskClient) -> None:
    if not shutil.which("jq"):
        pytest.skip("jq is not installed")
    (block,) = SHELL_BLOCK.findall(section("### Finding matches"))
    (program,) = re.findall(r"jq -r '(.*)'", block)
    made = [client.post("/v1/matches", json={"game": "the-game", "players": 2}).get_json() for _ in range(3)]
    page = client.get("/v1/matches?game=the-game&status=active&limit=2").get_json()
    done = subprocess.run(
        ["jq", "-r", program], input=json.dumps(page), capture_output=True, text=True, timeout=30, check=True
    )
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines[:2]] == [made[2]["match_id"], made[1]["match_id"]]
    assert lines[2:] == [f"next: {page['next_cursor']}"] and page["next_cursor"]


def test_the_games_are_named_as_the_catalogue_names_them(client: FlaskClient) -> None:
    """The README's table and pictures, the catalogue and the landing page spell each game
    alike."""
    table = section("## Games")
    rows = re.findall(r"^\| `([a-z-]+)` \| ([^|]+?) \|", table, re.M)
    titles = {game_id: game.title for game_id, game in games().items()}
    assert dict(rows) == titles
    pictures = section("## Watching and playing in a browser")
    for game_id, title in titles.items():
        assert f"![{title}](docs/img/{game_id}.png)" in pictures, title
    landing = client.get("/").get_data(as_text=True)
    for title in titles.values():
        assert f">{title.replace(chr(39), '&#39;')}</option>" in landing, title
