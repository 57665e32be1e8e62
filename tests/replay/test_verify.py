"""Replays of every game verify; any change to one is refused with the reason that names it.

A change made without the signing key breaks the signature. The other reasons matter when
the signer itself is wrong or dishonest, so those tests re-sign the tampered document with the
server's key and check that re-adjudication finds the difference.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from service import create_app
from service.games import games
from service.replay.document import ReplayRejected, ReplaySigner, TrustedKeys, canonical_json, verify
from tests.support.replays import TEST_REPLAY_KEY, edited, fetch_replay, play_finished, state_before

SIGNER = ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY))
TRUSTED = TrustedKeys([SIGNER.public_key])


@pytest.fixture(scope="module")
def replays() -> dict[str, dict[str, Any]]:
    """One finished, signed replay of each game, served by an app on the embedded store."""
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
    return {game_id: fetch_replay(client, play_finished(client, game_id)) for game_id in games()}


def rejection(document: dict[str, Any], keys: TrustedKeys | None = TRUSTED) -> ReplayRejected:
    with pytest.raises(ReplayRejected) as caught:
        verify(document, keys)
    return caught.value


def resigned(document: dict[str, Any], change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    copy = edited(document)
    change(copy)
    return SIGNER.sign(copy)


GAMES = sorted(games())


@pytest.mark.parametrize("game_id", GAMES)
def test_a_replay_of_each_game_verifies(replays, game_id: str) -> None:
    document = replays[game_id]
    verified = verify(document, TRUSTED)
    assert verified.game == game_id and verified.key_id == SIGNER.key_id
    assert verified.actions == document["version"] == len(document["actions"]) > 0
    assert verified.warnings == ()


@pytest.mark.parametrize("game_id", GAMES)
def test_any_change_without_the_key_breaks_the_signature(replays, game_id: str) -> None:
    middle = len(replays[game_id]["actions"]) // 2
    changes: list[Callable[[dict[str, Any]], Any]] = [
        lambda d: d["actions"][middle]["action"].update(type="forged"),
        lambda d: d["actions"][middle]["events"].append({"type": "forged"}),
        lambda d: d.update(seed="00" * 32),
        lambda d: d["outcome"]["scores"].reverse() or d["outcome"]["scores"].append(0),
        lambda d: d["actions"][middle].update(seat=d["actions"][middle]["seat"] + 1),
    ]
    for change in changes:
        document = edited(replays[game_id])
        change(document)
        assert rejection(document).code == "bad_signature"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_action_is_found_where_it_was_changed(replays, game_id: str) -> None:
    document = replays[game_id]
    middle = len(document["actions"]) // 2
    forged = resigned(document, lambda d: d["actions"][middle]["action"].update(type="forged"))
    problem = rejection(forged)
    assert (problem.code, problem.version) == ("illegal_action", middle + 1)
    assert "forged" in problem.detail


@pytest.mark.parametrize("game_id", GAMES)
def test_another_legal_action_breaks_the_chain_at_that_move_or_later(replays, game_id: str) -> None:
    """Swapping in an action that was legal at that point: its events, a later move, or the
    outcome can no longer match, and the verifier says which."""
    document = replays[game_id]
    game = games()[game_id]
    for index, entry in enumerate(document["actions"]):
        state, _ = state_before(document, index + 1)
        others = [a for a in game.legal_actions(state, entry["seat"]) if a != entry["action"]]
        if others:
            break
    else:  # pragma: no cover - every game offers choices
        pytest.fail("no move had an alternative")
    swapped = resigned(document, lambda d: d["actions"][index].update(action=others[0]))
    problem = rejection(swapped)
    assert problem.code in {"events_differ", "illegal_action", "not_finished", "outcome_differs"}
    assert problem.version is None or problem.version >= index + 1


def test_a_played_card_swapped_for_another_is_an_event_difference(replays) -> None:
    document = replays["the-game"]
    state, _ = state_before(document, 1)
    first = document["actions"][0]
    game = games()["the-game"]
    other = next(
        a
        for a in game.legal_actions(state, first["seat"])
        if a["type"] == first["action"]["type"] and a != first["action"]
    )
    problem = rejection(resigned(document, lambda d: d["actions"][0].update(action=other)))
    assert (problem.code, problem.version) == ("events_differ", 1)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_event_is_named(replays, game_id: str) -> None:
    document = replays[game_id]
    index = next(i for i, e in enumerate(document["actions"]) if e["events"])
    forged = resigned(document, lambda d: d["actions"][index]["events"][0].update(forged=True))
    problem = rejection(forged)
    assert (problem.code, problem.version) == ("events_differ", index + 1)
    assert "event 0" in problem.detail
    dropped = resigned(document, lambda d: d["actions"][index]["events"].pop())
    assert rejection(dropped).code == "events_differ"


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_seed_breaks_its_commitment_or_the_replay(replays, game_id: str) -> None:
    document = replays[game_id]
    assert rejection(resigned(document, lambda d: d.update(seed="ab" * 32))).code == "seed_commitment"
    other_seed = "ab" * 32
    recommitted = resigned(
        document,
        lambda d: d.update(seed=other_seed, seed_sha256=hashlib.sha256(bytes.fromhex(other_seed)).hexdigest()),
    )
    assert rejection(recommitted).code in {
        "illegal_action",
        "events_differ",
        "not_finished",
        "outcome_differs",
    }


@pytest.mark.parametrize("game_id", GAMES)
def test_a_changed_outcome_is_refused(replays, game_id: str) -> None:
    document = replays[game_id]
    problem = rejection(
        resigned(document, lambda d: d["outcome"]["scores"].__setitem__(0, d["outcome"]["scores"][0] + 1))
    )
    assert problem.code == "outcome_differs"
    winners = resigned(document, lambda d: d["outcome"].update(winners=[] if d["outcome"]["winners"] else [0]))
    assert rejection(winners).code == "outcome_differs"


def test_versions_and_length_are_checked(replays) -> None:
    document = replays["halunken-und-spelunken"]
    problem = rejection(resigned(document, lambda d: d["actions"][3].update(version=99)))
    assert (problem.code, problem.version) == ("version_sequence", 4)
    assert rejection(resigned(document, lambda d: d.update(version=d["version"] + 1))).code == "version_sequence"

    def truncate(d: dict[str, Any]) -> None:
        d["actions"].pop()
        d["version"] -= 1

    assert rejection(resigned(document, truncate)).code == "not_finished"


def test_signature_keys_and_shape(replays) -> None:
    document = replays["the-game"]
    stranger = ReplaySigner.from_seed(bytes(32))
    assert rejection(document, TrustedKeys([stranger.public_key])).code == "unknown_key"
    assert rejection(stranger.sign(document)).code == "unknown_key"
    unsigned = {k: v for k, v in document.items() if k != "signature"}
    assert rejection(unsigned).code == "unsigned"
    other_algorithm = edited(document)
    other_algorithm["signature"]["algorithm"] = "RS256"
    assert rejection(other_algorithm).code == "unsigned"
    garbled = edited(document)
    garbled["signature"]["value"] = "!!"
    assert rejection(garbled).code == "bad_signature"
    garbled["signature"]["key_id"] = ["not", "a", "string"]
    assert rejection(garbled).code == "unknown_key"
    for broken in (
        [],
        {"format": "other"},
        resigned(document, lambda d: d.update(players="2")),
        resigned(document, lambda d: d.update(seed="XY" * 32)),
        resigned(document, lambda d: d["actions"].append({"seat": 0})),
    ):
        assert rejection(broken).code == "malformed"
    assert rejection(resigned(document, lambda d: d.update(game="chess"))).code == "unknown_game"
    assert rejection(resigned(document, lambda d: d.update(options={"no_such_option": 1}))).code == "options"


def test_without_keys_only_the_signature_is_skipped_and_said_so(replays) -> None:
    document = replays["esploratore"]
    verified = verify(document, None)
    assert verified.key_id is None and any("signature not checked" in w for w in verified.warnings)
    assert rejection(edited(document) | {"outcome": {}}, None).code == "outcome_differs"


def test_an_engine_or_data_mismatch_is_a_warning_not_a_verdict(replays) -> None:
    document = resigned(replays["the-game"], lambda d: d["engine"].update(version="0.0.1"))
    assert any("0.0.1" in w for w in verify(document, TRUSTED).warnings)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_signed_bytes_are_the_stdlib_canonical_form(replays, game_id: str) -> None:
    """What another language must reproduce: sorted keys, no spaces, UTF-8, JCS escapes."""
    unsigned = {k: v for k, v in replays[game_id].items() if k != "signature"}
    stdlib = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert canonical_json(unsigned) == stdlib


def test_canonical_json_escapes_like_rfc_8785_and_refuses_floats() -> None:
    value = {"b": '\u0000\u001f\b\f\n\r\t"\\/\u007fé€', "a": [1, -2, True, None]}
    assert (
        canonical_json(value) == '{"a":[1,-2,true,null],"b":"\\u0000\\u001f\\b\\f\\n\\r\\t\\"\\\\/\u007fé€"}'.encode()
    )
    with pytest.raises(TypeError):
        canonical_json({"x": [1.5]})
    assert canonical_json([2**53 - 1, -(2**53 - 1)]) == b"[9007199254740991,-9007199254740991]"
    with pytest.raises(TypeError):
        canonical_json({"x": 2**53})


@pytest.mark.parametrize("game_id", GAMES)
def test_forged_field_values_are_illegal_actions_not_crashes(replays, game_id: str) -> None:
    document = replays[game_id]
    for index in (0, len(document["actions"]) // 2):
        action = document["actions"][index]["action"]
        for value in ({"nested": 1}, [1], None, -1, "?" * 300, 2**53 - 1):
            forged = (
                {**action, **{k: value for k in action if k != "type"}}
                if len(action) > 1
                else {**action, "extra": value}
            )
            tampered = edited(document)
            tampered["actions"][index]["action"] = forged
            problem = rejection(SIGNER.sign(tampered))
            assert (problem.code, problem.version) == ("illegal_action", index + 1), forged
