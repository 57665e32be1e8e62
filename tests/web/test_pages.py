"""The pages as served (no browser): their headers, and that nothing they load is fetched from
another site."""

from __future__ import annotations

import re
from pathlib import Path

import service.web

STATIC = Path(service.web.__file__).parent / "static"
TEMPLATES = Path(service.web.__file__).parent / "templates"
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


def test_the_watch_page_is_served_with_a_same_origin_policy(client) -> None:
    match_id = client.post("/v1/matches", json={"game": "the-game", "players": 2}).get_json()["match_id"]
    for address, status in ((f"/watch/{match_id}", 200), ("/watch/some-match", 404)):
        response = client.get(address)
        assert response.status_code == status
        assert response.content_type.startswith("text/html")
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy and "script-src 'self';" in policy
        assert response.headers["Referrer-Policy"] == "no-referrer"
        assert f'data-match-id="{address.removeprefix("/watch/")}"' in response.get_data(as_text=True)


def test_the_match_id_is_escaped_into_the_page(client) -> None:
    html = client.get("/watch/%22%3E%3Cscript%3Ex").get_data(as_text=True)
    assert "<script>x" not in html and "&#34;&gt;&lt;script&gt;x" in html


def test_static_files_are_served_with_their_types(client) -> None:
    assert client.get("/static/watch.js").content_type.startswith("text/javascript")
    assert client.get("/static/site.css").content_type.startswith("text/css")
    assert client.get("/static/games/the-game.js").status_code == 200


def test_no_page_loads_anything_from_another_site() -> None:
    files = [*STATIC.rglob("*.js"), *STATIC.rglob("*.css"), *TEMPLATES.glob("*.html")]
    assert files
    for path in files:
        text = path.read_text().replace(SVG_NAMESPACE, "")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.I), path


def test_every_drawn_game_shows_its_board_in_its_docs_page_and_the_readme() -> None:
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    games = sorted(path.stem for path in (STATIC / "games").glob("*.js"))
    assert "the-game" in games
    for game in games:
        assert (root / "docs" / "img" / f"{game}.png").stat().st_size > 5000, game
        assert f"(img/{game}.png)" in (root / "docs" / f"{game}.md").read_text(), game
        assert f"(docs/img/{game}.png)" in readme, game
