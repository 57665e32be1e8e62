"""The seat socket's frame reader against what a WebSocket client (wsproto's) sends: messages
whole or fragmented, split anywhere between reads, control frames between fragments, and each
protocol violation refused with the close code RFC 6455 gives it."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st
from wsproto import ConnectionType
from wsproto.connection import Connection
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage

from service.api import frames
from service.api.frames import Binary, Close, FrameReader, ProtocolViolation, Text

MAX = 4096


def client() -> Connection:
    """A client connection past its handshake, as wsproto frames a client's messages."""
    return Connection(ConnectionType.CLIENT)


def masked(first: int, payload: bytes, mask: bytes = b"\x01\x02\x03\x04", length: bytes | None = None) -> bytes:
    """A client frame written by hand, for the frames wsproto would never write."""
    if length is None:
        length = bytes((0x80 | len(payload),)) if len(payload) < 126 else b"\xfe" + struct.pack("!H", len(payload))
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes((first,)) + length + mask + body


def refusal(data: bytes) -> int:
    with pytest.raises(ProtocolViolation) as refused:
        FrameReader(MAX).feed(data)
    return refused.value.code


def test_a_whole_text_message_in_one_read() -> None:
    data = client().send(TextMessage(data='{"id": "1", "état": "ü"}'))
    assert FrameReader(MAX).feed(data) == [Text('{"id": "1", "état": "ü"}')]


@given(
    st.lists(st.text(max_size=300), min_size=1, max_size=4),
    st.lists(st.integers(min_value=1, max_value=50), min_size=1, max_size=40),
)
def test_messages_split_anywhere_between_reads_come_out_whole_and_in_order(
    messages: list[str], cuts: list[int]
) -> None:
    sender = client()
    data = b"".join(sender.send(TextMessage(data=m)) for m in messages)
    reader, events, at = FrameReader(MAX), [], 0
    for cut in [*cuts, len(data)]:
        events += reader.feed(data[at : at + cut])
        at += cut
    assert events == [Text(m) for m in messages]


def test_a_fragmented_message_with_a_ping_between_its_fragments() -> None:
    sender = client()
    data = (
        sender.send(TextMessage(data='{"a": ', message_finished=False))
        + sender.send(Ping(b"are you there"))
        + sender.send(TextMessage(data="1}", message_finished=True))
    )
    assert FrameReader(MAX).feed(data) == [frames.Ping(b"are you there"), Text('{"a": 1}')]


def test_pongs_are_dropped_and_binary_is_reported_at_its_first_frame() -> None:
    sender = client()
    data = sender.send(BytesMessage(b"{}", message_finished=False))
    assert FrameReader(MAX).feed(masked(0x8A, b"late pong") + data) == [Binary()]


def test_close_frames_give_their_code_and_reason() -> None:
    assert FrameReader(MAX).feed(client().send(CloseConnection(1000, "bye"))) == [Close(1000, "bye")]
    assert FrameReader(MAX).feed(client().send(CloseConnection(4001, ""))) == [Close(4001, "")]
    assert FrameReader(MAX).feed(masked(0x88, b"")) == [Close(frames.NO_STATUS, "")]


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        (b"\x81\x05hello", 1002),  # not masked
        (masked(0xC1, b"{}"), 1002),  # reserved bit (a compression extension nobody negotiated)
        (masked(0x83, b"{}"), 1002),  # unknown opcode
        (masked(0x80, b"{}"), 1002),  # a continuation with nothing to continue
        (masked(0x09, b""), 1002),  # a fragmented ping
        (masked(0x89, b"x" * 126), 1002),  # a ping longer than 125 bytes
        (masked(0x81, b"{}", length=b"\xfe\x00\x02"), 1002),  # a length not in its shortest form
        (masked(0x88, b"\x03"), 1002),  # a close payload of one byte
        (masked(0x88, struct.pack("!H", 1005)), 1002),  # a code only ever used locally
        (masked(0x88, struct.pack("!H", 2000)), 1002),  # a reserved code
        (masked(0x88, struct.pack("!H", 999)), 1002),
        (masked(0x88, struct.pack("!H", 1000) + b"\xff"), 1007),  # a reason that is not UTF-8
        (masked(0x81, b"\xc3\x28"), 1007),  # text that is not UTF-8
    ],
)
def test_violations_are_refused_with_their_close_code(frame: bytes, code: int) -> None:
    assert refusal(frame) == code


def test_a_new_message_before_the_last_one_ended_is_a_protocol_error() -> None:
    sender = client()
    first = sender.send(TextMessage(data="{", message_finished=False))
    assert refusal(first + masked(0x81, b"{}")) == 1002


def test_text_split_inside_a_character_between_fragments_is_still_utf8() -> None:
    encoded = "«é»".encode()
    data = masked(0x01, encoded[:2]) + masked(0x80, encoded[2:])
    assert FrameReader(MAX).feed(data) == [Text("«é»")]


def test_a_message_too_long_is_refused_1009_from_its_header_before_its_payload_arrives() -> None:
    header = bytes((0x81, 0xFE)) + struct.pack("!H", MAX + 1) + b"\0\0\0\0"
    assert refusal(header) == 1009
    reader = FrameReader(MAX)
    assert reader.feed(masked(0x01, b"x" * 3000)) == []
    with pytest.raises(ProtocolViolation) as refused:
        reader.feed(masked(0x80, b"x" * 2000))
    assert refused.value.code == 1009


def test_the_servers_frames_read_back_with_wsproto() -> None:
    reader = client()
    reader.receive_data(
        frames.text_frame(b"x" * 70_000)
        + frames.control_frame(frames.PING, b"hb")
        + frames.close_frame(1009, "messages are at most 4096 bytes")
    )
    events = list(reader.events())
    assert [type(e).__name__ for e in events] == ["TextMessage", "Ping", "CloseConnection"]
    assert events[0].data == "x" * 70_000
    assert (events[2].code, events[2].reason) == (1009, "messages are at most 4096 bytes")
