"""Frames on the wire: COBS(header | payload | CRC-16) followed by a 0x00 delimiter.

See docs/protocol.md for the layout and test vectors. This module knows nothing about
sequencing or message meaning; it turns bodies into bytes and a byte stream back into
bodies, skipping (and counting) anything damaged so one bad byte costs at most one frame.
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field

from cobs import cobs

from firmware_bridge.errors import CrcError, FrameError

FRAME_VERSION = 1  # the framing's own version, 1 in protocol versions 1 and 2
DELIMITER = b"\x00"
HEADER = struct.Struct(">BBBB")  # version, type, seq, ack
CRC_SIZE = 2
MAX_PAYLOAD = 64
MIN_BODY = HEADER.size + CRC_SIZE
# COBS adds at most one byte per 254, plus one; anything longer between delimiters is junk.
MAX_ENCODED = MIN_BODY + MAX_PAYLOAD + 2


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF); crc16(b"123456789") == 0x29B1."""
    return binascii.crc_hqx(data, 0xFFFF)


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    ack: int
    payload: bytes = b""
    version: int = FRAME_VERSION


def encode(frame: Frame) -> bytes:
    """The bytes to write for one frame, delimiter included."""
    if len(frame.payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(frame.payload)} bytes exceeds {MAX_PAYLOAD}")
    body = HEADER.pack(frame.version, frame.type, frame.seq, frame.ack) + frame.payload
    body += struct.pack(">H", crc16(body))
    return cobs.encode(body) + DELIMITER


def decode(encoded: bytes) -> Frame:
    """One frame from the bytes between two delimiters (delimiter excluded)."""
    try:
        body = cobs.decode(encoded)
    except cobs.DecodeError as error:
        raise FrameError(f"bad COBS encoding: {error}") from None
    if len(body) < MIN_BODY:
        raise FrameError(f"frame of {len(body)} bytes is shorter than {MIN_BODY}")
    if len(body) > MIN_BODY + MAX_PAYLOAD:
        # docs/protocol.md section 1: a longer payload is skipped and counted, as the
        # firmware skips it (a CRC-valid 69-byte payload was delivered: a review, stop 53).
        raise FrameError(f"frame of {len(body)} bytes is longer than "
                         f"{MIN_BODY + MAX_PAYLOAD} (a payload of at most {MAX_PAYLOAD})")
    (expected,) = struct.unpack(">H", body[-CRC_SIZE:])
    actual = crc16(body[:-CRC_SIZE])
    if actual != expected:
        raise CrcError(f"CRC {actual:#06x} != {expected:#06x}")
    version, kind, seq, ack = HEADER.unpack(body[: HEADER.size])
    if version != FRAME_VERSION:
        raise FrameError(f"frame version {version}, expected {FRAME_VERSION}")
    return Frame(kind, seq, ack, bytes(body[HEADER.size : -CRC_SIZE]), version)


@dataclass
class FrameStats:
    frames: int = 0
    crc_errors: int = 0
    bad_frames: int = 0  # COBS, length or version problems
    overlong: int = 0  # no delimiter for too long: garbage or a lost delimiter
    discarded_bytes: int = 0


@dataclass
class FrameReader:
    """Splits a byte stream at delimiters and decodes each piece; bad pieces are counted."""

    stats: FrameStats = field(default_factory=FrameStats)
    _pending: bytearray = field(default_factory=bytearray)
    last_error: str = ""

    def push(self, data: bytes) -> list[Frame]:
        frames = []
        self._pending += data
        while True:
            end = self._pending.find(0)
            if end < 0:
                break
            piece = bytes(self._pending[:end])
            del self._pending[: end + 1]
            if not piece:
                continue  # back-to-back delimiters are allowed (resync after port open)
            frame = self._decode(piece)
            if frame is not None:
                frames.append(frame)
        if len(self._pending) > MAX_ENCODED:
            # Keep waiting for a delimiter, but drop what can no longer be a frame's start.
            self.stats.overlong += 1
            self.stats.discarded_bytes += len(self._pending)
            self._pending.clear()
        return frames

    def _decode(self, piece: bytes) -> Frame | None:
        try:
            frame = decode(piece)
        except CrcError as error:
            self.stats.crc_errors += 1
            self.stats.discarded_bytes += len(piece)
            self.last_error = str(error)
            return None
        except FrameError as error:
            self.stats.bad_frames += 1
            self.stats.discarded_bytes += len(piece)
            self.last_error = str(error)
            return None
        self.stats.frames += 1
        return frame
