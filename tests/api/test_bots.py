"""Bot accounts through the WSGI app: registering, profiles, a bot's own account, keys, and
every bad input as a problem answer."""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import pytest

from service import create_app
from tests.support.http import clear_of_minute_end


@pytest.fixture(params=["embedded"])
def store_kind(request: pytest.FixtureRequest) -> str:
    return request.param


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def register(client: Any, name: str | None = None, **extra: Any) -> tuple[str, str]:
    name = name or "bot_" + secrets.token_hex(4)
    answer = client.post("/v1/bots", json={"name": name, **extra})
    assert answer.status_code == 201, answer.get_json()
    return name, answer.get_json()["key"]


def problem(answer: Any, status: int, code: str) -> dict[str, Any]:
    assert answer.status_code == status, answer.get_data(as_text=True)
    assert answer.mimetype == "application/problem+json"
    body = answer.get_json()
    assert body["code"] == code, body
    return body


def test_registering_answers_the_key_once_and_stores_only_its_hash(client, app) -> None:
    answer = client.post("/v1/bots", json={"name": "Alice", "description": "careful", "owner": "A. L."})
    assert answer.status_code == 201 and answer.headers["Cache-Control"] == "no-store"
    body = answer.get_json()
    assert body["key"].startswith("rbk_") and len(body["key"]) == 4 + 43
    assert {k: body[k] for k in ("name", "description", "owner")} == {
        "name": "Alice",
        "description": "careful",
        "owner": "A. L.",
    }
    row = app.extensions["accounts"].store.bot("alice")
    assert row.key_hash == hashlib.sha256(body["key"].encode()).hexdigest()
    assert body["key"].encode() not in row.record
    profile = client.get("/v1/bots/ALICE").get_json()
    assert "key" not in profile and profile == {
        "name": "Alice",
        "description": "careful",
        "owner": "A. L.",
        "created": body["created"],
        "online": False,
        "matches_played": 0,
        "faults": {},
        "ratings": [],
    }


def test_names_are_unique_without_regard_to_case(client) -> None:
    register(client, "Carol")
    problem(client.post("/v1/bots", json={"name": "cAROL"}), 409, "name_taken")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": "ab"},
        {"name": "a" * 33},
        {"name": "bad name"},
        {"name": "<script>"},
        {"name": 123},
        {"name": "okname", "description": "x" * 281},
        {"name": "okname", "owner": "x" * 65},
        {"name": "okname", "extra": 1},
    ],
)
def test_a_bad_registration_is_400(client, body: dict[str, Any]) -> None:
    problem(client.post("/v1/bots", json=body), 400, "invalid_body")


def test_the_own_account_needs_the_current_key(client) -> None:
    name, key = register(client)
    problem(client.get("/v1/bots/me"), 401, "authentication_required")
    problem(client.get("/v1/bots/me", headers=bearer("rbk_" + "x" * 43)), 401, "unknown_bot_key")
    problem(client.get("/v1/bots/me", headers=bearer("not-a-bot-key")), 401, "unknown_bot_key")
    problem(client.get("/v1/bots/me", headers={"Authorization": "Basic abc"}), 401, "bad_credentials")
    own = client.get("/v1/bots/me", headers=bearer(key))
    assert own.status_code == 200 and own.get_json()["name"] == name and own.get_json()["auto_accept"] is None


def test_rotating_the_key_kills_the_old_one_at_once(client) -> None:
    _, key = register(client)
    rotated = client.post("/v1/bots/me/key", headers=bearer(key))
    assert rotated.status_code == 200
    new_key = rotated.get_json()["key"]
    assert new_key != key and new_key.startswith("rbk_")
    problem(client.get("/v1/bots/me", headers=bearer(key)), 401, "unknown_bot_key")
    assert client.get("/v1/bots/me", headers=bearer(new_key)).status_code == 200


def test_retiring_kills_the_key_and_the_profile_and_keeps_the_name(client) -> None:
    name, key = register(client)
    assert client.delete("/v1/bots/me", headers=bearer(key)).status_code == 204
    problem(client.get("/v1/bots/me", headers=bearer(key)), 401, "unknown_bot_key")
    problem(client.get(f"/v1/bots/{name}"), 404, "unknown_bot")
    problem(client.post("/v1/bots", json={"name": name}), 409, "name_taken")
    assert name not in [b["name"] for b in client.get("/v1/bots").get_json()["bots"]]


def test_patch_sets_the_description_and_auto_accept_rules(client) -> None:
    _, key = register(client)
    rules = {"games": ["the-game"], "opponents": ["bob"], "time_controls": [{"per_decision_s": 5}]}
    patched = client.patch("/v1/bots/me", json={"description": "new", "auto_accept": rules}, headers=bearer(key))
    assert patched.status_code == 200
    assert patched.get_json()["description"] == "new" and patched.get_json()["auto_accept"] == rules
    cleared = client.patch("/v1/bots/me", json={"auto_accept": None}, headers=bearer(key))
    assert cleared.get_json()["auto_accept"] is None and cleared.get_json()["description"] == "new"
    for bad in (
        {"description": "x" * 281},
        {"auto_accept": {"games": "the-game"}},
        {"auto_accept": {"opponents": ["no such name!"]}},
        {"auto_accept": {"time_controls": [{"per_decision_s": "5"}]}},
        {"name": "renamed"},
    ):
        problem(client.patch("/v1/bots/me", json=bad, headers=bearer(key)), 400, "invalid_body")


def test_the_listing_pages_by_name(client) -> None:
    names = sorted(register(client, f"list{i}")[0] for i in range(3))
    listed = client.get("/v1/bots").get_json()
    assert [b["name"] for b in listed["bots"]] == names and listed["next_cursor"] is None
    assert client.get("/v1/bots?online=true").get_json()["bots"] == []
    problem(client.get("/v1/bots?cursor=%3Cx%3E"), 400, "invalid_body")
    problem(client.get("/v1/bots?online=maybe"), 400, "invalid_body")


def test_unknown_profiles_are_404(client) -> None:
    problem(client.get("/v1/bots/nobody"), 404, "unknown_bot")
    problem(client.get("/v1/bots/%3Cb%3E"), 404, "unknown_bot")


def test_with_an_admin_token_only_its_bearer_registers(app_config) -> None:
    client = create_app({**app_config, "REFEREE_ADMIN_TOKEN": "admin-token-0123456789"}).test_client()
    problem(client.post("/v1/bots", json={"name": "dave"}), 401, "admin_token_required")
    problem(client.post("/v1/bots", json={"name": "dave"}, headers=bearer("wrong")), 401, "admin_token_required")
    assert client.post("/v1/bots", json={"name": "dave"}, headers=bearer("admin-token-0123456789")).status_code == 201


def test_open_registration_is_limited_per_address_and_names_the_limit(app_config) -> None:
    client = create_app({**app_config, "REFEREE_REGISTER_LIMIT": "2 per hour"}).test_client()
    register(client)
    register(client)
    refused = problem(client.post("/v1/bots", json={"name": "third"}), 429, "rate_limited")
    assert refused["limit"] == "2 per 1 hour per address (register)"
    assert int(client.post("/v1/bots", json={"name": "third"}).headers["Retry-After"]) >= 1


def test_a_bot_key_has_its_own_rate_budget(app_config) -> None:
    client = create_app({**app_config, "REFEREE_RATE_LIMIT": "3 per minute"}).test_client()
    clear_of_minute_end(5)
    _, key = register(client)  # the address's first request
    for _ in range(3):
        assert client.get("/v1/bots/me", headers=bearer(key)).status_code == 200
    refused = problem(client.get("/v1/bots/me", headers=bearer(key)), 429, "rate_limited")
    assert refused["limit"] == "3 per 1 minute per bot key"
    assert "Retry-After" in client.get("/v1/bots/me", headers=bearer(key)).headers
    # Made-up keys get a budget each, but every one of them is charged to the address too.
    made_up = [bearer("rbk_" + secrets.token_urlsafe(32)) for _ in range(3)]
    problem(client.get("/v1/bots/me", headers=made_up[0]), 401, "unknown_bot_key")
    problem(client.get("/v1/bots/me", headers=made_up[1]), 401, "unknown_bot_key")
    refused = problem(client.get("/v1/bots/me", headers=made_up[2]), 429, "rate_limited")
    assert refused["limit"] == "3 per 1 minute per address"
