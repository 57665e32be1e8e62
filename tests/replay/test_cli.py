"""``referee verify`` as a user runs it: on a file with a pinned key, and on a URL of a live
server whose published key it fetches."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from werkzeug.serving import make_server

from service import create_app
from service.replay.document import ReplaySigner
from service.server.cli import main
from tests.support.http import MatchClient, WireClient
from tests.support.replays import TEST_REPLAY_KEY, fetch_replay, play_finished

CONFIG = {
    "REDIS_URL": "",
    "REFEREE_SECRET": "test-secret",
    "REFEREE_RATE_LIMIT": "",
    "REFEREE_ACCESS_LOG": "0",
    "REFEREE_REPLAY_KEY": TEST_REPLAY_KEY,
}


@pytest.fixture(scope="module")
def server() -> Iterator[WireClient]:
    """The app on a real socket, in a thread."""
    http = make_server("127.0.0.1", 0, create_app(CONFIG), threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield WireClient(f"http://127.0.0.1:{http.server_port}")
    http.shutdown()
    thread.join(10)


@pytest.fixture(scope="module")
def finished(server: WireClient) -> MatchClient:
    return play_finished(server, "halunken-und-spelunken", seed=5)


def verify_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["verify", *args])
    return status, capsys.readouterr().out


def write(path: Path, value: Any) -> str:
    path.write_bytes(orjson.dumps(value))
    return str(path)


def test_a_file_verifies_against_a_pinned_key_file_or_value(server, finished, tmp_path, capsys) -> None:
    replay = write(tmp_path / "replay.json", fetch_replay(server, finished))
    keys = write(tmp_path / "keys.json", server.get("/v1/keys").get_json())
    status, out = verify_cli(capsys, replay, "--key", keys)
    assert status == 0 and out.startswith("VERIFIED halunken-und-spelunken") and "warning" not in out
    raw_key = server.get("/v1/keys").get_json()["keys"][0]["x"]
    assert verify_cli(capsys, replay, "--key", raw_key)[0] == 0
    assert verify_cli(capsys, replay, "--key", f"{server.base_url}/v1/keys")[0] == 0


def test_a_tampered_file_is_rejected_naming_the_first_difference(server, finished, tmp_path, capsys) -> None:
    document = fetch_replay(server, finished)
    document["actions"][10]["events"].append({"type": "forged"})
    keys = write(tmp_path / "keys.json", server.get("/v1/keys").get_json())
    status, out = verify_cli(capsys, write(tmp_path / "forged.json", document), "--key", keys)
    assert status == 1 and out.startswith("REJECTED bad_signature")
    signer = ReplaySigner.from_seed(bytes.fromhex(TEST_REPLAY_KEY))
    status, out = verify_cli(capsys, write(tmp_path / "resigned.json", signer.sign(document)), "--key", keys)
    assert status == 1 and out.startswith("REJECTED events_differ at version 11: replaying gives")
    stranger = ReplaySigner.from_seed(bytes(32)).key_set()
    status, out = verify_cli(
        capsys,
        write(tmp_path / "resigned.json", signer.sign(document)),
        "--key",
        write(tmp_path / "stranger.json", stranger),
    )
    assert status == 1 and out.startswith("REJECTED unknown_key")


def test_a_url_verifies_with_the_key_its_server_publishes(server, finished, capsys) -> None:
    status, out = verify_cli(capsys, f"{server.base_url}{finished.url}/replay")
    assert status == 0
    assert (
        out.splitlines()[0]
        == f"trusting the keys {server.base_url}/v1/keys publishes now (pin one with --key for more)"
    )
    assert "VERIFIED" in out


def test_what_cannot_be_read_is_an_error_not_a_verdict(server, tmp_path, capsys) -> None:
    running = MatchClient.create(server, "the-game", 2)
    status, out = verify_cli(capsys, f"{server.base_url}{running.url}/replay")
    assert status == 2 and "HTTP 409" in out and "match_not_finished" in out
    status, out = verify_cli(capsys, str(tmp_path / "missing.json"), "--key", "x")
    assert status == 2 and out.startswith("error:")
    (tmp_path / "junk.json").write_text("{not json")
    assert verify_cli(capsys, str(tmp_path / "junk.json"), "--skip-signature")[0] == 2
    replay = write(tmp_path / "r.json", {"format": "game-referee/replay"})
    status, out = verify_cli(capsys, replay)
    assert status == 2 and "no trusted key" in out
    status, out = verify_cli(capsys, replay, "--key", "short")
    assert status == 2 and "--key short" in out


def test_skipping_the_signature_still_replays_every_move(server, finished, tmp_path, capsys) -> None:
    replay = write(tmp_path / "replay.json", fetch_replay(server, finished))
    status, out = verify_cli(capsys, replay, "--skip-signature")
    assert status == 0 and out.startswith("warning: signature not checked")


def test_the_command_reads_standard_input_in_its_own_process(server, finished, tmp_path) -> None:
    keys = write(tmp_path / "keys.json", server.get("/v1/keys").get_json())
    replay = orjson.dumps(fetch_replay(server, finished))
    command = [sys.executable, "-m", "service.server.cli", "verify", "-", "--key", keys]
    done = subprocess.run(command, input=replay, capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith(b"VERIFIED"), done.stdout + done.stderr
    forged = replay.replace(b'"version":3,', b'"version":4,', 1)
    done = subprocess.run(command, input=forged, capture_output=True, timeout=120)
    assert done.returncode == 1 and done.stdout.startswith(b"REJECTED bad_signature"), done.stdout


def test_one_action_is_counted_in_the_singular(server, tmp_path, capsys) -> None:
    resigned = MatchClient.create(server, "the-game", 2)
    assert resigned.post("resign", 0).status_code == 200  # the whole log: one entry
    replay = write(tmp_path / "replay.json", fetch_replay(server, resigned))
    keys = write(tmp_path / "keys.json", server.get("/v1/keys").get_json())
    status, out = verify_cli(capsys, replay, "--key", keys)
    assert status == 0 and ": 1 action replayed from the seed," in out
