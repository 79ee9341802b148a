"""The shoe microcontroller's side of the link, in Python: for tests, `simulate` and HIL rigs.

`ShoeEmulator` is the MCU's logic (card sensor counter, buttons, lid, lamps, reset) on top of
the same `Session` state machine as the host; it has the same feed/tick/take_output shape as
`Link`, so tests can wire the two together in memory. `pty_shoe.PtyShoe` runs it on a
pseudo-terminal in a thread, with line faults, unplug and replug.
"""

from __future__ import annotations

import random
import threading

from firmware_bridge.errors import MessageError
from firmware_bridge.messages import (
    MsgType,
    Role,
    pack_button,
    pack_counter,
    pack_error,
    unpack_error,
    unpack_lamps,
)
from firmware_bridge.session import Delivered, LinkTiming, Session, new_boot_id


class ShoeEmulator:
    """Thread-safe: the runner thread feeds bytes while a test or rig deals cards."""

    def __init__(
        self,
        *,
        timing: LinkTiming | None = None,
        firmware: str = "sabot-emu 1.0",
        queue_limit: int | None = 64,
        seed: int | None = None,
    ):
        self._rng = random.Random(seed) if seed is not None else None
        self._lock = threading.RLock()
        self.timing = timing or LinkTiming()
        self.firmware = firmware
        self.queue_limit = queue_limit
        self.card_counter = 0
        self.lamps: frozenset[str] = frozenset()
        self.lamp_history: list[frozenset[str]] = []
        self.errors: list[tuple[int, str]] = []
        # Frames that came through whole (their CRC right) but whose message the MCU cannot
        # use: a payload that does not fit its type, a type it does not take. Counted and
        # dropped: a real MCU must never stop on what the line brings.
        self.malformed = 0
        self.resets = 0
        self._boot()

    def _boot(self) -> None:
        self.session = Session(
            Role.MCU, self.firmware, new_boot_id(self._rng), self.timing,
            queue_limit=self.queue_limit,
            card_counter=self.card_counter,
        )  # fmt: skip

    # ---- the same driving API as Link --------------------------------------------------

    def feed(self, data: bytes, now: float) -> None:
        with self._lock:
            self._apply(self.session.feed(data, now))

    def tick(self, now: float) -> None:
        with self._lock:
            self._apply(self.session.tick(now))

    def take_output(self) -> list[bytes]:
        with self._lock:
            return self.session.take_output()

    # ---- what happens at the shoe ----------------------------------------------------

    def card_present(self, now: float = 0.0) -> int:
        """A card covers the sensor: count it and report it. Returns its counter."""
        with self._lock:
            self.card_counter += 1
            self.session.card_counter = self.card_counter
            self.session.send(MsgType.CARD_PRESENT, pack_counter(self.card_counter), now)
            return self.card_counter

    def card_gone(self, now: float = 0.0) -> None:
        with self._lock:
            self.session.send(MsgType.CARD_GONE, pack_counter(self.card_counter), now)

    def deal_card(self, now: float = 0.0) -> int:
        """A whole card passing the sensor: CARD_PRESENT then CARD_GONE."""
        with self._lock:
            counter = self.card_present(now)
            self.card_gone(now)
            return counter

    def press(self, button: str, now: float = 0.0) -> None:
        with self._lock:
            self.session.send(MsgType.BUTTON, pack_button(button), now)

    def set_lid(self, is_open: bool, now: float = 0.0) -> None:
        with self._lock:
            self.session.send(MsgType.LID, b"\x01" if is_open else b"\x00", now)

    def report_error(self, code: int, text: str, now: float = 0.0) -> None:
        with self._lock:
            self.session.send(MsgType.ERROR, pack_error(code, text), now)

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
    def shown_lamps(self) -> frozenset[str]:
        """What the shoe's own lamps show: the host's LAMPS while the link is up, and only
        `fault` when it is down or no LAMPS came since boot (docs/protocol.md)."""
        with self._lock:
            if self.session.up and self.lamp_history:
                return self.lamps
            return frozenset({"fault"})

    @property
    def queued(self) -> int:
        return self.session.queued

    def _apply(self, events) -> None:
        for event in events:
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
