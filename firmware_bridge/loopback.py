"""A host `Link` and a `ShoeEmulator` wired together in memory over faulty lines, on a fake
clock: the in-process virtual bus of the link (python-can's idea), for tests and the fault
campaign (`bench/faults.py`). Nothing sleeps: `run(seconds)` steps the clock."""

from __future__ import annotations

from dataclasses import dataclass, field

from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.faults import Faults, FaultyLine
from firmware_bridge.link import Link
from firmware_bridge.messages import PROTOCOL
from firmware_bridge.session import LinkTiming

# Short timeouts: simulated time is free, but a loop of 1 ms steps is not.
TIMING = LinkTiming(
    retransmit_timeout=0.05, heartbeat_period=0.1, link_down_after=0.5, hello_interval=0.1
)


@dataclass
class Loopback:
    faults: Faults = field(default_factory=Faults)
    seed: int = 1
    timing: LinkTiming = TIMING
    queue_limit: int | None = None
    mcu_protocol: int = PROTOCOL  # 1: the MCU speaks version 1 only
    now: float = 0.0
    connected: bool = True

    def __post_init__(self):
        self.host = Link(timing=self.timing, boot_id=0x11111111)
        self.mcu = ShoeEmulator(timing=self.timing, queue_limit=self.queue_limit, seed=self.seed,
                                protocol=self.mcu_protocol)
        self.to_host = FaultyLine(self.faults, seed=self.seed)
        self.to_mcu = FaultyLine(self.faults, seed=self.seed + 1)
        self.events: list = []

    def step(self, dt: float = 0.001) -> None:
        """Advance the clock and move every byte one hop (a line of zero latency)."""
        self.now += dt
        self.mcu.tick(self.now)
        self.events += self.host.tick(self.now)
        for _ in range(2):
            up = self.to_host.apply(self.mcu.take_output())
            down = self.to_mcu.apply(self.host.take_frames())
            if not self.connected:
                continue
            if up:
                self.events += self.host.feed(up, self.now)
            if down:
                self.mcu.feed(down, self.now)

    def run(self, seconds: float, dt: float = 0.001) -> None:
        for _ in range(round(seconds / dt)):
            self.step(dt)

    def run_until(self, condition, limit: float = 30.0, dt: float = 0.001) -> None:
        end = self.now + limit
        while not condition():
            if self.now >= end:
                raise TimeoutError(f"condition not met after {limit} simulated s")
            self.step(dt)

    def of(self, kind) -> list:
        return [e for e in self.events if isinstance(e, kind)]
