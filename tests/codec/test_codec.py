"""The compact encoding of match records and log entries (service/codec)."""

from __future__ import annotations

import hashlib
import random
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import fields, replace
from unittest import mock

import orjson
import pytest
import zstandard
from hypothesis import given
from hypothesis import strategies as st

from service import codec
from service.engine import Rng
from service.games import games
from service.match import REBASE_ABOVE, Match, Move
from service.referee import Referee
from service.store import MemoryStore
from service.tokens import SeatTokens, StateTokens

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=12), children, max_size=6),
    max_leaves=40,
)


@given(json_values, st.sampled_from(["record", "entry"]))
def test_any_json_value_round_trips(value, kind) -> None:
    assert codec.decode(codec.encode(kind, value)) == value


@given(st.dictionaries(st.text(max_size=12), json_values, max_size=6))
def test_plain_json_written_before_the_encoding_still_reads(value) -> None:
    assert codec.decode(orjson.dumps(value)) == value


@given(json_values, json_values)
def test_a_delta_against_a_base_round_trips(base, value) -> None:
    base_json = orjson.dumps(base)
    raw = codec.delta(orjson.dumps(value), base_json)
    assert codec.decode(raw, base_json) == value
    with pytest.raises(codec.CodecError):
        codec.decode(raw)


def test_the_dictionaries_are_frozen() -> None:
    """A dictionary that changes makes every record written with it unreadable: a new
    dictionary gets a new id (tools/build_dictionaries.py), the files in use never change."""
    digests = {i: hashlib.sha256(codec.dictionary(i)).hexdigest()[:16] for i in codec.DICTIONARIES}
    assert digests == {
        1: "3423b4a867bb35d8",
        2: "494af131abd1c86b",
        3: "aea69a131aa654fc",
        4: "5beeb1ec79fc2aee",
        5: "0086df90f8476527",
        6: "69b805640e41d675",
    }


def test_entries_round_trip_with_the_current_entry_dictionary() -> None:
    entries = [
        {
            "version": v,
            "seat": v % 3,
            "token": v - 1,
            "kind": "move",
            "action": {"type": "play", "card": v},
            "events": [{"type": "played", "seat": v % 3, "card": v, "pile": v % 4}] * (v % 7),
            "at": "2026-11-25T17:00:00.000Z",
        }
        for v in range(1, 60)
    ]
    for entry in entries:
        raw = codec.encode("entry", entry)
        assert raw[0] == codec.CURRENT["entry"] and codec.decode(raw) == entry


@pytest.mark.parametrize("dictionary_id", sorted(codec.DICTIONARIES))
def test_what_any_dictionary_wrote_still_reads_after_a_newer_one_became_current(dictionary_id: int) -> None:
    value = {"version": 3, "seat": 1, "kind": "move", "action": {"type": "play", "card": "C5"}, "events": []}
    assert codec.decode(bytes((dictionary_id,)) + _written_with(dictionary_id, orjson.dumps(value))) == value


def _written_with(dictionary_id: int, plain: bytes, **zstd_parameters: int) -> bytes:
    """``plain`` compressed as a writer of the dictionary ``dictionary_id`` writes it, without
    the codec's own compressor."""
    if codec.is_zstd(dictionary_id):
        parameters = zstandard.ZstdCompressionParameters.from_level(3, **{**codec._ZSTD_PARAMETERS, **zstd_parameters})
        data = zstandard.ZstdCompressionDict(codec.dictionary(dictionary_id))
        return zstandard.ZstdCompressor(dict_data=data, compression_params=parameters).compress(plain)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, zdict=codec.dictionary(dictionary_id))
    return compressor.compress(plain) + compressor.flush()


def test_entries_are_zstandard_frames_without_magic_checksum_or_dictionary_id() -> None:
    entry = {"version": 7, "seat": 0, "kind": "move", "action": {"type": "end_turn"}, "events": []}
    raw = codec.encode("entry", entry)
    assert codec.is_zstd(raw[0])
    frame = zstandard.get_frame_parameters(raw[1:], zstandard.FORMAT_ZSTD1_MAGICLESS)
    assert (frame.dict_id, frame.has_checksum, frame.content_size) == (0, False, len(orjson.dumps(entry)))
    assert not raw[1:].startswith(b"\x28\xb5\x2f\xfd")


def test_one_zstandard_context_shared_by_threads_stays_correct() -> None:
    """The codec keeps one Zstandard compressor per dictionary for the whole process; threads
    writing and reading entries at once each get their own entries back."""
    entries = [{"version": v, "seat": v % 4, "action": {"type": "play", "card": v}, "events": []} for v in range(300)]

    def round_trips(offset: int) -> bool:
        return all(codec.decode(codec.encode("entry", {**e, "by": offset})) == {**e, "by": offset} for e in entries)

    with ThreadPoolExecutor(8) as pool:
        assert all(pool.map(round_trips, range(16)))


def test_no_dictionary_id_is_the_first_byte_of_plain_json() -> None:
    assert ord("{") not in codec.DICTIONARIES
    assert all(0 < i < 256 for i in codec.DICTIONARIES)
    assert set(codec.CURRENT.values()) <= set(codec.DICTIONARIES)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"\x63" + b"x" * 10, "unknown dictionary"),
        (codec.encode("record", {"a": [1] * 50})[:-3], "truncated"),
        (codec.encode("record", {"a": 1}) + b"\x00", "trailing"),
        (codec.encode("entry", {"a": [1] * 50})[:-3], "truncated frame"),
        (codec.encode("entry", {"a": 1}) + b"\x00", "trailing after a frame"),
        (codec.encode("entry", {"a": 1})[:2], "a frame header cut short"),
        (b"{not json", "not JSON"),
    ],
)
def test_damaged_bytes_are_a_codec_error(raw: bytes, reason: str) -> None:
    with pytest.raises(codec.CodecError):
        codec.decode(raw)


def test_a_deflate_bomb_is_refused() -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS, 8, zlib.Z_DEFAULT_STRATEGY, codec.dictionary(1))
    bomb = compressor.compress(b"[" + b"0," * (codec.MAX_DECODED // 2) + b"0]") + compressor.flush()
    assert len(bomb) < 100_000
    with pytest.raises(codec.CodecError):
        codec.decode(b"\x01" + bomb)


def test_a_zstandard_bomb_is_refused_before_it_is_inflated() -> None:
    """A frame that claims more than the limit, or does not say how much it holds, is refused
    from its header: Zstandard allocates the claimed size before it decompresses."""
    entry_id = codec.CURRENT["entry"]
    bomb = _written_with(entry_id, b"[" + b"0," * (codec.MAX_DECODED // 2) + b"0]")
    assert len(bomb) < 100_000
    unsized = _written_with(entry_id, b'{"a": 1}', write_content_size=0)
    for frame in (bomb, unsized):
        with mock.patch.object(zstandard.ZstdDecompressor, "decompress", side_effect=AssertionError):
            with pytest.raises(codec.CodecError):
                codec.decode(bytes((entry_id,)) + frame)


def _match(game_id: str, players: int) -> Match:
    game = games()[game_id]
    rng = Rng("ab" * 32)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    return Match(
        match_id="m" * 22,
        game_id=game_id,
        players=players,
        options=game.resolve_options(players, {}),
        seed="ab" * 32,
        seed_supplied=True,
        seat_hashes=["cd" * 32] * players,
        rng=rng.position(),
        state=state,
        version=3,
        pending_since={"0": 2},
    )


@pytest.mark.parametrize("game_id", sorted(games()))
def test_every_field_of_a_match_record_round_trips(game_id: str) -> None:
    """Generic over the record's fields: whatever fields Match has, they all come back."""
    match = _match(game_id, 2)
    decoded = Match.decode(match.version, match.encode())
    assert decoded == match
    assert {f.name for f in fields(Match)} == set(vars(decoded))


@pytest.mark.parametrize("game_id", sorted(games()))
def test_a_record_is_a_fraction_of_its_json(game_id: str) -> None:
    match = _match(game_id, 4)
    plain = orjson.dumps({f.name: getattr(match, f.name) for f in fields(match) if f.init and f.name != "version"})
    assert len(match.encode()) < len(plain) / 2


def test_a_record_is_written_as_a_small_delta_against_its_base_until_it_grows() -> None:
    match = _match("isola-dei-vulcani", 4)
    record, base = match.encode_delta()
    assert base is not None and len(record) < 32, "the first commit writes the base"
    assert Match.decode(3, record, base) == match
    loaded = Match.decode(3, record, base)
    loaded.rng += 1
    loaded.pending_since = {"1": 4}
    record, new_base = loaded.encode_delta()
    assert new_base is None and len(record) <= REBASE_ABOVE
    assert Match.decode(3, record, base) == loaded
    loaded.state = {"replaced": list(range(400))}
    record, new_base = loaded.encode_delta()
    assert new_base is not None, "a record far from its base becomes the new base"
    assert Match.decode(3, record, new_base) == loaded


def test_a_record_written_as_plain_json_still_loads() -> None:
    """What the referee wrote before the compact encoding (a real record of that time)."""
    old = (
        b'{"match_id":"ehsZicN7Ba6ZKXVjVg-WzA","game_id":"the-game","players":1,"options":{"professional":false,'
        b'"smaller_hands":false,"on_fire":false,"first_seat":"agree"},"seed":"d70bb940e9e562710c45fa569f5fd5112df8'
        b'1a441403e41c3fb31e1e5dc931a0","seed_supplied":false,"seat_hashes":["32a0a147b4745107d6c1e349e24925313038'
        b'd5c6514ac37b5fc60671b8e5992a"],"rng":25,"state":{"hands":[[31,43]],"deck":[36,48]},"pending_since":'
        b'{"0":16},"created_at":"2026-11-23T18:45:11.600Z","updated_at":"2026-11-23T18:45:11.618Z"}'
    )
    match = Match.decode(16, old)
    assert (match.version, match.rng, match.state["deck"], match.pending_since) == (16, 25, [36, 48], {"0": 16})
    assert Match.decode(16, match.encode()) == match


def test_a_log_entry_round_trips_and_reads_as_before() -> None:
    move = Move(
        7, 1, 6, {"type": "play", "card": 55, "pile": 0}, [{"type": "played", "card": 55}], "2026-11-23T18:45:11.615Z"
    )
    raw = move.encode()
    assert Move.decode(raw) == move
    assert len(raw) < len(orjson.dumps(codec.decode(raw))) / 2
    old = orjson.dumps(
        {"version": 7, "seat": 1, "token": 6, "action": move.action, "events": move.events, "at": move.at}
    )
    assert Move.decode(old) == move
    assert replace(Move.decode(old), seat=2) != move


def test_a_match_stored_as_plain_json_goes_on_after_the_upgrade() -> None:
    """Records and entries written before the compact encoding (plain JSON, no base): the
    match loads, its history reads, a retried move gets its first answer, and it plays on."""
    store = MemoryStore()
    referee = Referee(store, StateTokens(b"upgrade"), SeatTokens(b"upgrade"), 600)
    plain = (
        mock.patch.object(codec, "encode", lambda _kind, value: orjson.dumps(value)),
        mock.patch.object(Match, "encode", lambda match: match._json()),
        mock.patch.object(Match, "encode_delta", lambda match: (match._json(), None)),
    )
    with plain[0], plain[1], plain[2]:
        created = referee.create_match("the-game", 1, {}, "ab" * 32)
        match_id, bearer = created["match_id"], created["seats"][0]["token"]
        legal = referee.legal_actions(match_id, bearer)
        first = referee.act(match_id, bearer, legal["state_token"], legal["actions"][0]).body
    assert store.load(match_id).record.startswith(b"{") and store.load(match_id).base is None

    again = referee.act(match_id, bearer, legal["state_token"], legal["actions"][0])
    assert again.replayed and again.body == first
    legal = referee.legal_actions(match_id, bearer)
    second = referee.act(match_id, bearer, legal["state_token"], legal["actions"][0]).body
    assert second["version"] == 2
    assert store.load(match_id).base is not None, "the first move after the upgrade writes a base"
    history = referee.history(match_id, bearer, 0, 10)["entries"]
    assert [entry["version"] for entry in history] == [1, 2]


def test_a_base_inflated_once_is_the_same_bytes_every_time_and_damage_still_raises() -> None:
    base = codec.compress("record", orjson.dumps({"piles": [1, 2, 3], "hands": [[4, 5]]}))
    first = codec.inflate_base(base)
    assert first == codec.inflate(base) and codec.inflate_base(bytes(base)) is first
    damaged = base[:-3]
    with pytest.raises(codec.CodecError):
        codec.inflate_base(damaged)
    with pytest.raises(codec.CodecError):
        codec.inflate_base(damaged)  # a failure is not remembered as an answer


@pytest.mark.parametrize("size", [0, 100, 3_000, 16_000, 40_000, 200_000])
def test_a_delta_finds_the_base_far_back_whatever_the_sizes(size: int) -> None:
    """A delta's window is fitted to base and record together (service/codec's
    ``_delta_window_bits``): a record that repeats its base whole, at any size, still costs
    a few bytes per stretch, and every size reads back with the usual inflater."""
    rng = random.Random(size)
    base = bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz") for _ in range(size))
    plain = b"[" + base + b"]"
    raw = codec.delta(plain, base)
    assert codec.inflate(raw, base) == plain
    if size <= 16_000:  # within deflate's 32 KB reach: the base is found whole
        assert len(raw) < 64 + size // 100
