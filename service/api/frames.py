"""WebSocket frames (RFC 6455) as a seat's socket reads and writes them.

A seat's socket carries one small text message per move each way, and reading it through
wsproto cost about a tenth of a move's CPU: its frame decoder is a chain of generators,
buffer objects and per-frame dataclasses, built for any use of the protocol (extensions,
both roles, streamed payloads), and it unmasks bytes in Python. The server side of a
connection without extensions needs much less: :class:`FrameReader` parses client frames
with one slice per header field and unmasks a payload in one integer XOR, and
:func:`text_frame` and :func:`control_frame` write the server's unmasked frames. wsproto stays
the client of the tests and of :mod:`service.botkit.socket`.

What the reader enforces, each refusal a :class:`ProtocolViolation` with the close code the
RFC gives it (section 7.4.1), as wsproto's server connection refuses it: client frames are
masked, no reserved bit is set (no extension is ever negotiated), opcodes are the six defined
ones, lengths use their shortest form, control frames are final and at most 125 bytes, a
continuation follows an unfinished message and nothing else does, text is UTF-8 (1007), a close
frame's code is one a peer may send and its reason UTF-8 (1007). A message longer than
``max_message_bytes`` is refused 1009 as soon as a frame header says so, before its payload
is buffered.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
_OPCODES = {CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG}
#: Close codes (RFC 6455 section 7.4.1).
NO_STATUS, PROTOCOL_ERROR, INVALID_DATA, TOO_BIG = 1005, 1002, 1007, 1009
#: Codes a peer may send in a close frame below 3000 (the rest up to 4999 are the
#: libraries' and applications'); 1005, 1006 and 1015 only ever describe a closure locally.
_SENDABLE_CODES = {1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014}
_MAX_CONTROL_PAYLOAD = 125


class ProtocolViolation(Exception):
    """A client broke the protocol: the channel closes with ``code``."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Text:
    """A whole text message."""

    data: str


@dataclass(frozen=True, slots=True)
class Binary:
    """The first frame of a binary message (a seat's socket refuses binary at once)."""


@dataclass(frozen=True, slots=True)
class Ping:
    payload: bytes


@dataclass(frozen=True, slots=True)
class Close:
    """The client's close frame: its code (1005 when it gave none) and reason."""

    code: int
    reason: str


Event = Text | Binary | Ping | Close


class FrameReader:
    """Client frames in, whole messages and control frames out; pongs are dropped."""

    def __init__(self, max_message_bytes: int) -> None:
        self._max = max_message_bytes
        self._buffer = b""
        #: The fragments of a message still unfinished, and its opcode (None between messages).
        self._fragments: list[bytes] = []
        self._opcode: int | None = None
        self._size = 0

    def feed(self, data: bytes) -> list[Event]:
        """The events of every whole frame received so far; a partial frame waits for more.

        :raises ProtocolViolation: the client broke the protocol (nothing after it is read).
        """
        buffer = self._buffer + data if self._buffer else data
        events: list[Event] = []
        start = 0
        while (frame := self._frame(buffer, start)) is not None:
            start, opcode, final, payload = frame
            event = self._event(opcode, final, payload)
            if event is not None:
                events.append(event)
                if type(event) is Close or type(event) is Binary:
                    break
        self._buffer = buffer[start:]
        return events

    def _frame(self, buffer: bytes, start: int) -> tuple[int, int, bool, bytes] | None:
        """The frame at ``start``: where the next begins, its opcode, whether it is final, and
        its unmasked payload; None until it is all there."""
        if len(buffer) - start < 2:
            return None
        first, second = buffer[start], buffer[start + 1]
        if first & 0x70:
            raise ProtocolViolation(PROTOCOL_ERROR, "A reserved bit is set: no extension was negotiated.")
        opcode, final = first & 0x0F, bool(first & 0x80)
        if opcode not in _OPCODES:
            raise ProtocolViolation(PROTOCOL_ERROR, f"Unknown opcode {opcode:#x}.")
        if not second & 0x80:
            raise ProtocolViolation(PROTOCOL_ERROR, "A client's frames are masked.")
        length, at = second & 0x7F, start + 2
        if length == 126:
            if len(buffer) - at < 2:
                return None
            (length,) = struct.unpack_from("!H", buffer, at)
            at += 2
            if length < 126:
                raise ProtocolViolation(PROTOCOL_ERROR, "A frame length not in its shortest form.")
        elif length == 127:
            if len(buffer) - at < 8:
                return None
            (length,) = struct.unpack_from("!Q", buffer, at)
            at += 8
            if length < 1 << 16 or length >> 63:
                raise ProtocolViolation(PROTOCOL_ERROR, "A frame length not in its shortest form.")
        if opcode & 0x8:
            if not final or length > _MAX_CONTROL_PAYLOAD:
                raise ProtocolViolation(PROTOCOL_ERROR, "Control frames are final and at most 125 bytes.")
        elif self._size + length > self._max:
            raise ProtocolViolation(TOO_BIG, f"Messages are at most {self._max} bytes.")
        end = at + 4 + length
        if len(buffer) < end:
            return None
        return end, opcode, final, _unmask(buffer[at : at + 4], buffer[at + 4 : end])

    def _event(self, opcode: int, final: bool, payload: bytes) -> Event | None:
        """What one frame means: a whole message, a control frame, or nothing yet."""
        if opcode == PING:
            return Ping(payload)
        if opcode == PONG:
            return None
        if opcode == CLOSE:
            return _close(payload)
        if opcode == CONTINUATION:
            if self._opcode is None:
                raise ProtocolViolation(PROTOCOL_ERROR, "A continuation frame with no message to continue.")
        elif self._opcode is not None:
            raise ProtocolViolation(PROTOCOL_ERROR, "A new message before the last one was finished.")
        else:
            self._opcode = opcode
        if self._opcode == BINARY:
            return Binary()
        if not final:
            self._fragments.append(payload)
            self._size += len(payload)
            return None
        if self._fragments:
            payload = b"".join([*self._fragments, payload])
            self._fragments, self._size = [], 0
        self._opcode = None
        try:
            return Text(payload.decode())
        except UnicodeDecodeError:
            raise ProtocolViolation(INVALID_DATA, "A text message that is not UTF-8.") from None


def _close(payload: bytes) -> Close:
    """A close frame's code and reason, checked as section 7.4.1 says a peer may send them."""
    if not payload:
        return Close(NO_STATUS, "")
    if len(payload) == 1:
        raise ProtocolViolation(PROTOCOL_ERROR, "A close frame with a one-byte payload.")
    (code,) = struct.unpack_from("!H", payload)
    if not (code in _SENDABLE_CODES or 3000 <= code <= 4999):
        raise ProtocolViolation(PROTOCOL_ERROR, f"A close frame with code {code}, which a peer may not send.")
    try:
        return Close(code, payload[2:].decode())
    except UnicodeDecodeError:
        raise ProtocolViolation(INVALID_DATA, "A close reason that is not UTF-8.") from None


def _unmask(mask: bytes, payload: bytes) -> bytes:
    """``payload`` XORed with the repeated four-byte ``mask``: one big-integer XOR."""
    length = len(payload)
    if not length:
        return payload
    key = (mask * ((length + 3) // 4))[:length]
    return (int.from_bytes(payload) ^ int.from_bytes(key)).to_bytes(length)


def text_frame(data: bytes) -> bytes:
    """An unmasked final text frame holding ``data`` (UTF-8 already; section 5.2)."""
    return _frame(0x80 | TEXT, data)


def control_frame(opcode: int, payload: bytes = b"") -> bytes:
    """An unmasked ping, pong or close frame (the payload at most 125 bytes)."""
    return _frame(0x80 | opcode, payload[:_MAX_CONTROL_PAYLOAD])


def close_frame(code: int, reason: str = "") -> bytes:
    """A close frame with ``code`` and ``reason`` (cut to fit a control frame), or none for
    :data:`NO_STATUS`, which is never sent as a code."""
    if code == NO_STATUS:
        return control_frame(CLOSE)
    encoded = reason.encode()[: _MAX_CONTROL_PAYLOAD - 2].decode(errors="ignore").encode()
    return control_frame(CLOSE, struct.pack("!H", code) + encoded)


def _frame(first: int, data: bytes) -> bytes:
    length = len(data)
    if length < 126:
        return struct.pack("!BB", first, length) + data
    if length < 1 << 16:
        return struct.pack("!BBH", first, 126, length) + data
    return struct.pack("!BBQ", first, 127, length) + data
