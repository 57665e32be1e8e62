"""Compact bytes for match records and log entries: JSON deflated with a preset dictionary.

A record or log entry is small JSON that repeats, match after match, the same keys, action
and event names, card ids and board layouts. Deflate (zlib's raw format: no header, no
checksum) primed with a *preset dictionary* of typical records or entries of every game finds
those repeats in the dictionary, so a 8 KB record shrinks to about 500 bytes and a 200-byte
log entry to about 20 (figures in bench/README.md, "Memory per match").

The encoded form is one byte, the id of the dictionary, then the deflated JSON. The
dictionaries are frozen files in ``dictionaries/``: a record written with one can only be read
with exactly the same bytes, so a dictionary is never changed, only joined by a new one under
a new id (``python -m service.codec.build``); :data:`CURRENT` says which one new writes use.
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
import zlib
from importlib.resources import files
from typing import Any, Literal

import orjson

Kind = Literal["record", "entry"]

DICTIONARIES: dict[int, str] = {
    1: "record-1.zdict",
    2: "entry-1.zdict",
    3: "record-2.zdict",
    4: "entry-2.zdict",
    5: "entry-3.zdict",
}
"""Dictionary id -> its file in ``dictionaries/``. Ids are never reused or renumbered."""

CURRENT: dict[Kind, int] = {"record": 3, "entry": 5}
"""The dictionary new records and log entries are written with."""

WINDOW_BITS: dict[int, int] = {5: 14}
"""The deflate window (log2 of its bytes) written with a dictionary, where it is less than
32 KB: a dictionary that fits a smaller window is written with that window, and the
compressor copied for each entry is the smaller for it (``entry-3``: 16 KB, 80 KB of state
instead of 190). Reading needs no such table: an inflater with the full window reads any
stream written with a smaller one."""

#: The first byte of a record written as plain JSON (before this encoding).
_PLAIN_JSON = ord("{")

#: The first byte of a delta: deflated with the match's base record as the dictionary.
DELTA = 0

LEVELS: dict[Kind, int] = {"record": 3, "entry": 6}
"""zlib's compression level per kind. A record is rewritten on every move and is kilobytes
of JSON: level 3 takes a fifth off level 1's output for little more time, while 6 would
take a further tenth at three times the time. A log entry is a few hundred bytes, where
level 6 costs next to nothing more and saves a quarter."""

#: A smaller hash table than zlib's default: copying a primed compressor costs less, and on
#: inputs of a few kilobytes it finds the same matches.
_MEM_LEVEL = 7

#: The hash table of a compressor with a window under 32 KB (a delta's, an entry's): inputs
#: of a few kilobytes find the same matches with it as with :data:`_MEM_LEVEL`'s
#: (bench/README.md, "Memory per match").
_SMALL_MEM_LEVEL = 5

MIN_LOOKAHEAD = 262
"""How far short of its window deflate stops looking back (zlib's ``MIN_LOOKAHEAD``)."""

#: No record or entry decodes to more than this (Redis content is untrusted input on load).
MAX_DECODED = 16 * 1024 * 1024

class CodecError(ValueError):
    """Bytes that are neither plain JSON nor a deflated document with a known dictionary."""


@functools.cache
def dictionary(dictionary_id: int) -> bytes:
    """The preset dictionary ``dictionary_id``."""
    try:
        name = DICTIONARIES[dictionary_id]
    except KeyError:
        raise CodecError(f"unknown dictionary id {dictionary_id}") from None
    return files("service.codec").joinpath("dictionaries", name).read_bytes()


@functools.cache
def _primed(kind: Kind) -> Any:
    """A compressor that has read the current dictionary of ``kind``; :func:`encode` copies
    it instead of priming a new one, which would cost as much as the compression itself."""
    dictionary_id = CURRENT[kind]
    window_bits = WINDOW_BITS.get(dictionary_id, zlib.MAX_WBITS)
    mem_level = _MEM_LEVEL if window_bits == zlib.MAX_WBITS else _SMALL_MEM_LEVEL
    return zlib.compressobj(
        LEVELS[kind], zlib.DEFLATED, -window_bits, mem_level, zlib.Z_DEFAULT_STRATEGY, dictionary(dictionary_id)
    )


def encode(kind: Kind, value: Any) -> bytes:
    """``value`` (anything orjson writes) as compact bytes, with the current dictionary of
    ``kind``."""
    return deflate(kind, orjson.dumps(value))


def deflate(kind: Kind, plain: bytes) -> bytes:
    """JSON text ``plain`` as compact bytes, with the current dictionary of ``kind``."""
    compressor = _primed(kind).copy()
    return bytes((CURRENT[kind],)) + compressor.compress(plain) + compressor.flush()


def delta(plain: bytes, base: bytes) -> bytes:
    """``plain`` (JSON) deflated with ``base`` (the JSON of the match's base record) as the
    dictionary: what is unchanged since the base costs a few bytes per stretch. The base
    itself is the one byte :data:`DELTA`."""
    if plain == base:
        return bytes((DELTA,))
    compressor = zlib.compressobj(
        LEVELS["record"], zlib.DEFLATED, -_delta_window_bits(len(base) + len(plain)), _SMALL_MEM_LEVEL,
        zlib.Z_DEFAULT_STRATEGY, base,
    )
    return bytes((DELTA,)) + compressor.compress(plain) + compressor.flush()


def _delta_window_bits(reach: int) -> int:
    """The smallest deflate window that still reaches from the end of a record of ``reach``
    bytes (base and record together) back to the start of its base: every match the full
    32 KB window finds, for a fraction of the memory a compressor sets up and clears on every
    move. Inflating needs no change: a stream that looks back less than the inflater's window
    reads the same."""
    return max(9, min(zlib.MAX_WBITS, (reach + MIN_LOOKAHEAD).bit_length()))


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
