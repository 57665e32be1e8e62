"""Matches through the real WSGI app, on the embedded store and on Redis."""

from __future__ import annotations

import hashlib
import random
import threading
from typing import Any

import orjson
import pytest

from service.engine import InvalidOptions, Rng
from service.games import games
from service.replay.document import ENTRY_FIELDS, TrustedKeys, verify
from tests.support.http import MatchClient, auth


def test_created_match_hands_out_seat_tokens_and_commits_to_its_seed(client) -> None:
    match = MatchClient.create(client, "the-game", 3)
    created = match.created
    assert [s["seat"] for s in created["seats"]] == [0, 1, 2]
    assert len({s["token"] for s in created["seats"]}) == 3
    assert created["version"] == 0 and created["status"] == "active"
    assert len(created["seed_sha256"]) == 64 and "seed" not in created
    assert created["seed_supplied"] is False
    spectator = match.get()
    assert spectator["seat"] is None and "seats" not in spectator and "seed" not in spectator
    assert match.get(1)["seat"] == 1


def test_a_client_seed_makes_a_reproducible_marked_match(client) -> None:
    seed = "ab" * 32
    one = MatchClient.create(client, "the-game", 2, seed=seed)
    two = MatchClient.create(client, "the-game", 2, seed=seed)
    assert one.created["seed_supplied"] is True
    assert one.get(0)["view"] == two.get(0)["view"]
    assert one.created["seed_sha256"] == hashlib.sha256(bytes.fromhex(seed)).hexdigest()


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_answer_about_a_match_names_its_game(client, game_id: str) -> None:
    """Legal actions, a validation, an action's answer, a resignation's, the history and a
    stream event say which game they are of: a client narrows their actions, events and view
    by it (docs/openapi.md)."""
    match = MatchClient.create(client, game_id, games()[game_id].min_players)
    seat = match.get()["to_act"][0]
    legal = match.legal(seat)
    body = {"state_token": legal["state_token"], "action": legal["actions"][0]}
    validated = client.post(f"{match.url}/actions/validate", json=body, headers=auth(match.by_seat[seat]))
    acted = match.act(seat, legal["state_token"], legal["actions"][0])
    resigned = match.post("resign", seat)
    history = client.get(f"{match.url}/history")
    stream = client.get(f"{match.url}/stream")
    assert [r.status_code for r in (validated, acted, resigned, history, stream)] == [200] * 5
    bodies = [legal, validated.get_json(), acted.get_json(), resigned.get_json(), history.get_json()]
    events = [orjson.loads(line.removeprefix(b"data: ")) for line in stream.data.splitlines() if line[:6] == b"data: "]
    assert [answer["game"] for answer in bodies + events] == [game_id] * (len(bodies) + len(events))


# Whole matches: on the cluster tests/e2e/test_cluster.py plays every game through two nodes.
@pytest.mark.parametrize("store_kind", ["embedded", "redis"])
@pytest.mark.parametrize("game_id", sorted(games()))
def test_random_bots_finish_every_player_count_and_the_seed_verifies(client, game_id: str) -> None:
    """How a new user checks us: matches played to the end over HTTP by random legal bots,
    then the revealed seed checked against its commitment and the log replayed offline."""
    game = games()[game_id]
    for players in range(game.min_players, game.max_players + 1):
        rng = random.Random(players)
        match = MatchClient.create(client, game_id, players)
        final = match.play_to_end(rng)
        assert final["status"] == "finished" and final["to_act"] == []
        outcome = final["outcome"]
        assert len(outcome["scores"]) == len(outcome["ranks"]) == players
        assert hashlib.sha256(bytes.fromhex(final["seed"])).hexdigest() == final["seed_sha256"]
        assert_log_replays(client, match, final)


def option_variants() -> list[tuple[str, dict]]:
    """Every game with each option set away from its default, one at a time: each other
    enum choice, and each boolean turned the other way."""
    variants = []
    for game_id, game in sorted(games().items()):
        for option in game.options:
            if option.kind == "bool":
                values = [not option.default]
            elif option.kind == "enum":
                values = [c for c in option.choices if option.default_for or c != option.default]
            else:
                continue
            variants.extend((game_id, {option.name: value}) for value in values)
    return variants


# Options are the engine's business, so each variant is played on one store, the two stores
# taking the variants in turn (the test above plays every game on both); the cluster plays
# every game in tests/e2e/test_cluster.py.
OPTION_RUNS = [(g, o, ("embedded", "redis")[i % 2]) for i, (g, o) in enumerate(option_variants())]


@pytest.mark.parametrize(
    ("game_id", "options", "store_kind"),
    OPTION_RUNS,
    ids=[f"{g}-{'-'.join(f'{k}={v}' for k, v in o.items())}-{store}" for g, o, store in OPTION_RUNS],
)
def test_random_bots_finish_with_every_option(client, game_id: str, options: dict) -> None:
    """Each option value, at every player count that accepts it, played to the end over HTTP."""
    game = games()[game_id]
    played = 0
    for players in range(game.min_players, game.max_players + 1):
        try:
            game.resolve_options(players, options)
        except InvalidOptions:
            continue
        match = MatchClient.create(client, game_id, players, options=options)
        final = match.play_to_end(random.Random(players))
        assert final["status"] == "finished" and final["outcome"] is not None
        assert hashlib.sha256(bytes.fromhex(final["seed"])).hexdigest() == final["seed_sha256"]
        assert_log_replays(client, match, final)
        played += 1
    assert played, f"no player count accepts {options}"


def assert_log_replays(client, match: MatchClient, final: dict) -> None:
    """The revealed seed and each seat's own log entries rebuild the final state offline, and
    the match's signed replay verifies and equals the history, which the end unredacted."""
    game = games()[final["game"]]
    entries = []
    cursor = 0
    while cursor is not None:
        page = client.get(f"{match.url}/history?cursor={cursor}&limit=200").get_json()
        entries.extend(page["entries"])
        cursor = page["next_cursor"]
    assert [e["version"] for e in entries] == list(range(1, final["version"] + 1))
    own = {}
    for seat, token in enumerate(match.tokens):
        page_cursor = 0
        while page_cursor is not None:
            page = client.get(f"{match.url}/history?cursor={page_cursor}&limit=200", headers=auth(token)).get_json()
            for entry in page["entries"]:
                if entry["seat"] == seat:
                    own[entry["version"]] = entry["action"]
            page_cursor = page["next_cursor"]
    rng = Rng(final["seed"])
    state = game.setup(final["players"], final["options"], rng)
    for entry in entries:
        rng = Rng(final["seed"], rng.position())
        state, _ = game.apply(state, entry["seat"], own[entry["version"]], rng)
    assert game.view(state, None) == final["view"]
    replay = client.get(f"{match.url}/replay").get_json()
    assert verify(replay, TrustedKeys.parse(client.get("/v1/keys").data.decode())).actions == final["version"]
    assert replay["actions"] == [{k: e[k] for k in ENTRY_FIELDS if k in e} for e in entries], (
        "the finished history is unredacted"
    )


def test_sixteen_threads_racing_one_token_let_exactly_one_win(app) -> None:
    """One move is applied; a thread that sent the very same request as the winner gets the
    winner's answer again (it cannot tell its request from a retry), every other one a 409."""
    match = MatchClient.create(app.test_client(), "the-game", 2)
    seat = match.created["to_act"][0]
    legal = match.legal(seat)
    barrier = threading.Barrier(16)
    answers: list[tuple[dict, Any]] = []

    def submit(i: int) -> None:
        client = app.test_client()
        action = legal["actions"][i % len(legal["actions"])]
        barrier.wait()
        response = client.post(
            f"{match.url}/actions",
            json={"state_token": legal["state_token"], "action": action},
            headers=auth(match.tokens[seat]),
        )
        answers.append((action, response))

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    applied = [(a, r) for a, r in answers if r.status_code == 200 and "Idempotent-Replayed" not in r.headers]
    assert len(applied) == 1
    winner, first = applied[0]
    for action, response in answers:
        if action == winner:
            assert response.status_code == 200 and response.get_json() == first.get_json()
        else:
            assert response.status_code == 409, response.get_json()
    after = match.get()
    assert after["version"] == 1
    history = app.test_client().get(f"{match.url}/history").get_json()
    assert history["total"] == 1


def test_history_pages_and_metrics_count_moves(client) -> None:
    match = MatchClient.create(client, "the-game", 1)
    rng = random.Random(3)
    for _ in range(5):
        legal = match.legal(0)
        assert match.act(0, legal["state_token"], rng.choice(legal["actions"])).status_code == 200
    first = client.get(f"{match.url}/history?limit=2").get_json()
    assert first["total"] == 5 and len(first["entries"]) == 2 and first["next_cursor"] == 2
    last = client.get(f"{match.url}/history?cursor=4&limit=2").get_json()
    assert [e["version"] for e in last["entries"]] == [5] and last["next_cursor"] is None
    metrics = client.get("/metrics").data.decode()
    assert 'referee_moves_total{game="the-game"}' in metrics


def test_new_request_ids_are_unique() -> None:
    from service.api.observability import RequestRecorder

    recorder = RequestRecorder(log_requests=False)
    ids = [recorder.request_id(None) for _ in range(1000)]
    assert len(set(ids)) == 1000 and all(len(i) == 32 for i in ids)


def test_health_readiness_and_request_ids(client, store_kind: str) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    ready = client.get("/readyz").get_json()
    expected_store = {"redis": "redis", "cluster": "redis-cluster"}.get(store_kind, "file")
    assert ready == {"status": "ok", "store": expected_store, "games": "ok"}
    echoed = client.get("/healthz", headers={"X-Request-ID": "req-42"})
    assert echoed.headers["X-Request-ID"] == "req-42"
    assert len(client.get("/healthz").headers["X-Request-ID"]) == 32


def test_access_log_is_one_json_line_per_request(app_config, capsys) -> None:
    from service import create_app

    app = create_app({**app_config, "REFEREE_ACCESS_LOG": "1"})
    capsys.readouterr()
    app.test_client().get("/healthz", headers={"X-Request-ID": "log-me"})
    lines = [orjson.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert len(lines) == 1
    line = lines[0]
    assert line["request_id"] == "log-me" and line["status"] == 200 and line["path"] == "/healthz"
    assert line["method"] == "GET" and line["level"] == "info" and "ms" in line
    assert line["logger"] == "referee.access" and isinstance(line["ts"], float)
