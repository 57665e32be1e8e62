"""The committed OpenAPI document is the one the app serves."""

from __future__ import annotations

from pathlib import Path

import orjson

from service.server.cli import main, spec_bytes

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def test_committed_spec_matches_the_served_one() -> None:
    assert COMMITTED.read_bytes() == spec_bytes(), "run 'referee openapi --write'"


def test_openapi_check_command_detects_drift(tmp_path) -> None:
    path = tmp_path / "openapi.json"
    assert main(["openapi", "--write", "--path", str(path)]) == 0
    assert main(["openapi", "--check", "--path", str(path)]) == 0
    path.write_text(path.read_text().replace("Game referee", "Something else"))
    assert main(["openapi", "--check", "--path", str(path)]) == 1


def test_spec_documents_security_and_problem_responses() -> None:
    spec = orjson.loads(spec_bytes())
    assert spec["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    action = spec["paths"]["/v1/matches/{match_id}/actions"]["post"]
    assert {"409", "422", "403"} <= set(action["responses"])
    conflict = spec["components"]["responses"]["CONFLICT"]
    assert "application/problem+json" in conflict["content"]


def _operations(spec: dict) -> list[tuple[str, str, dict]]:
    return [
        (path, method, operation)
        for path, item in spec["paths"].items()
        for method, operation in item.items()
        if method != "parameters"
    ]


def test_every_operation_has_a_unique_camel_case_operation_id() -> None:
    spec = orjson.loads(spec_bytes())
    ids = [operation.get("operationId") for _, _, operation in _operations(spec)]
    assert all(isinstance(i, str) and i[:1].islower() and i.isalnum() for i in ids), ids
    assert len(set(ids)) == len(ids)


def test_headers_and_rate_limit_are_documented() -> None:
    spec = orjson.loads(spec_bytes())
    for path, method, operation in _operations(spec):
        assert {"$ref": "#/components/parameters/X-Request-ID"} in operation["parameters"], (path, method)
        if not path.startswith(("/healthz", "/readyz", "/metrics")):
            assert "429" in operation["responses"], (path, method)
    assert "Retry-After" in spec["components"]["responses"]["TOO_MANY_REQUESTS"]["headers"]
    get_match = spec["paths"]["/v1/matches/{match_id}"]["get"]
    assert {"$ref": "#/components/parameters/If-None-Match"} in get_match["parameters"]
    assert {"ETag", "Cache-Control", "Vary", "X-Request-ID"} <= set(get_match["responses"]["200"]["headers"])
    assert "ETag" in get_match["responses"]["304"]["headers"]
    submit = spec["paths"]["/v1/matches/{match_id}/actions"]["post"]
    assert {"$ref": "#/components/parameters/Idempotency-Key"} in submit["parameters"]
    assert "Idempotent-Replayed" in submit["responses"]["200"]["headers"]


SEAT_ONLY = {"listLegalActions", "submitAction", "validateAction", "resignMatch", "abortMatch"}
BOT_ONLY = {
    "getOwnBot",
    "updateOwnBot",
    "retireOwnBot",
    "rotateBotKey",
    "streamBotEvents",
    "nextBotEvent",
    "createChallenge",
    "getChallenge",
    "acceptChallenge",
    "declineChallenge",
    "cancelChallenge",
    "joinLadder",
    "leaveLadder",
}
ADMIN_ONLY = {"createLadder", "pauseLadder", "resumeLadder", "closeLadder", "addHouseMember"}


def test_only_seat_bot_and_operator_operations_declare_security_and_the_rest_take_a_token_or_none() -> None:
    """A generated client asks for its authenticated client exactly where an operation declares
    security (openapi-python-client): the others keep the document's default, no token or one."""
    spec = orjson.loads(spec_bytes())
    assert spec["security"] == [{}, {"seatToken": []}]
    declared = {operation["operationId"]: operation.get("security") for _, _, operation in _operations(spec)}
    assert {name for name, security in declared.items() if security is not None} == SEAT_ONLY | BOT_ONLY | ADMIN_ONLY
    assert all(declared[name] == [{"seatToken": []}] for name in SEAT_ONLY)
    assert all(declared[name] == [{"botKey": []}] for name in BOT_ONLY)
    assert all(declared[name] == [{"adminToken": []}] for name in ADMIN_ONLY)


def test_history_bad_query_is_documented_as_the_400_it_answers(client) -> None:
    spec = orjson.loads(spec_bytes())
    responses = spec["paths"]["/v1/matches/{match_id}/history"]["get"]["responses"]
    assert "400" in responses and "422" not in responses
    created = client.post("/v1/matches", json={"game": "the-game", "players": 2}).get_json()
    answer = client.get(f"/v1/matches/{created['match_id']}/history?limit=0")
    assert answer.status_code == 400
    assert answer.get_json()["code"] == "invalid_body"


def test_nullable_outcome_is_the_outcome_or_null() -> None:
    schemas = orjson.loads(spec_bytes())["components"]["schemas"]
    assert schemas["TheGameMatch"]["properties"]["outcome"]["anyOf"] == [
        {"$ref": "#/components/schemas/TheGameOutcome"},
        {"type": "null"},
    ]
    assert schemas["TheGameActionResult"]["properties"]["outcome"]["anyOf"] == [
        {"$ref": "#/components/schemas/TheGameOutcome"},
        {"type": "null"},
    ]


def _schemas_within(node: object) -> list[dict]:
    """Every JSON object in ``node``, itself included."""
    if isinstance(node, list):
        return [found for item in node for found in _schemas_within(item)]
    if not isinstance(node, dict):
        return []
    return [node, *(found for value in node.values() for found in _schemas_within(value))]


def test_no_union_is_widened_by_an_open_object_beside_it() -> None:
    """``type: object, additionalProperties: {}`` beside an ``anyOf`` made every union accept
    any object: generated TypeScript types were ``{[key: string]: unknown}``."""
    for schema in _schemas_within(orjson.loads(spec_bytes())):
        if "anyOf" in schema or "oneOf" in schema:
            assert "type" not in schema and "additionalProperties" not in schema, schema


def test_a_body_that_names_its_game_is_one_variant_per_game_discriminated_on_it() -> None:
    from service.games import games

    schemas = orjson.loads(spec_bytes())["components"]["schemas"]
    assert schemas["GameId"]["enum"] == sorted(games())
    for name in (
        "Match",
        "CreatedMatch",
        "CreateMatch",
        "Replay",
        "LegalActions",
        "ActionResult",
        "History",
        "StreamEvent",
    ):
        union = schemas[name]
        assert union["discriminator"]["propertyName"] == "game"
        mapping = union["discriminator"]["mapping"]
        assert set(mapping) == set(games()) and [{"$ref": target} for target in mapping.values()] == union["oneOf"]
        for game_id, target in mapping.items():
            variant = schemas[target.rsplit("/", 1)[1]]
            game = {key: value for key, value in variant["properties"]["game"].items() if key != "description"}
            assert game == {"type": "string", "const": game_id}
            assert "game" in variant["required"] and variant["additionalProperties"] is False
    the_game = schemas["TheGameMatch"]["properties"]
    assert the_game["view"]["$ref"].endswith("/TheGameView")
    assert the_game["options"]["$ref"].endswith("/TheGameOptions")
    entry = schemas["TheGameReplay"]["properties"]["actions"]["items"]["$ref"].rsplit("/", 1)[1]
    assert schemas[entry]["properties"]["action"]["anyOf"] == [
        {"$ref": "#/components/schemas/TheGameAction"},
        {"type": "null"},
    ]
    the_game_legal = schemas["TheGameLegalActions"]["properties"]["actions"]["items"]
    assert the_game_legal["$ref"].endswith("/TheGameAction")
    assert schemas["TheGameActionResult"]["properties"]["legal_actions"]["items"]["$ref"].endswith("/TheGameAction")
    history_entry = schemas["TheGameHistory"]["properties"]["entries"]["items"]["$ref"].rsplit("/", 1)[1]
    assert schemas[history_entry]["properties"]["events"]["items"]["anyOf"][0]["$ref"].endswith("/TheGameEvent")


def test_only_a_request_s_action_is_any_game_s() -> None:
    """Every answer holding per-game fields names its game, so a client narrows it: what is
    left of any game's types is the action a client sends, over HTTP or its socket (whose match
    it already knows)."""
    spec = orjson.loads(spec_bytes())
    assert [name for name in spec["components"]["schemas"] if name.startswith("AnyGame")] == ["AnyGameAction"]
    users = {
        name
        for name, schema in spec["components"]["schemas"].items()
        if any(inner.get("$ref") == "#/components/schemas/AnyGameAction" for inner in _schemas_within(schema))
    }
    assert users == {"ActionRequest", "SocketMove"}


def test_every_action_and_event_variant_requires_its_type_as_a_constant() -> None:
    from schemas.game_types import type_prefix

    schemas = orjson.loads(spec_bytes())["components"]["schemas"]
    unions = [
        name
        for name in schemas
        if name.endswith(("Action", "Event")) and schemas[name].get("discriminator", {}).get("propertyName") == "type"
    ]
    assert len(unions) == 10
    for name in unions:
        suffix = "Action" if name.endswith("Action") else "Event"
        for type_name, target in schemas[name]["discriminator"]["mapping"].items():
            variant = schemas[target.rsplit("/", 1)[1]]
            assert target.endswith(name.removesuffix(suffix) + type_prefix(type_name) + suffix)
            assert variant["properties"]["type"] == {"type": "string", "const": type_name}
            assert "type" in variant["required"]


def test_a_match_s_status_and_an_entry_s_kind_are_one_enum_each() -> None:
    """Every body refers to the one ``MatchStatus`` and ``EntryKind``: a generated client compares
    any match's status with one enum, not one per body and per game."""
    from schemas.enums import KINDS, STATUSES

    spec = orjson.loads(spec_bytes())
    for values, name in ((STATUSES, "MatchStatus"), (KINDS, "EntryKind")):
        assert [schema for schema in _schemas_within(spec) if schema.get("enum") == values] == [
            spec["components"]["schemas"][name]
        ]
    assert spec["components"]["schemas"]["TheGameMatch"]["properties"]["status"] == {
        "$ref": "#/components/schemas/MatchStatus"
    }


def test_the_event_stream_is_documented_as_text() -> None:
    """A generated client must not parse a stream as one JSON document (openapi-python-client
    raised on it): the answer is text, and each event's data is a ``StreamEvent``."""
    spec = orjson.loads(spec_bytes())
    answer = spec["paths"]["/v1/matches/{match_id}/stream"]["get"]["responses"]["200"]["content"]
    assert list(answer) == ["text/event-stream"]
    assert answer["text/event-stream"]["schema"]["type"] == "string"
    assert "StreamEvent" in spec["components"]["schemas"]


def test_every_operation_has_examples_that_fit_its_schemas() -> None:
    from jsonschema import Draft202012Validator

    spec = orjson.loads(spec_bytes())
    for path, method, operation in _operations(spec):
        bodies = [operation.get("requestBody", {}).get("content", {})]
        bodies += [r.get("content", {}) for r in operation["responses"].values() if "content" in r]
        for content in filter(None, bodies):
            for media in content.values():
                assert "example" in media, (path, method)
                if "schema" in media:
                    schema = {**media["schema"], "components": spec["components"]}
                    Draft202012Validator(schema).validate(media["example"])


def test_the_catalogue_publishes_each_player_count_s_defaults_and_accepted_values(client) -> None:
    halunken = client.get("/v1/games/halunken-und-spelunken").get_json()
    by_players = {entry["players"]: entry for entry in halunken["by_players"]}
    assert by_players[2]["defaults"] == {"variant": "two-player"}
    assert by_players[2]["allowed"] == {"variant": ["two-player"]}
    assert by_players[3]["defaults"] == {"variant": "standard"}
    assert "two-player" not in by_players[3]["allowed"]["variant"]
    the_game = client.get("/v1/games/the-game").get_json()
    assert {e["players"]: e["allowed"]["first_seat"] for e in the_game["by_players"]}[2] == ["agree", 0, 1]


def test_every_published_default_and_accepted_value_creates_a_match(client) -> None:
    for game in client.get("/v1/games").get_json()["games"]:
        for entry in game["by_players"]:
            players = entry["players"]
            created = client.post(
                "/v1/matches", json={"game": game["id"], "players": players, "options": entry["defaults"]}
            )
            assert created.status_code == 201, created.get_json()
            assert created.get_json()["options"] == entry["defaults"]
            for name, values in entry["allowed"].items():
                for value in values:
                    one = client.post(
                        "/v1/matches", json={"game": game["id"], "players": players, "options": {name: value}}
                    )
                    assert one.status_code == 201, (game["id"], players, name, value)


def test_every_error_response_has_an_example_problem_with_a_catalogued_code() -> None:
    from jsonschema import Draft202012Validator

    spec = orjson.loads(spec_bytes())
    problem = Draft202012Validator({"$ref": "#/components/schemas/Problem", "components": spec["components"]})
    for response in spec["components"]["responses"].values():
        for media in response.get("content", {}).values():
            problem.validate(media["example"])
