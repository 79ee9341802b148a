"""Message types, payload layouts, and the small events the host application receives.

Payload layouts are in docs/protocol.md; all integers are big-endian. The event dataclasses
at the bottom are what `Link` hands to the application: plain, frozen, no controller types.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
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
    LAMPS = 0x20


# Sequenced (reliable) types; the others carry seq 0 and are never retransmitted.
UNSEQUENCED = frozenset({MsgType.HELLO, MsgType.HEARTBEAT, MsgType.ACK})


class Role(IntEnum):
    HOST = 0
    MCU = 1


# The button ids 1..4 and the LAMPS bit order are those of `contract` (docs/protocol.md).
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
    card_counter: int  # MCU: counter of the last card it detected; host: 0
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


def unpack_error(payload: bytes) -> tuple[int, str]:
    if not payload:
        raise MessageError("empty ERROR payload")
    return payload[0], payload[1:].decode("utf-8", errors="replace")


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


@dataclass(frozen=True)
class CardPresent:
    counter: int


@dataclass(frozen=True)
class CardGone:
    counter: int


@dataclass(frozen=True)
class CardsMissed:
    """Cards the MCU counted that were never reported (host away, MCU queue overflowed)."""

    count: int
    after_counter: int  # the last counter the host had seen before the gap


@dataclass(frozen=True)
class ButtonPressed:
    name: str


@dataclass(frozen=True)
class LidChanged:
    open: bool


@dataclass(frozen=True)
class McuError:
    code: int
    text: str


LinkEvent = (
    LinkUp | LinkDown | McuReset | CardPresent | CardGone | CardsMissed | ButtonPressed
    | LidChanged | McuError
)  # fmt: skip
