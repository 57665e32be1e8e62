"""Clocks, timeouts, resignation and abort through the WSGI app, with a fake "now", on the
embedded store and on Redis."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from service.bots.registry import make_bot
from service.clock import iso_ms
from service.engine import Rng
from service.games import get_game
from service.live.sweeper import Sweeper
from service.match import Match, Move, Snapshot, auto_action
from service.referee import Referee
from service.replay import verify as verify_command
from service.replay.document import verify
from tests.support.http import MatchClient

T0 = 1_800_000_000_000
SEED = "c1" * 32


class FakeNow:
    """The referee's "now" in epoch ms, moved by the test."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


@pytest.fixture
def now(app) -> FakeNow:
    fake = FakeNow(T0)
    app.extensions["referee"].now_ms = fake
    return fake


def first_legal(match: MatchClient, seat: int) -> Any:
    legal = match.legal(seat)
    return match.act(seat, legal["state_token"], legal["actions"][0])


def entries(match: MatchClient) -> list[dict[str, Any]]:
    return match.client.get(f"{match.url}/history?limit=200").get_json()["entries"]


def test_an_untimed_match_has_no_clock_and_no_house(client) -> None:
    created = MatchClient.create(client, "the-game", 2).created
    assert created["clock"] is None and created["house"] == []
    match = MatchClient(client, created)
    answer = first_legal(match, 0).get_json()
    assert answer["clock"] is None and answer["kind"] == "move"
    assert entries(match)[0]["kind"] == "move" and "clock_ms" not in entries(match)[0]


def test_a_seat_that_runs_out_of_time_forfeits_when_anyone_next_asks(client, now: FakeNow) -> None:
    match = MatchClient.create(client, "the-game", 2, clock={"per_decision_s": 5})
    clock = match.created["clock"]
    assert clock["control"] == {"per_decision_s": 5} and clock["on_timeout"] == "forfeit"
    assert clock["running"] == [0] and clock["deadline_ms"] == T0 + 5000 and clock["deadline"] == iso_ms(T0 + 5000)
    now.ms = T0 + 4000
    assert match.get()["clock"]["remaining_ms"] == [1000, 5000]
    stale = match.get(1)["state_token"]
    answer = first_legal(match, 0).get_json()
    assert answer["clock"]["running"] == [1] and answer["clock"]["deadline_ms"] == T0 + 9000
    assert answer["clock"]["remaining_ms"] == [5000, 5000]

    now.ms = T0 + 9000
    ended = match.get()
    assert ended["status"] == "finished" and ended["to_act"] == [] and "seed" in ended
    outcome = ended["outcome"]
    assert outcome["detail"]["end_reason"] == "timeout" and outcome["detail"]["seat"] == 1
    assert outcome["ranks"] == [1, 2] and outcome["winners"] == [], "a cooperative game is lost for all"
    assert ended["clock"]["running"] == [] and ended["clock"]["deadline_ms"] is None
    last = entries(match)[-1]
    assert last == {
        "version": 2,
        "seat": 1,
        "kind": "timeout",
        "action": None,
        "events": [{"type": "timed_out", "seat": 1}],
        "at": iso_ms(T0 + 9000),
        "clock_ms": [5000, 5000],
    }
    refused = match.act(1, stale, {"type": "accept_starter"})
    assert refused.status_code == 409 and refused.get_json()["code"] == "match_over"
    assert match.legal(1)["actions"] == []
    for path in ("resign", "abort"):
        again = match.post(path, 0)
        assert again.status_code == 409 and again.get_json()["code"] == "match_over"
    replay = client.get(f"{match.url}/replay").get_json()
    assert verify(replay, None).outcome == outcome and replay["actions"][-1]["kind"] == "timeout"
    assert replay["time_control"] == {"per_decision_ms": 5000, "on_timeout": "forfeit", "max_consecutive_timeouts": 3}


def test_a_move_in_time_is_accepted_up_to_the_last_millisecond(client, now: FakeNow) -> None:
    match = MatchClient.create(client, "the-game", 2, clock={"initial_s": 10, "increment_s": 1})
    now.ms = T0 + 9999
    answer = first_legal(match, 0).get_json()
    assert answer["kind"] == "move" and answer["clock"]["remaining_ms"] == [1001, 10_000]


def test_auto_moves_are_the_seeds_draws_and_the_streak_ends_in_a_forfeit(client, now: FakeNow, tmp_path: Path) -> None:
    match = MatchClient.create(
        client,
        "the-game",
        2,
        seed=SEED,
        clock={"per_decision_s": 1, "on_timeout": "auto", "max_consecutive_timeouts": 2},
    )
    now.ms = T0 + 60_000
    ended = match.get()
    log = entries(match)
    kinds = [e["kind"] for e in log]
    assert kinds[-1] == "timeout" and set(kinds[:-1]) == {"auto"} and len(kinds) >= 3
    assert [e["version"] for e in log] == list(range(1, len(log) + 1))
    assert [e["at"] for e in log] == [iso_ms(T0 + 1000 * (i + 1)) for i in range(len(log))], "each at its deadline"
    streaks = {e["seat"]: 0 for e in log}
    for entry in log:
        streaks[entry["seat"]] += 1
    assert streaks[log[-1]["seat"]] == 2, "the second timeout in a row forfeits"
    assert ended["outcome"]["detail"] == {
        "end_reason": "timeout",
        "seat": log[-1]["seat"],
        "score_means": "no scores: the match ended (timeout) before its rules scored it",
    }
    # Offline: each auto action is the seed's draw from the seat's legal actions at that point.
    game = get_game("the-game")
    rng = Rng(SEED)
    state = game.setup(2, ended["options"], rng)
    for entry in log[:-1]:
        rng = Rng(SEED, rng.position())
        assert auto_action(game, state, entry["seat"], rng) == entry["action"]
        state, events = game.apply(state, entry["seat"], entry["action"], rng)
        assert events == entry["events"]
    # And `referee verify` accepts the signed replay; a forged auto move is refused.
    replay = client.get(f"{match.url}/replay").get_json()
    path, keys = tmp_path / "replay.json", tmp_path / "keys.json"
    path.write_bytes(orjson.dumps(replay))
    keys.write_bytes(client.get("/v1/keys").data)
    out = io.StringIO()
    assert verify_command.run(str(path), [str(keys)], False, out) == 0, out.getvalue()
    forged = replay | {"actions": [dict(replay["actions"][0], action={"type": "propose_starter", "seat": 1})]}
    if forged["actions"][0]["action"] != replay["actions"][0]["action"]:
        path.write_bytes(orjson.dumps(forged))
        out = io.StringIO()
        assert verify_command.run(str(path), [], True, out) == 1 and "auto_differs" in out.getvalue()


def test_a_seat_moving_itself_resets_its_timeout_streak(client, now: FakeNow) -> None:
    match = MatchClient.create(
        client,
        "the-game",
        1,
        seed=SEED,
        clock={"per_decision_s": 1, "on_timeout": "auto", "max_consecutive_timeouts": 2},
    )
    now.ms = T0 + 1000
    assert match.get()["clock"]["consecutive_timeouts"] == [1]
    first_legal(match, 0)
    assert match.get()["clock"]["consecutive_timeouts"] == [0]


def test_simultaneous_decisions_run_each_pending_seats_clock(client, now: FakeNow) -> None:
    match = MatchClient.create(client, "halunken-und-spelunken", 2, seed=SEED, clock={"initial_s": 100})
    rng = random.Random(1)
    body = match.get()
    while len(body["to_act"]) < 2:
        seat = body["to_act"][0]
        legal = match.legal(seat)
        now.ms += 1000
        assert match.act(seat, legal["state_token"], rng.choice(legal["actions"])).status_code == 200
        body = match.get()
    opened = now.ms
    assert body["clock"]["running"] == [0, 1]
    before = body["clock"]["remaining_ms"]
    now.ms += 3000
    legal = match.legal(1)
    answer = match.act(1, legal["state_token"], legal["actions"][0]).get_json()
    if 0 in answer["to_act"]:
        assert answer["clock"]["running"] == [0]
        assert answer["clock"]["remaining_ms"][0] == before[0] - 3000, "seat 0 kept thinking meanwhile"
        assert answer["clock"]["deadline_ms"] == opened + before[0]
    assert answer["clock"]["remaining_ms"][1] == before[1] - 3000


def test_resigning_ranks_the_seat_last_and_the_others_win(client) -> None:
    match = MatchClient.create(client, "halunken-und-spelunken", 3)
    answer = match.post("resign", 1)
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["kind"] == "resign" and body["seat"] == 1 and body["legal_actions"] == [] and body["to_act"] == []
    assert body["status"] == "finished" and body["events"] == [{"type": "resigned", "seat": 1}]
    assert body["outcome"]["ranks"] == [1, 3, 1] and body["outcome"]["winners"] == [0, 2]
    assert body["outcome"]["detail"]["end_reason"] == "resigned"
    assert entries(match)[-1]["kind"] == "resign"
    assert verify(client.get(f"{match.url}/replay").get_json(), None).outcome == body["outcome"]


def test_resigning_a_cooperative_game_loses_it_for_the_whole_table(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    first_legal(match, 0)
    outcome = match.post("resign", 1).get_json()["outcome"]
    assert outcome["winners"] == [] and outcome["ranks"] == [1, 2]


def test_any_seat_may_abort_a_match_nobody_has_moved_in(client) -> None:
    match = MatchClient.create(client, "esploratore", 2)
    stale = match.get(0)["state_token"]
    answer = match.post("abort", 1)
    assert answer.status_code == 200, answer.get_json()
    body = answer.get_json()
    assert body["status"] == "aborted" and body["outcome"] is None and body["seat"] == 1 and "seed" in body
    assert body["to_act"] == [] and body["version"] == 1
    assert entries(match) == [
        {
            "version": 1,
            "seat": 1,
            "kind": "abort",
            "action": None,
            "events": [{"type": "aborted", "seat": 1}],
            "at": entries(match)[0]["at"],
        }
    ]
    assert match.get()["status"] == "aborted"
    replay = client.get(f"{match.url}/replay")
    assert replay.status_code == 409 and replay.get_json()["code"] == "match_aborted"
    refused = match.act(0, stale, {"type": "end_turn"})
    assert refused.status_code == 409 and refused.get_json()["code"] == "match_over"
    validated = client.post(
        f"{match.url}/actions/validate",
        json={"state_token": match.get(0)["state_token"], "action": {"type": "end_turn"}},
        headers={"Authorization": f"Bearer {match.by_seat[0]}"},
    ).get_json()
    assert validated["legal"] is False and validated["code"] == "match_over"


def test_abort_is_refused_once_someone_has_moved_and_changes_nothing(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    first_legal(match, 0)
    before = match.get()
    refused = match.post("abort", 1)
    assert refused.status_code == 409 and refused.get_json()["code"] == "match_started"
    assert match.get() == before


def test_resign_and_abort_need_a_seat(client) -> None:
    match = MatchClient.create(client, "the-game", 2)
    for path in ("resign", "abort"):
        assert client.post(f"{match.url}/{path}").get_json()["code"] == "authentication_required"
        bad = client.post(f"{match.url}/{path}", headers={"Authorization": "Bearer nope"})
        assert bad.status_code == 401 and bad.get_json()["code"] == "bad_credentials"
    assert match.get()["version"] == 0


@pytest.mark.parametrize(
    "clock",
    [
        {},
        {"per_decision_s": 5, "initial_s": 5},
        {"per_decision_s": 5, "increment_s": 1},
        {"per_decision_s": 0},
        {"per_decision_s": "5"},
        {"initial_s": 5, "on_timeout": "pass"},
        {"per_decision_s": 5, "max_consecutive_timeouts": 0},
        {"per_decision_s": 5, "extra": 1},
    ],
)
def test_a_bad_clock_is_refused_and_creates_nothing(client, clock: dict) -> None:
    answer = client.post("/v1/matches", json={"game": "the-game", "players": 2, "clock": clock})
    assert answer.status_code == 400 and answer.get_json()["code"] == "invalid_body"


@pytest.mark.parametrize(
    ("house", "code"),
    [
        ([{"seat": 2, "bot": "random"}], "invalid_house"),
        ([{"seat": 0, "bot": "random"}, {"seat": 0, "bot": "heuristic"}], "invalid_house"),
        ([{"seat": 0, "bot": "clever"}], "invalid_body"),
        ([{"seat": 1, "bot": "level6"}], "invalid_body"),
        ([{"seat": -1, "bot": "random"}], "invalid_body"),
    ],
)
def test_bad_house_seats_are_refused(client, house: list, code: str) -> None:
    answer = client.post("/v1/matches", json={"game": "the-game", "players": 2, "house": house})
    assert answer.get_json()["code"] == code


def test_the_sweeper_applies_a_deadline_nobody_asks_about(app, now: FakeNow) -> None:
    client = app.test_client()
    referee = app.extensions["referee"]
    match = MatchClient.create(client, "the-game", 2, clock={"per_decision_s": 2})
    match_id = match.created["match_id"]
    sweeper = Sweeper(referee)
    now.ms = T0 + 1999
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 0
    now.ms = T0 + 2000
    sweeper.sweep_once()
    loaded = referee.store.load(match_id)
    assert loaded.version == 1 and Match.decode(loaded.version, loaded.record, loaded.base).ended == {
        "reason": "timeout",
        "seat": 0,
    }
    assert Move.decode(referee.store.history(match_id, 0, 1)[0]).kind == "timeout"
    now.ms = T0 + 10_000
    sweeper.sweep_once()
    assert match_id not in dict(referee.store.due(T0 + 10**9, 1000)), "an ended match leaves the due index"


def test_the_sweeper_moves_an_early_index_entry_to_the_real_deadline(app, now: FakeNow) -> None:
    client = app.test_client()
    referee = app.extensions["referee"]
    match = MatchClient.create(client, "the-game", 2, clock={"initial_s": 5, "increment_s": 0})
    now.ms = T0 + 1000
    first_legal(match, 0)  # seat 1 now due at T0 + 6000
    match_id = match.created["match_id"]
    seen = dict(referee.store.due(T0 + 10**9, 1000))[match_id]
    referee.store.reschedule(match_id, seen, T0 + 3000)  # as early as a hint may be
    sweeper = Sweeper(referee)
    now.ms = T0 + 3000
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 1, "not due yet: nothing applied"
    assert dict(referee.store.due(T0 + 10**9, 1000))[match_id] == T0 + 6000
    now.ms = T0 + 5999
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 1
    now.ms = T0 + 6000
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 2


def test_snapshot_of_an_ended_match_is_over_whatever_the_engine_says(client) -> None:
    game = get_game("the-game")
    match = MatchClient.create(client, "the-game", 2, seed=SEED)
    state = game.setup(2, match.created["options"], Rng(SEED))
    resigned = Snapshot.of(game, state, {"reason": "resigned", "seat": 0}, 2)
    aborted = Snapshot.of(game, state, {"reason": "aborted", "seat": 0}, 2)
    assert resigned.status == "finished" and resigned.over and resigned.to_act == []
    assert aborted.status == "aborted" and aborted.over and aborted.outcome is None


def test_a_house_turn_is_played_once_by_the_node_that_made_it_due(app) -> None:
    referee = app.extensions["referee"]
    referee.house.spawn = lambda work: work()  # play it before the answer, to look at it at once
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 2, house=[{"seat": 0, "bot": "heuristic"}])
    assert [s["seat"] for s in match.created["seats"]] == [1]
    assert match.created["house"] == [{"seat": 0, "bot": "heuristic"}]
    body = match.get()
    assert body["to_act"] == [1], "the house proposed a starter as soon as the match was created"
    assert [(e["seat"], e["kind"]) for e in entries(match)] == [(0, "house")]


def test_a_search_level_plays_a_house_seat_as_it_would_in_process(app) -> None:
    """The house's level-3 move, made in a search worker, is the move the same bot makes in
    this process under the seed of the match, its version and the seat (the first decision of
    The Game, where level 3's time cap ends the search before a challenger could overturn the
    heuristic's move, so the machine's load cannot change it)."""
    referee = app.extensions["referee"]
    assert referee.thinkers is not None, "the app hands the house's searches to worker processes"
    referee.house.spawn = lambda work: work()
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 2, seed="ab" * 32, house=[{"seat": 0, "bot": "level3"}])
    played = [e for e in entries(match) if e["kind"] == "house"]
    assert played, "the house moved"
    game = get_game("the-game")
    state = game.setup(2, game.resolve_options(2, {}), Rng("ab" * 32))
    seat = game.to_act(state)[0]
    bot = make_bot("the-game", "level3")
    chosen = bot.choose(game.view(state, seat), game.legal_actions(state, seat), random.Random(f"{'ab' * 32}:0:{seat}"))
    assert played[0]["action"] == chosen


def test_the_sweeper_plays_a_house_turn_its_node_left_undone(app, now: FakeNow) -> None:
    referee = app.extensions["referee"]
    left: list = []
    referee.house.spawn = left.append  # the node that created the match dies before playing
    client = app.test_client()
    match = MatchClient.create(client, "the-game", 2, house=[{"seat": 0, "bot": "random"}])
    match_id = match.created["match_id"]
    other_node = Referee(
        referee.store, referee.tokens, referee.seat_tokens, referee.match_ttl, now_ms=now, spawn=lambda work: work()
    )
    sweeper = Sweeper(other_node)
    now.ms = T0 + 999
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 0, "the node that made it due has a second to play it"
    now.ms = T0 + 1000
    sweeper.sweep_once()
    assert referee.store.load(match_id).version == 1
    assert Move.decode(referee.store.history(match_id, 0, 1)[0]).kind == "house"
    left[0]()  # the first node's loop, late: the turn is played already, nothing happens twice
    assert referee.store.load(match_id).version == 1
