"""Message types, payload layouts, and the small events the host application receives.

Payload layouts are in docs/protocol.md; all integers are big-endian. Version 2 puts the
MCU's event number in front of every payload it originates (`with_event`/`split_event`)
and adds OVERFLOW. The event dataclasses at the bottom are what `Link` hands to the
application: plain, frozen, no controller types.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

from contract import BUTTON_NAMES, LAMP_NAMES
from firmware_bridge.errors import MessageError


class MsgType(IntEnum):
    HELLO = 0x01
    HEARTBEAT = 0x02
    ACK = 0x03
    CARD_PRESENT = 0x10
    CARD_GONE = 0x11
    BUTTON = 0x12
    LID = 0x13
    ERROR = 0x14
    OVERFLOW = 0x15  # version 2
    LAMPS = 0x20


# Sequenced (reliable) types; the others carry seq 0 and are never retransmitted.
UNSEQUENCED = frozenset({MsgType.HELLO, MsgType.HEARTBEAT, MsgType.ACK})
# What the MCU originates, each numbered by its event counter in version 2.
EVENT_TYPES = frozenset({MsgType.CARD_PRESENT, MsgType.CARD_GONE, MsgType.BUTTON, MsgType.LID,
                         MsgType.ERROR})

PROTOCOL = 2  # the highest protocol version this code speaks (HELLO's `protocol`)


class Role(IntEnum):
    HOST = 0
    MCU = 1


# The button ids 1..5 and the LAMPS bit order are those of `contract` (docs/protocol.md).
BUTTONS = BUTTON_NAMES
LAMPS_ORDER = LAMP_NAMES

HELLO_FIXED = struct.Struct(">BBBIII")  # protocol, role, flags, boot id, peer boot id, cards
HELLO_READY = 0x01  # flags bit 0: the sender has completed the handshake with the named peer
MAX_VERSION_TEXT = 32
U32 = struct.Struct(">I")


@dataclass(frozen=True)
class Hello:
    protocol: int
    role: Role
    ready: bool
    boot_id: int
    peer_boot_id: int  # 0: the sender has not heard from anyone yet
    # MCU: counter of the last card it detected. Host: 0 in version 1; in version 2 the
    # resume point, the last event it journaled from the MCU boot named in `peer_boot_id`.
    card_counter: int
    version: str


def pack_hello(hello: Hello) -> bytes:
    text = hello.version.encode("utf-8")[:MAX_VERSION_TEXT]
    flags = HELLO_READY if hello.ready else 0
    return (
        HELLO_FIXED.pack(
            hello.protocol, hello.role, flags, hello.boot_id, hello.peer_boot_id, hello.card_counter
        )
        + text
    )


def unpack_hello(payload: bytes) -> Hello:
    if len(payload) < HELLO_FIXED.size:
        raise MessageError(f"HELLO payload of {len(payload)} bytes, need {HELLO_FIXED.size}")
    protocol, role, flags, boot, peer, cards = HELLO_FIXED.unpack_from(payload)
    if role not in (Role.HOST, Role.MCU):
        raise MessageError(f"HELLO with unknown role {role}")
    text = payload[HELLO_FIXED.size :].decode("utf-8", errors="replace")
    return Hello(protocol, Role(role), bool(flags & HELLO_READY), boot, peer, cards, text)


def pack_counter(counter: int) -> bytes:
    return U32.pack(counter & 0xFFFFFFFF)


def unpack_counter(payload: bytes) -> int:
    if len(payload) != U32.size:
        raise MessageError(f"card counter payload of {len(payload)} bytes, need 4")
    return U32.unpack(payload)[0]


def pack_button(name: str) -> bytes:
    if name not in BUTTONS:
        raise MessageError(f"unknown button {name!r}; known: {', '.join(BUTTONS)}")
    return bytes([BUTTONS.index(name) + 1])


def unpack_button(payload: bytes) -> str:
    if len(payload) != 1 or not 1 <= payload[0] <= len(BUTTONS):
        raise MessageError(f"bad BUTTON payload {payload.hex()}")
    return BUTTONS[payload[0] - 1]


def pack_lamps(lit: frozenset[str] | set[str]) -> bytes:
    unknown = sorted(set(lit) - set(LAMPS_ORDER))
    if unknown:
        raise MessageError(f"unknown lamp {unknown[0]!r}; known: {', '.join(LAMPS_ORDER)}")
    mask = sum(1 << i for i, name in enumerate(LAMPS_ORDER) if name in lit)
    return struct.pack(">H", mask)


def unpack_lamps(payload: bytes) -> frozenset[str]:
    if len(payload) != 2:
        raise MessageError(f"LAMPS payload of {len(payload)} bytes, need 2")
    (mask,) = struct.unpack(">H", payload)
    return frozenset(name for i, name in enumerate(LAMPS_ORDER) if mask >> i & 1)


def pack_error(code: int, text: str) -> bytes:
    return bytes([code & 0xFF]) + text.encode("utf-8")[: 64 - 1]


EVENT_ROOM = 64 - U32.size  # what is left of a payload after its event number


def with_event(event: int, payload: bytes) -> bytes:
    """A version 2 payload: the event number, then the version 1 payload (an ERROR's text
    cut to fit)."""
    return U32.pack(event & 0xFFFFFFFF) + payload[:EVENT_ROOM]


def split_event(payload: bytes) -> tuple[int, bytes]:
    if len(payload) < U32.size:
        raise MessageError(f"version 2 payload of {len(payload)} bytes has no event number")
    return U32.unpack_from(payload)[0], payload[U32.size:]


UNKNOWN = 0xFFFF  # an OVERFLOW count that is not known
OVERFLOW_LAYOUT = struct.Struct(">IIHHHH")
LOST_KINDS = ("cards", "buttons", "lids", "errors")
KIND_OF_TYPE = {MsgType.CARD_PRESENT: "cards", MsgType.CARD_GONE: "cards",
                MsgType.BUTTON: "buttons", MsgType.LID: "lids", MsgType.ERROR: "errors"}


@dataclass(frozen=True)
class Overflow:
    """Events `first`..`last` will never be sent; how many were of each kind (None: not
    known)."""

    first: int
    last: int
    cards: int | None = 0
    buttons: int | None = 0
    lids: int | None = 0
    errors: int | None = 0

    def counts(self) -> dict[str, int | None]:
        return {kind: getattr(self, kind) for kind in LOST_KINDS}

    def widened(self, other: Overflow) -> Overflow:
        """Both losses as one: the span of both, the counts added (unknown stays unknown)."""
        def add(a: int | None, b: int | None) -> int | None:
            return None if a is None or b is None else min(a + b, UNKNOWN - 1)

        mine, theirs = self.counts(), other.counts()
        return Overflow(min(self.first, other.first), max(self.last, other.last),
                        **{kind: add(mine[kind], theirs[kind]) for kind in LOST_KINDS})


def pack_overflow(overflow: Overflow) -> bytes:
    counts = [UNKNOWN if n is None else min(n, UNKNOWN - 1) for n in overflow.counts().values()]
    return OVERFLOW_LAYOUT.pack(overflow.first, overflow.last, *counts)


def unpack_overflow(payload: bytes) -> Overflow:
    if len(payload) != OVERFLOW_LAYOUT.size:
        raise MessageError(f"OVERFLOW payload of {len(payload)} bytes, need "
                           f"{OVERFLOW_LAYOUT.size}")
    first, last, *counts = OVERFLOW_LAYOUT.unpack(payload)
    if last < first:
        raise MessageError(f"OVERFLOW from event {first} to {last}")
    return Overflow(first, last, *(None if n == UNKNOWN else n for n in counts))


def unpack_error(payload: bytes) -> tuple[int, str]:
    if not payload:
        raise MessageError("empty ERROR payload")
    return payload[0], payload[1:].decode("utf-8", errors="replace")


def check_from_mcu(kind: int, payload: bytes, link_version: int) -> None:
    """Raise MessageError unless `payload` is a well-formed message of `kind` from the MCU
    (from `link_version` 2, an event number first; OVERFLOW is version 2's alone). The
    signature is `Session.check`'s."""
    numbered = link_version >= 2
    if numbered and kind == MsgType.OVERFLOW:
        unpack_overflow(payload)
        return
    if kind not in EVENT_TYPES:
        raise MessageError(f"message type {kind:#04x} is not one an MCU sends")
    if numbered:
        _, payload = split_event(payload)
    if kind in (MsgType.CARD_PRESENT, MsgType.CARD_GONE):
        unpack_counter(payload)
    elif kind == MsgType.BUTTON:
        unpack_button(payload)
    elif kind == MsgType.LID:
        if len(payload) != 1 or payload[0] > 1:
            raise MessageError(f"bad LID payload {payload.hex()}")
    else:
        unpack_error(payload)


def check_from_host(kind: int, payload: bytes, link_version: int) -> None:
    """Raise MessageError unless `payload` is a well-formed message of `kind` from a host:
    the MCU takes LAMPS and ERROR, alike in every version. The signature is
    `Session.check`'s."""
    if kind == MsgType.LAMPS:
        unpack_lamps(payload)
    elif kind == MsgType.ERROR:
        unpack_error(payload)
    else:
        raise MessageError(f"message type {kind:#04x} is not one a host sends")


# ---- events delivered to the host application -------------------------------------------


@dataclass(frozen=True)
class LinkUp:
    firmware: str
    boot_id: int
    card_counter: int


@dataclass(frozen=True)
class LinkDown:
    reason: str


@dataclass(frozen=True)
class McuReset:
    """The microcontroller restarted (new boot id): its queue and card counter were lost."""

    old_boot_id: int
    new_boot_id: int


# `mcu_event`: the MCU's event number (version 2; 0 from a version 1 MCU). Not part of equality:
# the same card report is the same, whichever number carried it.
_EVENT = field(default=0, compare=False)


@dataclass(frozen=True)
class CardPresent:
    counter: int
    mcu_event: int = _EVENT


@dataclass(frozen=True)
class CardGone:
    counter: int
    mcu_event: int = _EVENT


@dataclass(frozen=True)
class CardsMissed:
    """Cards the MCU counted that were never reported (host away, MCU queue overflowed)."""

    count: int
    after_counter: int  # the last counter the host had seen before the gap


@dataclass(frozen=True)
class ButtonPressed:
    name: str
    mcu_event: int = _EVENT


@dataclass(frozen=True)
class LidChanged:
    open: bool
    mcu_event: int = _EVENT


@dataclass(frozen=True)
class McuError:
    code: int
    text: str
    mcu_event: int = _EVENT


@dataclass(frozen=True)
class EventsLost:
    """MCU events `first`..`last` that will never arrive (version 2: an OVERFLOW, or a gap
    in the event numbers); how many were of each kind, None where not known."""

    first: int
    last: int
    cards: int | None = None
    buttons: int | None = None
    lids: int | None = None
    errors: int | None = None

    def describe(self) -> str:
        known = [f"{getattr(self, kind)} {one}" for kind, (one, _) in _LOST_NAMES.items()
                 if getattr(self, kind)]
        unknown = [many for kind, (_, many) in _LOST_NAMES.items() if getattr(self, kind) is None]
        parts = known + ([f"an unknown number of {', '.join(unknown)}"] if unknown else [])
        return (f"the shoe's microcontroller lost events {self.first}-{self.last} "
                f"({'; '.join(parts) or 'nothing the table needs'})")


_LOST_NAMES = {"cards": ("card report(s)", "card reports"),
               "buttons": ("button press(es)", "button presses"),
               "lids": ("lid change(s)", "lid changes"), "errors": ("error(s)", "errors")}


LinkEvent = (
    LinkUp | LinkDown | McuReset | CardPresent | CardGone | CardsMissed | ButtonPressed
    | LidChanged | McuError | EventsLost
)  # fmt: skip
