"""The game catalogue: discoverable without reading our code."""

from __future__ import annotations

from service.games import games
from tests.support.http import PROBLEM_JSON


def test_lists_every_registered_game_with_players_options_and_action_schemas(client) -> None:
    body = client.get("/v1/games").get_json()
    assert [g["id"] for g in body["games"]] == list(games())
    for entry in body["games"]:
        assert 1 <= entry["min_players"] <= entry["max_players"]
        assert set(entry["action_types"]) == set(entry["action_schemas"])
        for name, schema in entry["action_schemas"].items():
            assert schema["properties"]["type"] == {"const": name}
        assert set(entry["options_schema"]["properties"]) == {o["name"] for o in entry["options"]}


def test_one_game_and_an_unknown_one(client) -> None:
    assert client.get("/v1/games/the-game").get_json()["id"] == "the-game"
    missing = client.get("/v1/games/chess")
    assert missing.status_code == 404
    assert missing.content_type == PROBLEM_JSON
    assert missing.get_json()["code"] == "unknown_game"


def test_the_landing_page_links_the_docs_the_catalogue_and_the_spec(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.content_type.startswith("text/html")
    text = page.data.decode()
    for link in ('href="/docs"', 'href="/v1/games"', 'href="/openapi.json"', 'href="/v1/games/the-game"'):
        assert link in text
    for target in ("/docs", "/v1/games", "/openapi.json", "/v1/games/the-game"):
        assert client.get(target).status_code == 200
