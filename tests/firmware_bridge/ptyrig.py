"""Helpers for tests over a real pty: a fast timing, an event collector, the headline check."""

import queue
import time

from firmware_bridge.messages import (
    BUTTONS,
    ButtonPressed,
    CardGone,
    CardPresent,
    CardsMissed,
    EventsLost,
    LidChanged,
)
from firmware_bridge.session import LinkTiming
from firmware_bridge.transport import SerialTransport

# Short timeouts so recovery never waits long; spurious retransmits are harmless.
FAST = LinkTiming(
    retransmit_timeout=0.01, heartbeat_period=0.05, link_down_after=0.4, hello_interval=0.05
)


class Collector:
    def __init__(self, transport: SerialTransport):
        self.transport = transport
        self.events = []

    def until(self, condition, limit=30.0):
        end = time.monotonic() + limit
        while not condition(self.events):
            left = end - time.monotonic()
            assert left > 0, f"gave up waiting; last events: {self.events[-5:]}"
            try:
                self.events.append(self.transport.events.get(timeout=min(left, 0.5)))
            except queue.Empty:
                continue

    def of(self, kind):
        return [e for e in self.events if isinstance(e, kind)]


def count(kind, n):
    return lambda events: sum(isinstance(e, kind) for e in events) >= n


def deal_and_check_every_message(shoe, got, cards: int, *, pace_every: int | None = None):
    """The headline interop check: `cards` cards, a press every 10 and a lid change every 25
    through `shoe`; every message arrives once and in order, the event numbers of version 2
    without a gap. `pace_every`: wait for the host after so many cards (an MCU whose
    history is bounded: a dealer cannot beat that pace)."""
    pressed, lids = [], []
    for n in range(1, cards + 1):
        shoe.deal_card()
        if n % 10 == 0:
            pressed.append(BUTTONS[n // 10 % len(BUTTONS)])
            shoe.press(pressed[-1])
        if n % 25 == 0:
            lids.append(n % 50 == 0)
            shoe.set_lid(lids[-1])
        if pace_every and n % pace_every == 0:
            got.until(count(CardGone, n))
    got.until(lambda events: len(got.of(CardGone)) == cards
              and len(got.of(LidChanged)) == len(lids), limit=90)
    assert [e.counter for e in got.of(CardPresent)] == list(range(1, cards + 1))
    assert [e.counter for e in got.of(CardGone)] == list(range(1, cards + 1))
    assert [e.name for e in got.of(ButtonPressed)] == pressed
    assert [e.open for e in got.of(LidChanged)] == lids
    numbered = [e.mcu_event for e in got.events if hasattr(e, "mcu_event")]
    assert numbered == list(range(1, 2 * cards + len(pressed) + len(lids) + 1))
    assert got.of(CardsMissed) == [] and got.of(EventsLost) == []
