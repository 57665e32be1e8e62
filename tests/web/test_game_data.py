"""``/seeds/<game>/<name>.json``: the games' data files the drawing modules read."""

from __future__ import annotations

import orjson
import pytest

from service.engine import load_seed

pytestmark = pytest.mark.parametrize("store_kind", ["embedded"], indirect=True)


def test_a_data_file_is_the_seed_the_engine_reads(client) -> None:
    answer = client.get("/seeds/viaggio-al-centro-della-terra/board.json")
    assert answer.status_code == 200
    assert answer.mimetype == "application/json"
    assert orjson.loads(answer.data) == load_seed("viaggio-al-centro-della-terra", "board")
    again = client.get(
        "/seeds/viaggio-al-centro-della-terra/board.json", headers={"If-None-Match": answer.headers["ETag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize(
    "path",
    [
        "/seeds/no-such-game/board.json",
        "/seeds/viaggio-al-centro-della-terra/no_such_file.json",
        "/seeds/viaggio-al-centro-della-terra/..%2F..%2Fpyproject.json",
        "/seeds/viaggio-al-centro-della-terra/Board.json",
    ],
)
def test_anything_else_is_not_found(client, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.mimetype == "application/problem+json"
    assert answer.get_json()["code"] == "not_found"
