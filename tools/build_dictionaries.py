"""Build new preset dictionaries from seeded matches of every game.

    python -m tools.build_dictionaries 5                 # writes dictionaries/record-5.zdict, entry-5.zstd
    python -m tools.build_dictionaries 5 --kinds entry   # only dictionaries/entry-5.zstd

A dictionary is typical content: the heuristic bots play a few matches of each game through a
referee on the in-memory store. The record dictionary is records the referee wrote, one of
every game first: the match records of all five games fit in deflate's 32 KB window together,
so one dictionary serves every game and the codec never needs to know which game a record
belongs to. The entry dictionary is a Zstandard dictionary trained on every log entry of those
matches (:func:`zstandard.train_dictionary`, which picks the stretches that recur).

Run it when the records or entries change shape (a new game, new fields: the size test in
tests/test_memory_budget.py says when), then add the new files to
:data:`service.codec.DICTIONARIES` under new ids and point :data:`service.codec.CURRENT` at
them. Never overwrite a dictionary that has been used: records written with it could no
longer be read.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Iterator
from pathlib import Path

import zstandard

from service import codec
from service.bots.registry import make_bot
from service.games import games
from service.referee import Referee
from service.store import MemoryStore
from service.tokens import SeatTokens, StateTokens

#: Deflate looks back at most 32 KB, so no dictionary is useful beyond that.
WINDOW = 32 * 1024

ENTRY_DICTIONARY_BYTES = 64 * 1024
"""The entry dictionary's size. Trained on the same entries, 32 and 64 KB wrote entries of
matches they had not seen within a few percent of each other, either way by game (two
trainings of one size differ as much); a Zstandard compressor keeps its dictionary's tables,
so the larger costs memory once per process, not time per entry."""

#: Each kind's dictionary file: a deflate preset dictionary or a Zstandard dictionary.
SUFFIXES = {"record": "zdict", "entry": "zstd"}

#: How many players the sample matches of a game have: the number of seats changes the shape
#: of boards and hands, so the samples of one game have different counts.
SAMPLE_PLAYERS = (4, 2, 3)


def play(
    referee: Referee,
    game_id: str,
    players: int,
    moves: int,
    chooser: random.Random,
    *,
    keyed: bool = False,
    bot: str = "heuristic",
) -> Iterator[str]:
    """Play a match of ``game_id`` with ``bot`` on every seat, through ``referee`` as a client
    would (each seat acting with its own bearer token and the state token of its legal
    actions), for at most ``moves`` moves; yields the match id after creating it and after
    each move. ``keyed`` sends every move with a fresh ``Idempotency-Key``. The match's seed
    comes from ``chooser`` too, so the same chooser plays the same match."""
    created = referee.create_match(game_id, players, {}, f"{chooser.getrandbits(256):064x}")
    match_id = created["match_id"]
    bearers = {seat["seat"]: seat["token"] for seat in created["seats"]}
    bots = {seat: make_bot(game_id, bot) for seat in bearers}
    yield match_id
    for _ in range(moves):
        to_act = referee.get_match(match_id, None)["to_act"]
        if not to_act:
            return
        seat = chooser.choice(to_act)
        legal = referee.legal_actions(match_id, bearers[seat])
        view = referee.get_match(match_id, bearers[seat])["view"]
        action = bots[seat].choose(view, legal["actions"], chooser)
        key = f"{chooser.getrandbits(64):016x}" if keyed else None
        referee.act(match_id, bearers[seat], legal["state_token"], action, key)
        yield match_id


def sample_matches(game_id: str, count: int) -> list[tuple[bytes, list[bytes]]]:
    """``count`` seeded matches of ``game_id`` played to their end: each one's record two
    thirds of the way through and its log entries, as plain JSON."""
    store = MemoryStore()
    referee = Referee(store, StateTokens(b"build"), SeatTokens(b"build"), 3600)
    chooser = random.Random(f"dictionary:{game_id}")
    samples = []
    for players in SAMPLE_PLAYERS[:count]:
        records: list[bytes] = []
        for match_id in play(referee, game_id, players, 400, chooser):
            loaded = store.load(match_id)
            assert loaded is not None, "a match being played is in the store"
            records.append(codec.inflate(loaded.record, codec.inflate(loaded.base) if loaded.base else None))
        entries = store.history(match_id, 0, len(records))
        samples.append((records[len(records) * 2 // 3], [codec.inflate(entry) for entry in entries]))
    return samples


def _fit(chunks: list[bytes], budget: int) -> bytes:
    """The chunks, in order of preference, that fit in ``budget`` bytes together."""
    chosen, size = [], 0
    for chunk in chunks:
        if size + len(chunk) <= budget:
            chosen.append(chunk)
            size += len(chunk)
    return b"".join(chosen)


def build() -> tuple[bytes, bytes]:
    """The record dictionary (at most :data:`WINDOW` bytes: one record of every game first,
    then more while they fit) and the entry dictionary (:data:`ENTRY_DICTIONARY_BYTES`)."""
    samples = {game_id: sample_matches(game_id, len(SAMPLE_PLAYERS)) for game_id in sorted(games())}
    records = [match[0] for rank in range(len(SAMPLE_PLAYERS)) for match in (s[rank] for s in samples.values())]
    # typed as zstandard's stub asks: a list of byte buffers of any kind
    entries: list[bytes | bytearray | memoryview] = [
        entry for matches in samples.values() for _, log in matches for entry in log
    ]
    trained = zstandard.train_dictionary(ENTRY_DICTIONARY_BYTES, entries, level=codec.ZSTD_LEVEL)
    return _fit(records, WINDOW), trained.as_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision", type=int, help="the number in the new files' names")
    parser.add_argument("--kinds", default="record,entry", help="which dictionaries to write, comma-separated")
    args = parser.parse_args()
    folder = Path(codec.__file__).parent / "dictionaries"
    record, entry = build()
    kinds = args.kinds.split(",")
    for kind, content in (("record", record), ("entry", entry)):
        if kind not in kinds:
            continue
        path = folder / f"{kind}-{args.revision}.{SUFFIXES[kind]}"
        if path.exists():
            raise SystemExit(f"{path} exists: a dictionary in use is never overwritten")
        path.write_bytes(content)
        print(f"{path}: {len(content)} bytes")


if __name__ == "__main__":
    main()
