"""A rig: the emulator on a pty with a stable symlink, and the host transport opened on it."""

import pytest

from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.link import Link
from firmware_bridge.messages import LinkUp
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.transport import SerialTransport

from .ptyrig import FAST, Collector, count


@pytest.fixture
def rig(tmp_path):
    started = []

    def start(*, faults=None, queue_limit=None, seed=1):
        shoe = PtyShoe(
            ShoeEmulator(timing=FAST, queue_limit=queue_limit, seed=seed),
            to_host=faults, to_mcu=faults, seed=seed, link_path=tmp_path / "sabot-shoe",
        )  # fmt: skip
        shoe.start()
        transport = SerialTransport(shoe.device, Link(timing=FAST), reopen_interval=0.02)
        transport.start()
        started.append((transport, shoe))
        collector = Collector(transport)
        collector.until(count(LinkUp, 1))
        return shoe, transport, collector

    yield start
    for transport, shoe in started:
        transport.stop()
        shoe.stop()
