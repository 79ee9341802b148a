"""A rig: an MCU on a pty with a stable symlink, and the host transport opened on it.

`rig` runs the Python emulator; `either_rig` runs each test twice, on the emulator and on the
reference firmware in C (`firmware/`, built once per run: `firmware_binaries`): the interop
tests both must pass (issue 13)."""

import pytest

from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.link import Link
from firmware_bridge.messages import LinkUp
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.transport import SerialTransport

from ..firmware.cshoe import CFirmware
from .ptyrig import FAST, Collector, count


def _rig(tmp_path, make_mcu):
    started = []

    def start(*, faults=None, queue_limit=None, seed=1):
        mcu = make_mcu(queue_limit=queue_limit, seed=seed)
        shoe = PtyShoe(mcu, to_host=faults, to_mcu=faults, seed=seed,
                       link_path=tmp_path / f"sabot-shoe-{len(started)}")
        shoe.start()
        transport = SerialTransport(shoe.device, Link(timing=FAST), reopen_interval=0.02)
        transport.start()
        started.append((transport, shoe, mcu))
        collector = Collector(transport)
        collector.until(count(LinkUp, 1))
        return shoe, transport, collector

    return start, started


def _stop(started):
    for transport, shoe, mcu in started:
        transport.stop()
        shoe.stop()
        if isinstance(mcu, CFirmware):
            mcu.close()


def _emulator(*, queue_limit, seed):
    return ShoeEmulator(timing=FAST, queue_limit=queue_limit, seed=seed)


@pytest.fixture
def rig(tmp_path):
    start, started = _rig(tmp_path, _emulator)
    yield start
    _stop(started)


@pytest.fixture(params=["emulator", "c-firmware"])
def either_rig(request, tmp_path):
    if request.param == "emulator":
        make = _emulator
    else:
        binary = request.getfixturevalue("firmware_binaries") / "sabot-shoe"

        def make(*, queue_limit, seed):  # the C build's history is at most 128
            return CFirmware(binary, timing=FAST, history=min(queue_limit or 128, 128),
                             seed=seed)
    start, started = _rig(tmp_path, make)
    yield start
    _stop(started)
