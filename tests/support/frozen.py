"""Matches frozen as an earlier referee stored them, put back into a store to be served again.

A frozen match is the list of store calls that wrote it (``create``, then one ``commit`` per
move), with the record, base record and log entry of each exactly as stored, so replaying the
calls into any store holds the same bytes the earlier code wrote. Its seat tokens were minted
with the secret :data:`SECRET`, which apps serving it must use.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from service import codec
from service.games import games
from service.match import Match, Move, state_after
from service.store import MatchStore

SECRET = "test-secret"

TTL_SECONDS = 3600


@dataclass(frozen=True)
class FrozenMatch:
    """One stored match: its identity, who holds its seats and how it was written."""

    game: str
    match_id: str
    players: int
    status: str
    version: int
    seat_tokens: list[str]
    store_calls: list[dict[str, Any]]

    def restore(self, store: MatchStore) -> None:
        """Write the match into ``store`` with the very calls and bytes that first wrote it."""
        for call in self.store_calls:
            if call["call"] == "create":
                created = store.create(self.match_id, _bytes(call["record"]), TTL_SECONDS)
                assert created is not None, "the match id is taken"
                continue
            result = store.commit(
                self.match_id,
                call["expected_version"],
                _bytes(call["record"]),
                _bytes(call["log_entry"]),
                TTL_SECONDS,
                base=_bytes(call["base"]) if call["base"] is not None else None,
            )
            assert result.committed, f"the store refused version {call['expected_version'] + 1}"

    def stored(self) -> tuple[int, bytes, bytes | None]:
        """The version, record and base record the match has once restored (for
        :meth:`service.match.Match.decode`)."""
        record, base = b"", None
        for call in self.store_calls:
            record = _bytes(call["record"])
            if call.get("base") is not None:
                base = _bytes(call["base"])
        return self.version, record, base

    def log(self) -> list[bytes]:
        """The log entries, oldest first."""
        return [_bytes(call["log_entry"]) for call in self.store_calls if call["call"] == "commit"]


def frozen_matches(path: Path) -> list[FrozenMatch]:
    """The matches of a fixture file (see the ``about`` field of each file)."""
    return [
        FrozenMatch(
            game=m["game"],
            match_id=m["match_id"],
            players=m["players"],
            status=m["status"],
            version=m["version"],
            seat_tokens=m["seat_tokens"],
            store_calls=m["store_calls"],
        )
        for m in orjson.loads(path.read_bytes())["matches"]
    ]


def _bytes(text: str) -> bytes:
    return base64.b64decode(text)


def stored_and_replayed(frozen: FrozenMatch) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The frozen match's state three ways: as stored (the earlier engine's JSON, untouched),
    as the referee loads it now (upgraded), and as today's engine computes it by replaying the
    match's log from its seed."""
    version, record, base = frozen.stored()
    raw = codec.decode(record, codec.inflate_base(base) if base is not None else None)["state"]
    match = Match.decode(version, record, base)
    game = games()[frozen.game]
    replayed = state_after(game, match, [Move.decode(entry) for entry in frozen.log()])
    return raw, match.state, replayed
