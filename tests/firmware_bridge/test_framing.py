import binascii
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import framing
from firmware_bridge.errors import CrcError, FrameError, LinkError
from firmware_bridge.framing import Frame, FrameReader, crc16, decode, encode

PROTOCOL_MD = Path(__file__).parents[2] / "docs" / "protocol.md"


def doc_vectors():
    blocks = re.findall(r"```vectors\n(.*?)```", PROTOCOL_MD.read_text(), re.S)
    for line in "".join(blocks).splitlines():
        left, wire = line.split("->")
        name, kind, seq, ack, *payload = left.split()
        payload = b"" if payload == ["-"] else bytes.fromhex("".join(payload))
        yield name, Frame(int(kind, 16), int(seq), int(ack), payload), bytes.fromhex(wire)


VECTORS = list(doc_vectors())


def test_crc_is_ccitt_false_with_its_check_value():
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"123456789") == binascii.crc_hqx(b"123456789", 0xFFFF)


def test_protocol_md_has_vectors_for_every_message_type():
    assert {name for name, _, _ in VECTORS} >= {
        "HELLO", "HEARTBEAT", "ACK", "CARD_PRESENT", "CARD_GONE", "BUTTON", "LID", "ERROR",
        "LAMPS",
    }  # fmt: skip


@pytest.mark.parametrize(("name", "frame", "wire"), VECTORS, ids=[v[0] for v in VECTORS])
def test_documented_vectors_encode_and_decode_literally(name, frame, wire):
    assert encode(frame) == wire
    assert decode(wire[:-1]) == frame
    assert FrameReader().push(wire) == [frame]


def test_bad_crc_is_a_crc_error_and_a_link_error():
    wire = bytearray(VECTORS[0][2])
    wire[-2] ^= 0x01
    with pytest.raises(CrcError) as caught:
        decode(bytes(wire[:-1]))
    assert isinstance(caught.value, LinkError) and isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("piece", "complaint"),
    [(b"\x02\x01", "shorter"), (b"\x05\x01", "COBS"), (b"\x07\x02\x02\x01\x02\x03\x04", "version")],
)
def test_malformed_pieces_say_what_is_wrong(piece, complaint):
    if complaint == "version":
        body = bytes([2, 2, 0, 0])
        piece = framing.cobs.encode(body + crc16(body).to_bytes(2, "big"))
    with pytest.raises(FrameError, match=complaint):
        decode(piece)


def test_payload_longer_than_the_limit_is_refused():
    with pytest.raises(FrameError, match="exceeds"):
        encode(Frame(0x10, 1, 0, bytes(framing.MAX_PAYLOAD + 1)))


def test_reader_resyncs_after_garbage_and_a_truncated_frame_and_counts_them():
    good = [encode(Frame(0x10, n, 0, n.to_bytes(4, "big"))) for n in range(1, 5)]
    stream = (
        b"\x00\x00junk\x13\x37\x00"  # garbage between frames
        + good[0]
        + good[1][:5]  # truncated: its delimiter is lost, so it swallows the next frame
        + good[2]
        + b"\xff" * 200  # a long run without a delimiter
        + b"\x00"
        + good[3]
    )
    reader = FrameReader()
    frames = []
    for i in range(0, len(stream), 7):  # arbitrary chunking must not matter
        frames += reader.push(stream[i : i + 7])
    assert [f.seq for f in frames] == [1, 4]
    assert reader.stats.frames == 2
    assert reader.stats.crc_errors + reader.stats.bad_frames + reader.stats.overlong >= 3


frames_strategy = st.builds(
    Frame,
    type=st.integers(0, 255),
    seq=st.integers(0, 255),
    ack=st.integers(0, 255),
    payload=st.binary(max_size=framing.MAX_PAYLOAD),
)


@settings(max_examples=300)
@given(frames_strategy)
def test_every_frame_round_trips_and_has_exactly_one_zero(frame):
    wire = encode(frame)
    assert wire.count(0) == 1 and wire.endswith(b"\x00")
    assert decode(wire[:-1]) == frame


def the_one_flip_the_crc_misses(frame: Frame) -> bool:
    """Whether `frame` is one whose body ends in 0x00 because its payload's last byte is
    the high byte of the CRC before it: then COBS ends the wire with 0x01, and that byte's
    low bit flipped is a delimiter, which drops the body's last byte, and what is left ends
    in a right CRC (docs/protocol.md, section 1). One frame in 256 with a payload."""
    if not frame.payload:
        return False
    head = framing.HEADER.pack(frame.version, frame.type, frame.seq, frame.ack)
    return frame.payload[-1] == crc16(head + frame.payload[:-1]) >> 8


@settings(max_examples=300)
@given(frames_strategy, st.data())
def test_a_single_bit_flip_is_never_accepted_but_as_the_frame_less_its_last_byte(frame, data):
    """CRC-16 sees every single-bit error in the body; a flip can also make a delimiter out
    of the wire's last byte, which the CRC sees unless `the_one_flip_the_crc_misses`. The
    receiver's checks of each type's payload (section 4) are there for what passes."""
    wire = bytearray(encode(frame))
    bit = data.draw(st.integers(0, (len(wire) - 1) * 8 - 1))
    wire[bit // 8] ^= 1 << (bit % 8)
    decoded = FrameReader().push(bytes(wire) + b"\x00")
    if decoded:
        assert the_one_flip_the_crc_misses(frame) and bit == (len(wire) - 2) * 8
        assert decoded == [Frame(frame.type, frame.seq, frame.ack, frame.payload[:-1])]


def test_the_flip_the_crc_misses_drops_the_last_byte_of_such_a_frame_only():
    """Found by hypothesis: a 3-byte payload whose last byte ("Q") is the high byte of the
    CRC of what comes before it; its last wire byte's low bit flipped gives a valid frame
    of 2 bytes. Any other last byte, and the same flip is caught."""
    frame = Frame(59, 7, 139, b"}\xffQ")
    assert the_one_flip_the_crc_misses(frame)
    wire = bytearray(encode(frame))
    assert wire[-2:] == b"\x01\x00"
    wire[-2] ^= 1
    assert FrameReader().push(bytes(wire) + b"\x00") == [Frame(59, 7, 139, b"}\xff")]
    for last in range(256):
        other = Frame(59, 7, 139, b"}\xff" + bytes([last]))
        wire = bytearray(encode(other))
        wire[-2] ^= 1
        passed = FrameReader().push(bytes(wire) + b"\x00")
        assert bool(passed) == the_one_flip_the_crc_misses(other) == (last == ord("Q"))


@settings(max_examples=200)
@given(st.lists(frames_strategy, max_size=8), st.binary(max_size=40), st.integers(1, 16))
def test_stream_of_frames_with_leading_garbage_yields_every_frame(frames, garbage, chunk):
    stream = garbage + b"\x00" + b"".join(encode(f) for f in frames)
    reader = FrameReader()
    got = []
    for i in range(0, len(stream), chunk):
        got += reader.push(stream[i : i + chunk])
    # Garbage can only ever add frames if it happens to be a valid frame itself.
    assert got[len(got) - len(frames) :] == frames


def test_a_crc_valid_frame_with_a_payload_past_the_limit_is_skipped_and_counted():
    """docs/protocol.md section 1: a payload is 0-64 bytes, anything longer is skipped and
    counted, as the C firmware does; the host delivered one of 69 bytes (a review, stop 53)."""
    from cobs import cobs

    body = bytes([framing.FRAME_VERSION, 0x05, 1, 0, 7]) + b"x" * 68
    wire = cobs.encode(body + crc16(body).to_bytes(2, "big")) + b"\x00"
    reader = FrameReader()
    assert reader.push(wire) == []
    assert reader.stats.bad_frames == 1 and reader.stats.frames == 0
    assert "longer than 70" in reader.last_error
    good = encode(Frame(0x05, 1, 0, b"x" * framing.MAX_PAYLOAD))
    assert len(reader.push(good)) == 1  # the most a frame may hold still comes through
