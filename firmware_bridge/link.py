"""The host's end of the link to the shoe microcontroller.

A pure state machine with an injected clock: feed it received bytes and the time, call
`tick` every few milliseconds, write whatever `take_output` returns, and act on the returned
events (frozen dataclasses from `firmware_bridge.messages`). `transport.SerialTransport`
does exactly that over a serial port in a thread.
"""

from __future__ import annotations

import logging

from firmware_bridge.errors import MessageError
from firmware_bridge.messages import (
    EVENT_TYPES,
    ButtonPressed,
    CardGone,
    CardPresent,
    CardsMissed,
    EventsLost,
    LidChanged,
    LinkDown,
    LinkEvent,
    LinkUp,
    McuError,
    McuReset,
    MsgType,
    Role,
    check_from_mcu,
    pack_error,
    pack_lamps,
    split_event,
    unpack_button,
    unpack_counter,
    unpack_error,
    unpack_overflow,
)
from firmware_bridge.session import (
    Delivered,
    Down,
    LinkTiming,
    PeerHello,
    Session,
    SessionEvent,
    Up,
    new_boot_id,
)

log = logging.getLogger(__name__)


class Link:
    """Host side: decodes the MCU's messages and watches its counters for gaps.

    Card counters: every CARD_PRESENT carries the MCU's running count (0 at its boot). A jump
    is reported as `CardsMissed` (the MCU's queue overflowed while the host was away).
    Event numbers (version 2, docs/protocol.md 8): every MCU message carries one; a replay
    of one already delivered is dropped, an OVERFLOW or a gap is `EventsLost`. After a
    host restart pass `resume=(mcu_boot_id, last_card_counter, last_event)` from the
    journal: the MCU then sends its events after `last_event` (version 2), reports the old
    process already saw are skipped, and a gap since then is reported.
    """

    def __init__(
        self,
        *,
        timing: LinkTiming | None = None,
        version: str = "sabot-host",
        boot_id: int | None = None,
        resume: tuple[int, int] | tuple[int, int, int] | None = None,
    ):
        self.session = Session(Role.HOST, version, boot_id or new_boot_id(), timing or LinkTiming(),
                               check=check_from_mcu)
        self._resume = resume
        if resume is not None and len(resume) > 2 and resume[2]:
            self.session.resume_points[resume[0]] = resume[2]
        self.last_card: int | None = None
        self.last_event: int | None = None  # the newest MCU event delivered (version 2)
        self.lamps: frozenset[str] | None = None  # the last LAMPS asked for
        self._garbage_seen = 0
        self._corrupt_seen = 0

    # ---- driving the state machine ----------------------------------------------------

    def feed(self, data: bytes, now: float) -> list[LinkEvent]:
        events = self._translate(self.session.feed(data, now), now)
        self._log_damage()
        return events

    def tick(self, now: float) -> list[LinkEvent]:
        return self._translate(self.session.tick(now), now)

    def take_output(self) -> bytes:
        """Bytes to write to the port (possibly several frames, possibly nothing)."""
        return b"".join(self.session.take_output())

    def take_frames(self) -> list[bytes]:
        """Like `take_output`, one encoded frame per item (for fault injection)."""
        return self.session.take_output()

    def port_lost(self, reason: str) -> list[LinkEvent]:
        """The transport lost the device; report it now rather than after the heartbeat."""
        if not self.session.up:
            return []
        self.session.up = False
        return [LinkDown(reason)]

    # ---- commands to the MCU ----------------------------------------------------------

    def send_lamps(self, lit: set[str] | frozenset[str], now: float) -> None:
        self.session.send(MsgType.LAMPS, pack_lamps(frozenset(lit)), now)
        self.lamps = frozenset(lit)

    def send_error(self, code: int, text: str, now: float) -> None:
        self.session.send(MsgType.ERROR, pack_error(code, text), now)

    # ---- state --------------------------------------------------------------------------

    @property
    def up(self) -> bool:
        return self.session.up

    @property
    def stats(self) -> dict[str, int]:
        return {**vars(self.session.reader.stats), **vars(self.session.stats)}

    # ---- translation ------------------------------------------------------------------

    def _translate(self, events: list[SessionEvent], now: float) -> list[LinkEvent]:
        out: list[LinkEvent] = []
        for event in events:
            if isinstance(event, Delivered):
                try:
                    out.extend(self._message(event))
                except (MessageError, ValueError) as error:
                    log.warning("ignored a malformed message from the MCU: %s", error)
            elif isinstance(event, PeerHello):
                out.extend(self._peer_hello(event, now))
            elif isinstance(event, Up):
                hello = event.hello
                out.append(LinkUp(hello.version, hello.boot_id, hello.card_counter))
            elif isinstance(event, Down):
                out.append(LinkDown(event.reason))
        return out

    def _peer_hello(self, event: PeerHello, now: float) -> list[LinkEvent]:
        hello = event.hello
        previous = event.previous
        if previous is None and self._resume is not None:
            previous, self.last_card, *event = self._resume
            self._resume = None
            if previous == hello.boot_id:
                # The same MCU: its queue (version 1) or its history after our resume
                # point (version 2) holds what we have not journaled.
                self.last_event = event[0] if event and event[0] else None
                return []
        # Version 2's HELLO names the card counter the MCU's queue starts after (cards it
        # dropped before any host came are then CardsMissed); version 1 has none.
        baseline = hello.card_counter if min(hello.protocol, self.session.protocol) >= 2 else None
        if previous is None:
            self.last_card = baseline  # None: the first card report sets it
            return []
        log.warning("shoe MCU restarted: boot id %#010x -> %#010x", previous, hello.boot_id)
        self.last_card = baseline or 0  # the MCU's counters start at 0 at every boot
        self.last_event = 0
        if self.lamps is not None:
            # A rebooted MCU lost its lamps (it shows only `fault`): they go again, even
            # if the old boot had acknowledged them.
            self.session.send(MsgType.LAMPS, pack_lamps(self.lamps), now)
        return [McuReset(previous, hello.boot_id)]

    def _message(self, delivered: Delivered) -> list[LinkEvent]:
        kind, payload = delivered.type, delivered.payload
        numbered = self.session.link_version >= 2
        if numbered and kind == MsgType.OVERFLOW:
            return self._overflow(payload)
        if kind not in EVENT_TYPES:
            log.warning("ignored message type %#04x from the MCU", kind)
            return []
        out: list[LinkEvent] = []
        event = 0
        if numbered:
            event, payload = split_event(payload)
            if self.last_event is not None:
                if event <= self.last_event:
                    return []  # delivered before (a restarted host's replay)
                if event > self.last_event + 1:
                    log.warning("MCU events %d-%d never came", self.last_event + 1, event - 1)
                    out.append(EventsLost(self.last_event + 1, event - 1))
            self.last_event = event
        if kind in (MsgType.CARD_PRESENT, MsgType.CARD_GONE):
            return out + self._card(kind, unpack_counter(payload), event)
        if kind == MsgType.BUTTON:
            return [*out, ButtonPressed(unpack_button(payload), event)]
        if kind == MsgType.LID:
            return [*out, LidChanged(bool(payload[:1] == b"\x01"), event)]
        return [*out, McuError(*unpack_error(payload), event)]

    def _overflow(self, payload: bytes) -> list[LinkEvent]:
        lost = unpack_overflow(payload)
        if self.last_event is not None and lost.last <= self.last_event:
            return []  # reported before
        self.last_event = lost.last
        log.warning("the shoe MCU's queue overflowed: events %d-%d lost", lost.first, lost.last)
        return [EventsLost(lost.first, lost.last, **lost.counts())]

    def _card(self, kind: int, counter: int, event: int) -> list[LinkEvent]:
        if kind == MsgType.CARD_GONE:
            if self.last_card is not None and counter < self.last_card:
                return []  # seen by this host before it restarted (see _card below)
            return [CardGone(counter, event)]
        out: list[LinkEvent] = []
        if self.last_card is not None:
            if counter <= self.last_card:
                # After a host restart the MCU resends what the old process may already
                # have journalled; the counter tells us which.
                log.info("skipped card %d, already seen before the host restarted", counter)
                return []
            if counter > self.last_card + 1:
                out.append(CardsMissed(counter - self.last_card - 1, self.last_card))
        self.last_card = counter
        out.append(CardPresent(counter, event))
        return out

    def _log_damage(self) -> None:
        stats = self.session.reader.stats
        damaged = stats.crc_errors + stats.bad_frames + stats.overlong
        if damaged != self._garbage_seen:
            log.info("skipped %d damaged frame(s) (%s)", damaged - self._garbage_seen,
                     self.session.reader.last_error)  # fmt: skip
            self._garbage_seen = damaged
        if self.session.stats.corrupt != self._corrupt_seen:
            log.warning("skipped %d frame(s) damaged past the CRC (%s): sent again",
                        self.session.stats.corrupt - self._corrupt_seen,
                        self.session.last_corrupt)
            self._corrupt_seen = self.session.stats.corrupt
