"""Compact bytes for match records and log entries: JSON compressed with a dictionary.

A record or log entry is small JSON that repeats, match after match, the same keys, action
and event names, card ids and board layouts. Deflate (zlib's raw format: no header, no
checksum) primed with a *preset dictionary* of typical records or entries of every game finds
those repeats in the dictionary, so a 8 KB record shrinks to about 500 bytes and a 200-byte
log entry to about 20 (figures in bench/README.md, "Memory per match").

Log entries are Zstandard frames instead, with a dictionary trained on entries of every game
(:func:`zstandard.train_dictionary`). One entry is written per move, and deflate had to copy
a primed compressor for each one (80 KB of state) to compress a couple of hundred bytes:
9 µs, against 2.3 µs for a Zstandard compressor that keeps its dictionary's tables, for
entries as small or smaller (bench/README.md, "Memory per match"). Records stay deflated:
most moves write them as deltas against the match's own base record (below), a dictionary
that changes with every match, which deflate primes faster.

The encoded form is one byte, the id of the dictionary, then the compressed JSON. The
dictionaries are frozen files in ``dictionaries/``: a record written with one can only be read
with exactly the same bytes, so a dictionary is never changed, only joined by a new one under
a new id (``python -m tools.build_dictionaries``); :data:`CURRENT` says which one new writes use.
Records and entries written before this encoding are plain JSON, which always starts with
``{``: they are still read as they are (the id ``{`` is never given to a dictionary).

A match's record changes little from one move to the next, so most moves write it as a
*delta*: deflated with the match's own *base record* (an earlier record of the match, stored
once beside it) as the dictionary, about 100–250 bytes instead of the whole record
(:func:`delta`; id 0). The base itself is an ordinary encoded record.

Nothing here knows the fields of a record: anything JSON goes in and comes out the same, so
a field added to the match record or the log entry needs no change here (it only compresses
a little less until a new dictionary has seen it).
"""

from __future__ import annotations

import functools
import threading
import zlib
from importlib.resources import files
from typing import Any, Literal

import orjson
import zstandard

Kind = Literal["record", "entry"]

DICTIONARIES: dict[int, str] = {
    1: "record-1.zdict",
    2: "entry-1.zdict",
    3: "record-2.zdict",
    4: "entry-2.zdict",
    5: "entry-3.zdict",
    6: "entry-4.zstd",
}
"""Dictionary id -> its file in ``dictionaries/``. Ids are never reused or renumbered. A
``.zdict`` file is a deflate preset dictionary, and what it wrote is raw deflate; a ``.zstd``
file is a Zstandard dictionary, and what it wrote is a Zstandard frame (:class:`_Zstd`)."""

CURRENT: dict[Kind, int] = {"record": 3, "entry": 6}
"""The dictionary new records and log entries are written with."""

#: The first byte of a record written as plain JSON (before this encoding).
_PLAIN_JSON = ord("{")

#: The first byte of a delta: deflated with the match's base record as the dictionary.
DELTA = 0

LEVELS: dict[Kind, int] = {"record": 3}
"""zlib's compression level for each kind written with a deflate dictionary (records; log
entries are Zstandard frames). A record is rewritten on every move and is kilobytes of JSON:
level 3 takes a fifth off level 1's output for little more time, while 6 would take a further
tenth at three times the time."""

ZSTD_LEVEL = 5
"""Zstandard's level for what a Zstandard dictionary writes (log entries): on entries of
matches the dictionary was not trained on, level 5 writes 2–12% less than level 3 for half
a µs more, and level 6 no less for twice the time (bench/README.md, "Memory per match")."""

#: Zstandard frames are written without the four-byte magic number (the id byte before them
#: says what they are), without a checksum (Redis keeps its own) and without the dictionary's
#: id (the id byte names it), but with the content size, which decoding checks first.
_ZSTD_PARAMETERS = {
    "format": zstandard.FORMAT_ZSTD1_MAGICLESS,
    "write_checksum": 0,
    "write_dict_id": 0,
    "write_content_size": 1,
}

#: A smaller hash table than zlib's default: copying a primed compressor costs less, and on
#: inputs of a few kilobytes it finds the same matches.
_MEM_LEVEL = 7

#: The hash table of a compressor with a window under 32 KB (a delta's): inputs
#: of a few kilobytes find the same matches with it as with :data:`_MEM_LEVEL`'s
#: (bench/README.md, "Memory per match").
_SMALL_MEM_LEVEL = 5

#: How far short of its window deflate stops looking back (zlib's ``MIN_LOOKAHEAD``).
_MIN_LOOKAHEAD = 262

#: No record or entry decodes to more than this (Redis content is untrusted input on load).
MAX_DECODED = 16 * 1024 * 1024


class CodecError(ValueError):
    """Bytes that are neither plain JSON nor a document compressed with a known dictionary."""


@functools.cache
def dictionary(dictionary_id: int) -> bytes:
    """The preset dictionary ``dictionary_id``."""
    try:
        name = DICTIONARIES[dictionary_id]
    except KeyError:
        raise CodecError(f"unknown dictionary id {dictionary_id}") from None
    return files("service.codec").joinpath("dictionaries", name).read_bytes()


def is_zstd(dictionary_id: int) -> bool:
    """Whether the dictionary ``dictionary_id`` is a Zstandard one."""
    return DICTIONARIES.get(dictionary_id, "").endswith(".zstd")


class _Zstd:
    """One Zstandard dictionary's compressor and decompressor, kept for the process and
    shared by its threads and greenlets under a lock: a Zstandard context must not be used by
    two threads at once, and making one per call costs ten times the compression (its tables
    are built from the dictionary)."""

    def __init__(self, dictionary_id: int) -> None:
        parameters = zstandard.ZstdCompressionParameters.from_level(ZSTD_LEVEL, **_ZSTD_PARAMETERS)
        data = zstandard.ZstdCompressionDict(dictionary(dictionary_id))
        data.precompute_compress(compression_params=parameters)
        self._compressor = zstandard.ZstdCompressor(dict_data=data, compression_params=parameters)
        self._decompressor = zstandard.ZstdDecompressor(dict_data=data, format=zstandard.FORMAT_ZSTD1_MAGICLESS)
        self._lock = threading.Lock()

    def compress(self, plain: bytes) -> bytes:
        with self._lock:
            return self._compressor.compress(plain)

    def decompress(self, frame: memoryview) -> bytes:
        """The frame's content, refused before any allocation when the frame claims more than
        :data:`MAX_DECODED` bytes or does not say how many."""
        try:
            size = zstandard.get_frame_parameters(frame, zstandard.FORMAT_ZSTD1_MAGICLESS).content_size
        except zstandard.ZstdError as exc:
            raise CodecError(f"corrupt Zstandard frame: {exc}") from exc
        if size > MAX_DECODED:  # ZSTD_CONTENTSIZE_UNKNOWN is larger than any limit
            raise CodecError("a Zstandard frame of unknown or oversized content")
        try:
            with self._lock:
                return self._decompressor.decompress(frame, allow_extra_data=False)
        except zstandard.ZstdError as exc:
            raise CodecError(f"corrupt Zstandard frame: {exc}") from exc


@functools.cache
def _zstd(dictionary_id: int) -> _Zstd:
    return _Zstd(dictionary_id)


@functools.cache
def _primed(kind: Kind) -> Any:
    """A compressor that has read the current dictionary of ``kind``; :func:`encode` copies
    it instead of priming a new one, which would cost as much as the compression itself."""
    return zlib.compressobj(
        LEVELS[kind], zlib.DEFLATED, -zlib.MAX_WBITS, _MEM_LEVEL, zlib.Z_DEFAULT_STRATEGY, dictionary(CURRENT[kind])
    )


def encode(kind: Kind, value: Any) -> bytes:
    """``value`` (anything orjson writes) as compact bytes, with the current dictionary of
    ``kind``."""
    return compress(kind, orjson.dumps(value))


def compress(kind: Kind, plain: bytes) -> bytes:
    """JSON text ``plain`` as compact bytes, with the current dictionary of ``kind``."""
    dictionary_id = CURRENT[kind]
    if is_zstd(dictionary_id):
        return bytes((dictionary_id,)) + _zstd(dictionary_id).compress(plain)
    compressor = _primed(kind).copy()
    return bytes((dictionary_id,)) + compressor.compress(plain) + compressor.flush()


def delta(plain: bytes, base: bytes) -> bytes:
    """``plain`` (JSON) deflated with ``base`` (the JSON of the match's base record) as the
    dictionary: what is unchanged since the base costs a few bytes per stretch. The base
    itself is the one byte :data:`DELTA`."""
    if plain == base:
        return bytes((DELTA,))
    compressor = zlib.compressobj(
        LEVELS["record"],
        zlib.DEFLATED,
        -_delta_window_bits(len(base) + len(plain)),
        _SMALL_MEM_LEVEL,
        zlib.Z_DEFAULT_STRATEGY,
        base,
    )
    return bytes((DELTA,)) + compressor.compress(plain) + compressor.flush()


def _delta_window_bits(reach: int) -> int:
    """The smallest deflate window that still reaches from the end of a record of ``reach``
    bytes (base and record together) back to the start of its base: every match the full
    32 KB window finds, for a fraction of the memory a compressor sets up and clears on every
    move. Inflating needs no change: a stream that looks back less than the inflater's window
    reads the same."""
    return max(9, min(zlib.MAX_WBITS, (reach + _MIN_LOOKAHEAD).bit_length()))


def decode(raw: bytes, base: bytes | None = None) -> Any:
    """The value :func:`encode` was given, or the value of plain JSON written before it, or
    of a :func:`delta` against ``base``.

    :raises CodecError: for bytes that are none of these, and for a delta without its base.
    """
    return _json(inflate(raw, base))


def inflate(raw: bytes, base: bytes | None = None) -> bytes:
    """The JSON text of an encoded record or entry, or of a delta against ``base``."""
    if not raw:
        raise CodecError("empty record")
    if raw[0] == _PLAIN_JSON:
        return raw
    if raw[0] == DELTA:
        if base is None:
            raise CodecError("a delta record without its base")
        if len(raw) == 1:
            return base
        zdict = base
    elif is_zstd(raw[0]):
        return _zstd(raw[0]).decompress(memoryview(raw)[1:])
    else:
        zdict = dictionary(raw[0])
    inflater = zlib.decompressobj(-zlib.MAX_WBITS, zdict=zdict)
    try:
        text = inflater.decompress(memoryview(raw)[1:], MAX_DECODED)
    except zlib.error as exc:
        raise CodecError(f"corrupt deflate data: {exc}") from exc
    if not inflater.eof or inflater.unconsumed_tail or inflater.unused_data:
        raise CodecError("truncated, trailing or oversized deflate data")
    return text


@functools.lru_cache(maxsize=256)
def inflate_base(raw: bytes) -> bytes:
    """:func:`inflate` of a match's base record, remembered: a base changes only when a move
    rebases the match (every few dozen moves), yet every move decodes its record against it."""
    return inflate(raw)


def _json(text: bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise CodecError(f"not JSON: {exc}") from exc
