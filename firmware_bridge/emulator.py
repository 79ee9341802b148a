"""The shoe microcontroller's side of the link, in Python: for tests, `simulate` and HIL rigs.

`ShoeEmulator` is the MCU's logic (card sensor counter, buttons, lid, lamps, reset) on top of
the same `Session` state machine as the host; it has the same feed/tick/take_output shape as
`Link`, so tests can wire the two together in memory. `pty_shoe.PtyShoe` runs it on a
pseudo-terminal in a thread, with line faults, unplug and replug.

Everything the MCU senses is an event, numbered from its boot and kept in a bounded history
(docs/protocol.md 8): events are handed to the session as its window frees, a host that
restarted gets the history after the resume point it names, and events that the history
had to drop before they were sent are reported in one OVERFLOW (version 2) or silently
(version 1, where only the card counter shows them).
"""

from __future__ import annotations

import random
import threading
from collections import deque
from dataclasses import dataclass

from firmware_bridge.errors import MessageError
from firmware_bridge.messages import (
    KIND_OF_TYPE,
    PROTOCOL,
    MsgType,
    Overflow,
    Role,
    check_from_host,
    pack_button,
    pack_counter,
    pack_error,
    pack_overflow,
    unpack_error,
    unpack_lamps,
    with_event,
)
from firmware_bridge.session import Delivered, LinkTiming, PeerHello, Session, Up, new_boot_id

HISTORY = 128  # events kept, sent or not: the MCU's RAM for them


@dataclass(frozen=True)
class _Event:
    number: int
    type: int
    payload: bytes  # as version 1 lays it out; version 2 puts the number in front
    cards: int  # the card counter after it

    @property
    def first(self) -> int:
        return self.number

    last = first

    def lost(self) -> _Lost:
        """The OVERFLOW notice that says this event will never be sent."""
        return _Lost(Overflow(self.number, self.number, **{KIND_OF_TYPE[MsgType(self.type)]: 1}),
                     self.cards)


@dataclass(frozen=True)
class _Lost:
    overflow: Overflow
    cards: int  # the card counter after its last event

    @property
    def first(self) -> int:
        return self.overflow.first

    @property
    def last(self) -> int:
        return self.overflow.last

    def widened(self, later: _Lost) -> _Lost:
        return _Lost(self.overflow.widened(later.overflow), max(self.cards, later.cards))


class ShoeEmulator:
    """Thread-safe: the runner thread feeds bytes while a test or rig deals cards.

    `queue_limit`: how many events the history holds (None: no limit); `protocol`: the
    highest version it speaks (1 to stand in for a version 1 MCU)."""

    def __init__(
        self,
        *,
        timing: LinkTiming | None = None,
        firmware: str = "sabot-emu 2.0",
        queue_limit: int | None = HISTORY,
        seed: int | None = None,
        protocol: int = PROTOCOL,
    ):
        self._rng = random.Random(seed) if seed is not None else None
        self._lock = threading.RLock()
        self.timing = timing or LinkTiming()
        self.firmware = firmware
        self.queue_limit = queue_limit
        self.protocol = protocol
        self.card_counter = 0
        self.lamps: frozenset[str] = frozenset()
        self.lamp_history: list[frozenset[str]] = []
        self.errors: list[tuple[int, str]] = []
        # Frames that came through whole (their CRC right) but whose message the MCU cannot
        # use: a payload that does not fit its type, a type it does not take. Counted and
        # dropped: a real MCU must never stop on what the line brings.
        self.malformed = 0
        self.resets = 0
        self.lost = 0  # events dropped from a full history before they were sent
        self._boot()

    def _boot(self) -> None:
        self.session = Session(
            Role.MCU, self.firmware, new_boot_id(self._rng), self.timing,
            card_counter=self.card_counter, protocol=self.protocol,
            requeue_on_new_peer=False, check=check_from_host,
        )  # fmt: skip
        self.event_counter = 0
        # Handed to the session (acknowledged, or in its window), then not yet handed:
        # events and OVERFLOW notices, oldest first.
        self._sent: deque[_Event | _Lost] = deque()
        self._unsent: deque[_Event | _Lost] = deque()
        self._acked = 0  # the newest event a host acknowledged (or named as journaled)
        self._host: int | None = None  # the host boot id the queue was built for

    # ---- the same driving API as Link --------------------------------------------------

    def feed(self, data: bytes, now: float) -> None:
        with self._lock:
            self._apply(self.session.feed(data, now), now)

    def tick(self, now: float) -> None:
        with self._lock:
            self._apply(self.session.tick(now), now)

    def take_output(self) -> list[bytes]:
        with self._lock:
            return self.session.take_output()

    # ---- what happens at the shoe ----------------------------------------------------

    def card_present(self, now: float = 0.0) -> int:
        """A card covers the sensor: count it and report it. Returns its counter."""
        with self._lock:
            self.card_counter += 1
            if self.protocol < 2:  # version 1's HELLO: the last card detected
                self.session.card_counter = self.card_counter
            self._record(MsgType.CARD_PRESENT, pack_counter(self.card_counter), now)
            return self.card_counter

    def card_gone(self, now: float = 0.0) -> None:
        with self._lock:
            self._record(MsgType.CARD_GONE, pack_counter(self.card_counter), now)

    def deal_card(self, now: float = 0.0) -> int:
        """A whole card passing the sensor: CARD_PRESENT then CARD_GONE."""
        with self._lock:
            counter = self.card_present(now)
            self.card_gone(now)
            return counter

    def press(self, button: str, now: float = 0.0) -> None:
        with self._lock:
            self._record(MsgType.BUTTON, pack_button(button), now)

    def set_lid(self, is_open: bool, now: float = 0.0) -> None:
        with self._lock:
            self._record(MsgType.LID, b"\x01" if is_open else b"\x00", now)

    def report_error(self, code: int, text: str, now: float = 0.0) -> None:
        with self._lock:
            self._record(MsgType.ERROR, pack_error(code, text), now)

    def reset(self) -> None:
        """Power-cycle the MCU: new boot id, sequence numbers and the card counter restart
        at 0, the queue and the lamps are lost."""
        with self._lock:
            self.resets += 1
            self.card_counter = 0
            self.lamps = frozenset()
            self.lamp_history.clear()
            self._boot()

    @property
    def up(self) -> bool:
        return self.session.up

    @property
    def boot_id(self) -> int:
        """The boot id of the MCU's current boot (new at every `reset`)."""
        return self.session.boot_id

    @property
    def shown_lamps(self) -> frozenset[str]:
        """What the shoe's own lamps show: the host's LAMPS while the link is up, and only
        `fault` when it is down or no LAMPS came since boot (docs/protocol.md)."""
        with self._lock:
            if self.session.up and self.lamp_history:
                return self.lamps
            return frozenset({"fault"})

    @property
    def queued(self) -> int:
        """Events and reports not yet acknowledged by the host."""
        with self._lock:
            return self.session.queued + len(self._unsent)

    # ---- the history ------------------------------------------------------------------

    def _record(self, kind: int, payload: bytes, now: float) -> None:
        self.event_counter += 1
        self._unsent.append(_Event(self.event_counter, kind, payload, self.card_counter))
        self._make_room()
        self._pump(now)

    def _make_room(self) -> None:
        """Keep `queue_limit` items besides the session's window in flight: acknowledged
        events go first (they are kept only for a host that restarts), then the oldest
        unsent events, folded into one OVERFLOW at the head of what is unsent."""
        if self.queue_limit is None:
            return
        in_flight = sum(item.last > self._acked for item in self._sent)
        while len(self._sent) + len(self._unsent) - in_flight > self.queue_limit:
            if self._sent and self._sent[0].last <= self._acked:
                self._sent.popleft()
            elif not self._fold_oldest_unsent():
                return

    def _fold_oldest_unsent(self) -> bool:
        head = self._unsent[0] if self._unsent else None
        if isinstance(head, _Lost):
            if len(self._unsent) < 2:
                return False
            later = self._unsent[1]
            del self._unsent[1]
            self._unsent[0] = head.widened(later if isinstance(later, _Lost) else later.lost())
        elif isinstance(head, _Event):
            self._unsent[0] = head.lost()  # the next event folds into it
        else:
            return False
        self.lost += 1
        return True

    def _pump(self, now: float) -> None:
        """Hand items to the session as its window frees (version 1 has no OVERFLOW)."""
        session = self.session
        if not session.handshake_done:
            return
        version = session.link_version
        while self._unsent and session.queued < self.timing.window:
            item = self._unsent.popleft()
            if isinstance(item, _Lost):
                if version < 2:
                    continue  # version 1: lost silently, the card counter shows it
                session.send(MsgType.OVERFLOW, pack_overflow(item.overflow), now, tag=item.last)
            else:
                payload = with_event(item.number, item.payload) if version >= 2 else item.payload
                session.send(item.type, payload, now, tag=item.number)
            self._sent.append(item)

    def _replay_for(self, host, now: float) -> None:
        """A host we have not talked to completed the handshake: it gets the history after
        its resume point (a restarted host), or what no host acknowledged (none named)."""
        self._host = host.boot_id
        resume = host.card_counter if self.session.link_version >= 2 else 0
        start = min(resume or self._acked, self.event_counter)
        self._acked = max(self._acked, start)  # journaled by a host: as good as acknowledged
        again = [item for item in self._sent if item.last > start]
        self._sent = deque(item for item in self._sent if item.last <= start)
        self._unsent.extendleft(reversed(again))
        oldest = self._unsent[0].first if self._unsent else self.event_counter + 1
        if start + 1 < oldest:  # the history no longer holds what the host needs
            unknown = Overflow(start + 1, oldest - 1, None, None, None, None)
            # Its card counter is not known either; the acknowledged one is a lower bound.
            self._unsent.appendleft(_Lost(unknown, self.session.card_counter))
        self._pump(now)

    def _apply(self, events, now: float) -> None:
        tag = self.session.acked_tag
        if tag is not None and tag > self._acked:
            self._acked = tag
            acked = next((item for item in reversed(self._sent) if item.last == tag), None)
            if acked is not None and self.protocol >= 2:
                # Version 2's HELLO: the card counter as of the newest event a host
                # acknowledged, from which a host at first contact counts missed cards.
                self.session.card_counter = acked.cards
            self._make_room()
        for event in events:
            if isinstance(event, PeerHello):
                self._host = None  # the queue of the old host is gone (the session's too)
            elif isinstance(event, Up) and self._host != event.hello.boot_id:
                self._replay_for(event.hello, now)
            if not isinstance(event, Delivered):
                continue
            try:
                if event.type == MsgType.LAMPS:
                    self.lamps = unpack_lamps(event.payload)
                    self.lamp_history.append(self.lamps)
                elif event.type == MsgType.ERROR:
                    self.errors.append(unpack_error(event.payload))
                else:
                    self.malformed += 1  # the MCU takes only LAMPS and ERROR from a host
            except MessageError:
                self.malformed += 1
        self._pump(now)
