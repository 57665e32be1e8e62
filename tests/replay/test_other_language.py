"""docs/examples/check-replay-signature.mjs: the signature checked in another language, from
the format page alone. Skipped where Node is not installed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from service import create_app
from service.replay.document import ReplaySigner
from tests.support.replays import TEST_REPLAY_KEY, edited, fetch_replay, play_finished

SCRIPT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "check-replay-signature.mjs"
NODE = shutil.which("node")
SIGNER = ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY))

pytestmark = pytest.mark.skipif(NODE is None, reason="Node is not installed")


def check(tmp_path: Path, document: dict) -> tuple[int, str]:
    return check_bytes(tmp_path, orjson.dumps(document))


def check_bytes(tmp_path: Path, raw: bytes) -> tuple[int, str]:
    (tmp_path / "replay.json").write_bytes(raw)
    (tmp_path / "keys.json").write_bytes(orjson.dumps(SIGNER.key_set()))
    done = subprocess.run(
        [str(NODE), str(SCRIPT), str(tmp_path / "replay.json"), str(tmp_path / "keys.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.returncode, done.stdout + done.stderr


def test_javascript_checks_a_served_replay_and_refuses_a_changed_one(tmp_path: Path) -> None:
    config = {
        "REDIS_URL": "",
        "REFEREE_SECRET": "x",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_RATE_LIMIT": "",
        "REFEREE_REPLAY_KEY": TEST_REPLAY_KEY,
    }
    client = create_app(config).test_client()
    replay = fetch_replay(client, play_finished(client, "esploratore"))
    status, out = check(tmp_path, replay)
    assert status == 0 and out.startswith("SIGNED esploratore"), out
    changed = edited(replay)
    changed["actions"][5]["events"].append({"type": "forged"})
    assert check(tmp_path, changed) == (1, "REJECTED bad_signature: the document was changed after signing\n")
    assert check(tmp_path, SIGNER.sign(changed | {"seed": "ab" * 32}))[1].startswith("REJECTED seed_commitment")


def test_javascript_agrees_on_the_canonical_form_of_awkward_strings(tmp_path: Path) -> None:
    """Escapes, non-ASCII text and key order that a naive canonical form would get wrong."""
    config = {"REDIS_URL": "", "REFEREE_SECRET": "x", "REFEREE_ACCESS_LOG": "0", "REFEREE_RATE_LIMIT": ""}
    client = create_app(config | {"REFEREE_REPLAY_KEY": TEST_REPLAY_KEY}).test_client()
    replay = fetch_replay(client, play_finished(client, "the-game"))
    awkward = edited(replay)
    awkward["outcome"]["detail"] = {
        "Z": 1,
        "a": -9007199254740991,
        "é": '\u0000\u001f\b\f\n\r\t"\\/\u007f€😀',
        "B": [True, None, {}],
    }
    status, out = check(tmp_path, SIGNER.sign(awkward))
    assert status == 0, out


def test_javascript_refuses_what_readers_could_parse_differently(tmp_path: Path) -> None:
    """The example reads the bytes as strictly as ``referee verify`` (docs/replay.md, "Reading
    the bytes"): ``JSON.parse`` alone keeps the last of two ``outcome`` members."""
    config = {"REDIS_URL": "", "REFEREE_SECRET": "x", "REFEREE_ACCESS_LOG": "0", "REFEREE_RATE_LIMIT": ""}
    client = create_app(config | {"REFEREE_REPLAY_KEY": TEST_REPLAY_KEY}).test_client()
    raw = orjson.dumps(fetch_replay(client, play_finished(client, "the-game")))
    forged_outcome = b'{"outcome":{"scores":[0],"ranks":[1],"winners":[0],"detail":{}},' + raw[1:]
    for forged, reason in (
        (forged_outcome, 'member "outcome" appears twice'),
        (b'{"note":"\\udc00",' + raw[1:], "lone surrogate"),
        (b'{"note":1.0,' + raw[1:], "not an integer"),
        (b'{"note":9007199254740993,' + raw[1:], "not an integer"),
        (b'{"note":{"\xf0\x9f\x98\x80":1},' + raw[1:], "beyond U+FFFF"),
        (b'{"note":"\xff",' + raw[1:], "not UTF-8"),
    ):
        status, out = check_bytes(tmp_path, forged)
        assert status == 1 and out.startswith("REJECTED ambiguous_json") and reason in out, out
