"""docs/replay.md is enough to write a verifier: each rule it states, implemented here from
the page alone (stdlib and the Ed25519 primitive only), agrees with the service."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import subprocess
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from service import create_app
from service.engine import Rng
from service.replay.document import engine_info
from tests.support.replays import TEST_REPLAY_KEY, fetch_replay, play_finished

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


class DocumentedStream:
    """The stream as the page describes it."""

    def __init__(self, seed: bytes, counter: int) -> None:
        self.seed, self.counter, self.words = seed, counter, []

    def word(self) -> int:
        if not self.words:
            block = hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
            self.counter += 1
            self.words = [int.from_bytes(block[i : i + 8], "big") for i in range(0, 32, 8)]
        return self.words.pop(0)

    def below(self, n: int) -> int:
        while (w := self.word()) >= 2**64 - 2**64 % n:
            pass
        return w % n


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def test_the_documented_stream_and_positions_match_the_rng() -> None:
    chooser = random.Random(0)
    seed = bytes(range(32))
    position = 0
    for _ in range(200):
        bounds = [chooser.choice([2, 3, 6, 52, 2**63 + 1, 10**18]) for _ in range(chooser.randrange(0, 9))]
        ours, theirs = Rng(seed, position), DocumentedStream(seed, position)
        assert [ours.below(n) for n in bounds] == [theirs.below(n) for n in bounds]
        assert ours.position() == theirs.counter
        position = theirs.counter


def test_the_signature_key_id_and_derivation_as_documented() -> None:
    config = {
        "REDIS_URL": "",
        "REFEREE_SECRET": "a secret",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_RATE_LIMIT": "",
    }
    client = create_app(config).test_client()
    replay = fetch_replay(client, play_finished(client, "the-game"))
    jwk = client.get("/v1/keys").get_json()["keys"][0]

    # HKDF-SHA256 (RFC 5869) by hand: no salt means 32 zero bytes, one output block.
    prk = hmac.new(bytes(32), b"a secret", hashlib.sha256).digest()
    seed = hmac.new(prk, b"game-referee replay signing key v1" + b"\x01", hashlib.sha256).digest()
    public = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()
    assert jwk["x"] == b64(public)

    thumbprint = b64(hashlib.sha256(('{"crv":"Ed25519","kty":"OKP","x":"' + jwk["x"] + '"}').encode()).digest())
    assert jwk["kid"] == thumbprint == replay["signature"]["key_id"]

    unsigned = {k: v for k, v in replay.items() if k != "signature"}
    signed = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    signature = base64.urlsafe_b64decode(replay["signature"]["value"] + "==")
    Ed25519PublicKey.from_public_bytes(public).verify(signature, signed)  # raises if wrong


def test_an_explicit_key_is_the_documented_seed() -> None:
    config = {
        "REDIS_URL": "",
        "REFEREE_SECRET": "x",
        "REFEREE_ACCESS_LOG": "0",
        "REFEREE_REPLAY_KEY": TEST_REPLAY_KEY,
    }
    jwk = create_app(config).test_client().get("/v1/keys").get_json()["keys"][0]
    expected = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(TEST_REPLAY_KEY)).public_key().public_bytes_raw()
    assert jwk["x"] == b64(expected)


def test_the_data_digest_is_what_sha256sum_prints() -> None:
    for folder in sorted(p for p in SEEDS.iterdir() if p.is_dir()):
        printed = subprocess.run(
            "sha256sum *.json | sha256sum",
            shell=True,
            cwd=folder,
            env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()[0]
        assert engine_info(folder.name)["data_sha256"] == printed
