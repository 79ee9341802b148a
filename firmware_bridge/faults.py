"""Line damage for tests, rigs and benchmarks: drop, duplicate, bit-flip, truncate, garbage,
and damage past the CRC.

`FaultyLine.apply(frames)` takes encoded frames (delimiters included) and returns the bytes
that reach the other end. Every knob is a probability per frame, drawn from a seeded RNG so a
failing run can be repeated exactly.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass, field

from firmware_bridge import framing
from firmware_bridge.messages import UNSEQUENCED


@dataclass
class Faults:
    drop: float = 0.0
    duplicate: float = 0.0
    bitflip: float = 0.0
    truncate: float = 0.0  # the frame is cut short, its delimiter lost: it merges with the next
    garbage: float = 0.0  # random bytes (maybe with zeros) written before the frame
    # A sequenced frame's payload cut a byte short with its CRC made right again: damage
    # CRC-16 misses, which one damaged frame in 65,536 is on a real line.
    past_crc: float = 0.0

    @classmethod
    def damaged(cls, rate: float) -> Faults:
        """`rate` of frames damaged, split evenly across the five kinds."""
        share = rate / 5
        return cls(share, share, share, share, share)

    @property
    def total(self) -> float:
        return self.drop + self.duplicate + self.bitflip + self.truncate + self.garbage


@dataclass
class FaultStats:
    frames: int = 0
    dropped: int = 0
    duplicated: int = 0
    flipped: int = 0
    truncated: int = 0
    garbage: int = 0
    past_crc: int = 0

    @property
    def damaged(self) -> int:
        return self.dropped + self.duplicated + self.flipped + self.truncated + self.garbage


@dataclass
class FaultyLine:
    faults: Faults = field(default_factory=Faults)
    seed: int = 0
    stats: FaultStats = field(default_factory=FaultStats)

    def __post_init__(self):
        self.rng = random.Random(self.seed)

    def apply(self, frames: list[bytes]) -> bytes:
        out = bytearray()
        for frame in frames:
            if frame:
                out += self._one(frame)
        return bytes(out)

    def _one(self, frame: bytes) -> bytes:
        self.stats.frames += 1
        f, roll = self.faults, self.rng.random()
        if roll < f.drop:
            self.stats.dropped += 1
            return b""
        roll -= f.drop
        if roll < f.duplicate:
            self.stats.duplicated += 1
            return frame + frame
        roll -= f.duplicate
        if len(frame) < 3:
            return frame  # a delimiter and one byte: nothing to flip or cut short but those
        if roll < f.bitflip:
            self.stats.flipped += 1
            damaged = bytearray(frame)
            bit = self.rng.randrange((len(frame) - 1) * 8)  # leave the delimiter alone
            damaged[bit // 8] ^= 1 << (bit % 8)
            return bytes(damaged)
        roll -= f.bitflip
        if roll < f.truncate:
            self.stats.truncated += 1
            return frame[: self.rng.randrange(1, len(frame) - 1)]
        roll -= f.truncate
        if roll < f.garbage:
            self.stats.garbage += 1
            noise = bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(1, 24)))
            return noise + b"\x00" + frame if self.rng.random() < 0.5 else noise + frame
        roll -= f.garbage
        if roll < f.past_crc:
            forged = _past_crc(frame)
            if forged is not None:
                self.stats.past_crc += 1
                return forged
        return frame


def _past_crc(frame: bytes) -> bytes | None:
    """`frame` (delimiter included) with its payload a byte short, or a byte more when it
    has none, and a right CRC; None for a frame that is not a sequenced one."""
    try:
        decoded = framing.decode(frame[:-1])
    except framing.FrameError:
        return None
    if decoded.type in UNSEQUENCED:
        return None
    payload = decoded.payload[:-1] if decoded.payload else b"\x01"
    return framing.encode(dataclasses.replace(decoded, payload=payload))
