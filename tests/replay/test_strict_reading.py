"""A replay's bytes are read the one way every reader agrees on: JSON that two readers could
parse into different values is rejected before the signature is checked.

Each forgery here keeps the signed document intact and adds what a lenient parser (Python's,
JavaScript's ``JSON.parse``) silently resolves one way while a person, or another reader,
sees it the other way: a duplicated ``"outcome"`` placed before the real one still verified
under the pinned key.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import orjson
import pytest

from service import create_app
from service.replay import strict_json
from service.replay import verify as verify_command
from service.replay.document import ReplayRejected, ReplaySigner, load, verify
from tests.support.replays import TEST_REPLAY_KEY, fetch_replay, play_finished

SIGNER = ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY))


@pytest.fixture(scope="module")
def replay() -> dict[str, Any]:
    """A finished, signed replay of The Game (whose moves carry a ``card``)."""
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
    return fetch_replay(client, play_finished(client, "the-game", seed=3))


def run_verify(tmp_path: Path, raw: bytes, *, skip_signature: bool = False) -> tuple[int, str]:
    """``referee verify`` on ``raw`` with the pinned key (or ``--skip-signature``)."""
    (tmp_path / "replay.json").write_bytes(raw)
    (tmp_path / "keys.json").write_bytes(orjson.dumps(SIGNER.key_set()))
    out = io.StringIO()
    keys = [] if skip_signature else [str(tmp_path / "keys.json")]
    status = verify_command.run(str(tmp_path / "replay.json"), keys, skip_signature, out)
    return status, out.getvalue()


def with_member_first(raw: bytes, name: str, value: Any) -> bytes:
    """``raw`` (an object) with ``name: value`` written before its other members."""
    return b"{" + orjson.dumps(name) + b":" + orjson.dumps(value) + b"," + raw[1:]


def test_the_served_bytes_read_strictly_as_they_are(replay) -> None:
    raw = orjson.dumps(replay)
    assert load(raw) == replay
    assert strict_json.loads(raw) == orjson.loads(raw)


def test_a_forged_outcome_before_the_real_one_is_rejected(replay, tmp_path: Path) -> None:
    forged = {**replay["outcome"], "winners": [1], "ranks": [1, 2], "scores": [0, 99]}
    raw = with_member_first(orjson.dumps(replay), "outcome", forged)
    status, out = run_verify(tmp_path, raw)
    assert status == 1 and out.startswith("REJECTED ambiguous_json: member 'outcome' appears twice"), out


def test_a_second_card_inside_an_action_is_rejected(replay, tmp_path: Path) -> None:
    raw = orjson.dumps(replay)
    played = next(e["action"] for e in replay["actions"] if "card" in (e["action"] or {}))
    written = orjson.dumps(played)
    assert written in raw
    raw = raw.replace(written, b'{"card":1,' + written[1:], 1)
    status, out = run_verify(tmp_path, raw)
    assert status == 1 and out.startswith("REJECTED ambiguous_json: member 'card' appears twice"), out


def test_a_second_signature_is_rejected(replay, tmp_path: Path) -> None:
    other = {"algorithm": "Ed25519", "key_id": "someone-else", "value": "AAAA"}
    status, out = run_verify(tmp_path, with_member_first(orjson.dumps(replay), "signature", other))
    assert status == 1 and out.startswith("REJECTED ambiguous_json: member 'signature' appears twice"), out


@pytest.mark.parametrize(
    ("name", "value_json", "reason"),
    [
        ("note", b'"\\ud800"', "lone surrogate"),
        ("note", b'"x\\udfffy"', "lone surrogate"),
        ("note", b"9007199254740993", "beyond"),
        ("note", b"-9007199254740992", "beyond"),
        ("note", b"1" * 5000, "beyond"),
        ("note", b"1.0", "fraction or an exponent"),
        ("note", b"1e2", "fraction or an exponent"),
        ("note", b"NaN", "not a JSON number"),
        ("note", b"-Infinity", "not a JSON number"),
        ("\U0001f600", b"1", "beyond U+FFFF"),
    ],
)
def test_what_readers_disagree_on_is_rejected_before_the_signature(
    replay, tmp_path: Path, name: str, value_json: bytes, reason: str
) -> None:
    """Even with ``--skip-signature``, where an unknown member would otherwise be ignored."""
    raw = orjson.dumps(replay)
    raw = b"{" + orjson.dumps(name) + b":" + value_json + b"," + raw[1:]
    for skip in (False, True):
        status, out = run_verify(tmp_path, raw, skip_signature=skip)
        assert status == 1 and out.startswith("REJECTED ambiguous_json") and reason in out, out


def test_a_float_for_an_integer_inside_the_log_is_rejected(replay, tmp_path: Path) -> None:
    """``0.0`` for pile 0 in an event equals ``0`` in Python: it must not re-adjudicate."""
    raw = orjson.dumps(replay)
    assert b'"pile":0,"backwards"' in raw
    forged = raw.replace(b'"pile":0,"backwards"', b'"pile":0.0,"backwards"', 1)
    status, out = run_verify(tmp_path, forged, skip_signature=True)
    assert status == 1 and out.startswith("REJECTED ambiguous_json"), out


@pytest.mark.parametrize(
    ("raw", "reason"),
    [(b"\xef\xbb\xbf{}", "byte order mark"), (b'{"format": "\xff"}', "not UTF-8")],
)
def test_bytes_that_are_not_plain_utf_8_are_rejected(tmp_path: Path, raw: bytes, reason: str) -> None:
    status, out = run_verify(tmp_path, raw)
    assert status == 1 and out.startswith("REJECTED ambiguous_json") and reason in out, out


def test_text_that_is_not_json_still_cannot_be_read(tmp_path: Path) -> None:
    assert run_verify(tmp_path, b"{not json")[0] == 2
    assert run_verify(tmp_path, b"[" * 100 + b"]" * 100)[0] == 2


def test_a_document_built_in_python_is_held_to_the_same_rules(replay) -> None:
    """:func:`verify` takes a parsed value too: it refuses what canonical JSON cannot hold."""
    for change in (
        {"note": 1.5},
        {"note": 2**53},
        {"note": "\ud800"},
        {"note": {"\U0001f600": 1}},
        {"note": {1, 2}},
    ):
        with pytest.raises(ReplayRejected) as caught:
            verify(replay | change, None)
        assert caught.value.code == "ambiguous_json", change
