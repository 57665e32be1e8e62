"""``referee verify FILE|URL``: check a replay offline and say why it fails, if it does.

The trusted keys come from ``--key`` (a JWK Set or JWK file, a URL serving one, or a raw
base64url public key), or, for a replay fetched from a URL without ``--key``, from that
server's ``/v1/keys``. The latter only shows that the server answering now vouches for the
replay — no more than trusting that server over HTTPS; a key pinned with ``--key`` lets anyone
check a replay file wherever it came from (docs/replay.md, "What a verification proves").

The replay's bytes are read strictly (:func:`service.replay.document.load`): JSON that
readers could parse differently, such as a duplicated member, is rejected before anything
else.

Exit status: 0 verified, 1 the replay does not verify (the first difference is printed),
2 the replay or a key could not be read.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import TextIO

from service.replay.document import ReplayRejected, TrustedKeys, load, verify

_REPLAY_SUFFIX = "/replay"
_TIMEOUT_SECONDS = 30


class SourceError(Exception):
    """A replay or key that could not be read (not a verification failure)."""


def is_url(source: str) -> bool:
    return urllib.parse.urlsplit(source).scheme in ("http", "https")


def read_source(source: str) -> bytes:
    """The bytes of a file path, ``-`` (standard input) or an http(s) URL."""
    try:
        if is_url(source):
            request = urllib.request.Request(source, headers={"Accept": "application/json"})
            with urllib.request.urlopen(request, timeout=_TIMEOUT_SECONDS) as response:
                return response.read()
        if source == "-":
            return sys.stdin.buffer.read()
        return Path(source).read_bytes()
    except urllib.error.HTTPError as exc:
        raise SourceError(f"{source}: HTTP {exc.code}: {exc.read()[:300].decode(errors='replace')}") from None
    except (OSError, ValueError) as exc:
        raise SourceError(f"{source}: {exc}") from None


def keys_url_for(replay_url: str) -> str:
    """The ``/v1/keys`` of the server that serves ``replay_url``
    (``…/v1/matches/<id>/replay`` → ``…/v1/keys``)."""
    parts = urllib.parse.urlsplit(replay_url)
    path = parts.path
    marker = path.rfind("/v1/matches/")
    if marker < 0 or not path.endswith(_REPLAY_SUFFIX):
        raise SourceError(f"{replay_url} is not a …/v1/matches/<id>/replay URL: pass the key with --key")
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path[:marker] + "/v1/keys", "", ""))


def trusted_keys(key_args: list[str]) -> TrustedKeys:
    """The keys named on the command line: each a file, a URL or a raw base64url key."""
    keys = TrustedKeys()
    for arg in key_args:
        text = read_source(arg).decode(errors="replace") if is_url(arg) or Path(arg).is_file() else arg
        try:
            keys = keys.merge(TrustedKeys.parse(text))
        except ValueError as exc:
            raise SourceError(f"--key {arg}: {exc}") from None
    return keys


def run(source: str, key_args: list[str], skip_signature: bool, out: TextIO | None = None) -> int:
    """Verify the replay at ``source``, print the verdict (on ``out``, standard output by
    default), return the exit status."""
    out = out or sys.stdout
    try:
        raw = read_source(source)
        try:
            document = load(raw)
        except ReplayRejected as exc:
            print(f"REJECTED {exc}", file=out)
            return 1
        except ValueError as exc:
            raise SourceError(f"{source}: not JSON: {exc}") from None
        keys: TrustedKeys | None = None
        if not skip_signature:
            if key_args:
                keys = trusted_keys(key_args)
            elif is_url(source):
                keys_url = keys_url_for(source)
                print(f"trusting the keys {keys_url} publishes now (pin one with --key for more)", file=out)
                keys = trusted_keys([keys_url])
            else:
                raise SourceError(
                    "no trusted key: pass --key (a JWK Set file or URL, or a base64url key), or --skip-signature"
                )
    except SourceError as exc:
        print(f"error: {exc}", file=out)
        return 2
    try:
        verified = verify(document, keys)
    except ReplayRejected as exc:
        print(f"REJECTED {exc}", file=out)
        return 1
    for warning in verified.warnings:
        print(f"warning: {warning}", file=out)
    signed = f", signed by key {verified.key_id}" if verified.key_id else ""
    actions = f"{verified.actions} {'action' if verified.actions == 1 else 'actions'}"
    outcome = verified.outcome
    print(
        f"VERIFIED {verified.game} match {verified.match_id}: {actions} replayed from the seed, "
        f"every event and the outcome match (winners {outcome['winners']}, "
        f"scores {outcome['scores']}){signed}",
        file=out,
    )
    return 0
