"""Helpers for tests over a real pty: a fast timing and an event collector."""

import queue
import time

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
