"""Re-adjudication (``--skip-signature``, or a dishonest signer) refuses entries the
document's own header rules out, and compares outcomes and events as JSON, not as Python
values: an unsigned replay proves what docs/replay.md says it proves."""

from __future__ import annotations

from typing import Any

import pytest

from service import create_app
from service.engine import Rng
from service.games import games
from service.match import ENDING_EVENTS, auto_action, ended_outcome
from service.replay.document import ReplayRejected, ReplaySigner, TrustedKeys, verify
from tests.support.replays import TEST_REPLAY_KEY, edited, fetch_replay, play_finished, state_before

SIGNER = ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY))
TRUSTED = TrustedKeys([SIGNER.public_key])
TIMED_AUTO = {"per_decision_ms": 1000, "on_timeout": "auto", "max_consecutive_timeouts": 1_000_000}


@pytest.fixture(scope="module")
def served() -> dict[str, dict[str, Any]]:
    """Untimed replays without house seats, served by the app: The Game (cooperative, one
    player) and Halunken (two players, with winners)."""
    app = create_app(
        {
            "REDIS_URL": "",
            "REFEREE_SECRET": "test-secret",
            "REFEREE_RATE_LIMIT": "",
            "REFEREE_ACCESS_LOG": "0",
            "REFEREE_REPLAY_KEY": TEST_REPLAY_KEY,
        }
    )
    client = app.test_client()
    return {
        game_id: fetch_replay(client, play_finished(client, game_id, seed=7))
        for game_id in ("the-game", "halunken-und-spelunken")
    }


def refused(document: dict[str, Any]) -> ReplayRejected:
    """The verdict of re-adjudication alone, and of a signer who signed the forgery: the same."""
    verdicts = []
    for keys, doc in ((None, document), (TRUSTED, SIGNER.sign(document))):
        with pytest.raises(ReplayRejected) as caught:
            verify(doc, keys)
        verdicts.append((caught.value.code, caught.value.version))
    assert verdicts[0] == verdicts[1]
    return caught.value


def all_auto(template: dict[str, Any], time_control: dict[str, Any] | None) -> dict[str, Any]:
    """A match of ``template``'s game and seed in which the referee drew every move (each
    entry ``auto``, each action the seed's draw), as a forger without the key could write
    it: everything in it re-adjudicates except what its header allows."""
    game = games()[template["game"]]
    seed, players = template["seed"], template["players"]
    rng = Rng(seed)
    state = game.setup(players, template["options"], rng)
    position, entries = rng.position(), []
    while game.to_act(state):
        seat = game.to_act(state)[0]
        rng = Rng(seed, position)
        action = auto_action(game, state, seat, rng)
        state, events = game.apply(state, seat, action, rng)
        position = rng.position()
        entries.append({"version": len(entries) + 1, "seat": seat, "kind": "auto", "action": action, "events": events})
    document = {k: v for k, v in edited(template).items() if k != "signature"}
    return document | {
        "actions": entries,
        "version": len(entries),
        "outcome": game.outcome(state),
        "time_control": time_control,
    }


def ended_at(template: dict[str, Any], version: int, kind: str, seat: int) -> dict[str, Any]:
    """``template`` cut after ``version - 1`` entries and ended there by ``seat``'s ``kind``."""
    game = games()[template["game"]]
    document = {k: v for k, v in edited(template).items() if k != "signature"}
    reason = {"timeout": "timeout", "resign": "resigned", "abort": "aborted"}[kind]
    ending = {
        "version": version,
        "seat": seat,
        "kind": kind,
        "action": None,
        "events": [{"type": ENDING_EVENTS[kind], "seat": seat}],
    }
    return document | {
        "actions": document["actions"][: version - 1] + [ending],
        "version": version,
        "outcome": ended_outcome(game, document["players"], {"reason": reason, "seat": seat}),
    }


def test_auto_moves_verify_only_where_the_time_control_allows_them(served) -> None:
    template = served["the-game"]
    assert verify(all_auto(template, TIMED_AUTO), None).actions > 0, "a timed match with auto moves verifies"
    assert refused(all_auto(template, None)).code == "kind_not_allowed", "an untimed match has no auto moves"
    problem = refused(all_auto(template, TIMED_AUTO | {"on_timeout": "forfeit"}))
    assert (problem.code, problem.version) == ("kind_not_allowed", 1), "under forfeit, a timeout ends the match"
    document = all_auto(template, TIMED_AUTO | {"max_consecutive_timeouts": 3})
    seats = [entry["seat"] for entry in document["actions"]]
    third = next(i for i in range(len(seats)) if seats[: i + 1].count(seats[i]) == 3)
    problem = refused(document)
    assert (problem.code, problem.version) == ("kind_not_allowed", third + 1), "no move of its own ends a streak"
    assert "is a forfeit, not an auto move" in problem.detail


def test_a_timeout_verifies_only_in_a_timed_match_where_it_forfeits(served) -> None:
    template = served["halunken-und-spelunken"]
    version = len(template["actions"]) // 2
    state, _ = state_before(template, version)
    seat = games()[template["game"]].to_act(state)[0]
    forfeit = ended_at(template, version, "timeout", seat)
    assert refused(forfeit).code == "kind_not_allowed", "an untimed match has no timeouts"
    forfeit["time_control"] = TIMED_AUTO | {"on_timeout": "forfeit"}
    assert verify(forfeit, None).outcome["detail"]["end_reason"] == "timeout"
    forfeit["time_control"] = TIMED_AUTO
    problem = refused(forfeit)
    assert (problem.code, problem.version) == ("kind_not_allowed", version)
    assert "is an auto move, not a forfeit" in problem.detail


def test_house_entries_belong_to_house_seats_and_house_seats_make_no_moves(served) -> None:
    template = {k: v for k, v in edited(served["halunken-und-spelunken"]).items() if k != "signature"}
    as_house = edited(template)
    for entry in as_house["actions"]:
        if entry["seat"] == 1:
            entry["kind"] = "house"
    assert refused(as_house).code == "kind_not_allowed", "no house seats: no house entries"
    as_house["house"] = [{"seat": 1, "bot": "random"}]
    assert verify(as_house, None).actions == len(template["actions"])
    played_by_house = template | {"house": [{"seat": 0, "bot": "heuristic"}]}
    problem = refused(played_by_house)
    assert (problem.code, problem.version) == ("kind_not_allowed", 1), "nobody holds a house seat's token"
    resigned_house = ended_at(as_house, 3, "resign", 1)
    assert refused(resigned_house).code == "kind_not_allowed"


def test_an_abort_never_verifies(served) -> None:
    """An aborted match has no outcome, hence no replay (`409 match_aborted`); an abort
    entry with a winner's outcome (the others win) used to verify."""
    for template in served.values():
        problem = refused(ended_at(template, 1, "abort", 0))
        assert (problem.code, problem.version) == ("kind_not_allowed", 1)


def test_outcomes_and_events_are_compared_as_json(served) -> None:
    template = {k: v for k, v in edited(served["halunken-und-spelunken"]).items() if k != "signature"}
    ranks = template["outcome"]["ranks"]
    assert 1 in ranks
    truthy = edited(template)
    truthy["outcome"]["ranks"] = [True if rank == 1 else rank for rank in ranks]
    assert refused(truthy).code == "outcome_differs", "true is not rank 1"
    index, event = next(
        (i, e) for i, entry in enumerate(template["actions"]) for e in entry["events"] if e.get("seat") == 0
    )
    falsy = edited(template)
    falsy["actions"][index]["events"][template["actions"][index]["events"].index(event)]["seat"] = False
    problem = refused(falsy)
    assert (problem.code, problem.version) == ("events_differ", index + 1), "false is not seat 0"
    timed_out = ended_at(template, 2, "resign", 0)
    timed_out["actions"][-1]["events"][0]["seat"] = False
    assert refused(timed_out).code == "events_differ"


@pytest.mark.parametrize(
    "header",
    [
        {"time_control": {"per_decision_ms": "5"}},
        {"time_control": TIMED_AUTO | {"on_timeout": "pass"}},
        {"time_control": TIMED_AUTO | {"max_consecutive_timeouts": 0}},
        {"time_control": TIMED_AUTO | {"extra": 1}},
        {"house": [{"seat": 0, "bot": "random"}, {"seat": 0, "bot": "random"}]},
        {"house": [{"seat": 9, "bot": "random"}]},
        {"house": [{"seat": True, "bot": "random"}]},
        {"house": {"seat": 0}},
    ],
)
def test_a_header_that_is_no_time_control_or_house_is_malformed(served, header: dict[str, Any]) -> None:
    template = {k: v for k, v in edited(served["the-game"]).items() if k != "signature"}
    assert refused(template | header).code == "malformed"
    missing = {k: v for k, v in template.items() if k not in header}
    assert refused(missing).code == "malformed", "format 2 has both members"
