"""The reference firmware in C (`firmware/`, issue 13) against the Python host: built with
the system C compiler, run on a pty behind the same line faults as the emulator, and put
through the link's interop tests (docs/protocol.md, version 2, and version 1). The tests
both MCUs share (unplug, reset, heartbeat loss, delay) are in
`tests/firmware_bridge/test_pty.py`, run on each."""

from __future__ import annotations

import subprocess
import time

import pytest

from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.faults import Faults
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    ButtonPressed,
    CardGone,
    CardPresent,
    CardsMissed,
    EventsLost,
    LidChanged,
    LinkDown,
    LinkUp,
)
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.transport import SerialTransport

from ..firmware_bridge.ptyrig import FAST, Collector, count, deal_and_check_every_message
from ..firmware_bridge.test_framing import VECTORS
from .cshoe import CFirmware


@pytest.fixture(scope="module")
def binaries(firmware_binaries):
    return firmware_binaries


@pytest.fixture
def rig(binaries, tmp_path):
    started = []

    def start(*, faults=None, protocol=2, history=128, seed=1, host_link=None):
        firmware = CFirmware(binaries / "sabot-shoe", timing=FAST, protocol=protocol,
                             history=history, seed=seed)
        shoe = PtyShoe(firmware, to_host=faults, to_mcu=faults, seed=seed,
                       link_path=tmp_path / f"shoe-{len(started)}")
        shoe.start()
        transport = connect(shoe, host_link or Link(timing=FAST))
        started.append((transport, shoe, firmware))
        return shoe, transport, Collector(transport)

    yield start
    for transport, shoe, firmware in started:
        transport.stop()
        shoe.stop()
        firmware.close()


def connect(shoe: PtyShoe, link: Link) -> SerialTransport:
    transport = SerialTransport(shoe.device, link, reopen_interval=0.02)
    return transport.start()


def test_the_firmware_frames_every_documented_vector_literally(binaries):
    lines = "".join(f"{frame.type:02x} {frame.seq} {frame.ack} "
                    f"{frame.payload.hex(' ') or '-'}\n" for _, frame, _ in VECTORS)
    out = subprocess.run([str(binaries / "frame-vectors")], input=lines, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    assert out == [wire.hex(" ") for _, _, wire in VECTORS]
    assert len(VECTORS) >= 17  # versions 1 and 2, every message type


def test_cards_buttons_and_lids_with_five_percent_damage_arrive_exactly_once(rig):
    """The headline interop test, on the C firmware: every message once and in order, the
    event numbers of version 2 without a gap."""
    shoe, transport, got = rig(faults=Faults.damaged(0.05), seed=2026)
    got.until(count(LinkUp, 1))
    # Bursts of 20 cards: within the history of 128, faster than a dealer deals.
    deal_and_check_every_message(shoe, got, 2000, pace_every=20)
    stats = transport.link.stats
    assert stats["crc_errors"] + stats["bad_frames"] > 0  # the damage was there


def test_the_lamps_the_host_sends_are_shown_and_fault_alone_while_the_link_is_down(rig):
    shoe, transport, got = rig(faults=Faults.damaged(0.1))
    got.until(count(LinkUp, 1))
    firmware = shoe.emulator
    assert firmware.shown[0] == {"fault"}  # since boot, before any LAMPS
    for lit in ({"player_draw"}, {"banker_stand", "no_bets"}, frozenset()):
        transport.send_lamps(lit)
        firmware.wait_for(lambda lit=lit: firmware.shown[-1] == lit)
    shoe.to_host.faults = Faults(drop=1.0)  # the shoe hears nothing back: its link goes down
    shoe.to_mcu.faults = Faults(drop=1.0)
    firmware.wait_for(lambda: firmware.shown[-1] == {"fault"})
    shoe.to_host.faults = shoe.to_mcu.faults = Faults()
    firmware.wait_for(lambda: firmware.shown[-1] == frozenset())  # up again: the host's


def test_a_restarted_host_gets_the_events_after_its_resume_point_once(rig):
    """Version 2, section 8.3: the new host names the last event it journaled; the firmware
    sends what came after it, from its history, and nothing twice."""
    shoe, transport, got = rig()
    for _ in range(10):
        shoe.deal_card()
    shoe.press("acknowledge")
    got.until(count(ButtonPressed, 1))
    transport.stop()  # the host dies having journaled only up to card 7's CARD_PRESENT
    journaled = next(e for e in got.of(CardPresent) if e.counter == 7)
    boot = got.of(LinkUp)[0].boot_id
    again = Collector(connect(shoe, Link(timing=FAST, resume=(boot, 7, journaled.mcu_event))))
    try:
        shoe.deal_card()
        again.until(count(CardGone, 5))
        numbered = [e.mcu_event for e in again.events if hasattr(e, "mcu_event")]
        assert numbered == list(range(journaled.mcu_event + 1, 24))
        assert [e.counter for e in again.of(CardGone)] == [7, 8, 9, 10, 11]
        assert [e.name for e in again.of(ButtonPressed)] == ["acknowledge"]
        assert again.of(CardsMissed) == [] and again.of(EventsLost) == []
    finally:
        again.transport.stop()


def test_a_full_history_is_reported_as_the_emulator_reports_it(rig, tmp_path):
    """30 cards and a press while the host is away, into a history of 8 besides the 16 in
    flight: the firmware sends what the Python emulator sends, an OVERFLOW included."""

    def away_and_back(shoe, transport, got):
        # A card delivered first: the MCU's end of the handshake is done too (the host's
        # LinkUp can come one HELLO before it), so both MCUs start from the same state.
        shoe.deal_card()
        got.until(count(CardGone, 1))
        time.sleep(0.2)  # ... and its acknowledgement back at the MCU (a few ms on a pty)
        shoe.unplug()
        got.until(count(LinkDown, 1))
        for _ in range(30):
            shoe.deal_card()
        shoe.press("no_more_bets")
        shoe.replug()
        got.until(count(ButtonPressed, 1))
        return [(type(e).__name__, getattr(e, "mcu_event", None), getattr(e, "first", None),
                 getattr(e, "last", None), getattr(e, "cards", None))
                for e in got.events if hasattr(e, "mcu_event") or isinstance(e, EventsLost)]

    c_firmware = away_and_back(*rig(history=8))
    emulator = PtyShoe(ShoeEmulator(timing=FAST, queue_limit=8, seed=1),
                       link_path=tmp_path / "emulated")
    emulator.start()
    transport = connect(emulator, Link(timing=FAST))
    try:
        emulated = away_and_back(emulator, transport, Collector(transport))
    finally:
        transport.stop()
        emulator.stop()
    assert c_firmware == emulated
    lost = [row for row in c_firmware if row[0] == "EventsLost"]
    # Events 1-2 delivered, 3-18 in flight, 19-56 lost (38 card reports), 57-62 and the
    # press kept.
    assert lost == [("EventsLost", None, 19, 56, 38)]
    assert c_firmware[-1][:2] == ("ButtonPressed", 63)


def test_a_version_1_firmware_and_a_version_2_host_speak_version_1(rig):
    shoe, transport, got = rig(protocol=1)
    for _ in range(5):
        shoe.deal_card()
    shoe.press("new_shoe")
    got.until(count(ButtonPressed, 1))
    assert [e.counter for e in got.of(CardPresent)] == [1, 2, 3, 4, 5]
    assert transport.link.session.link_version == 1
    assert all(e.mcu_event == 0 for e in got.of(CardPresent))  # no event numbers in v1


def test_the_posix_build_serves_its_own_pty_driven_from_stdin(binaries):
    """What a shoe maker runs by hand before porting: `sabot-shoe --pty`."""
    shoe = subprocess.Popen([str(binaries / "sabot-shoe"), "--pty", "--timing", "10,50,400,50"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        first = shoe.stdout.readline().split()
        assert first[0] == "pty" and first[1].startswith("/dev/pts/")
        got = Collector(SerialTransport(first[1], Link(timing=FAST)).start())
        got.until(count(LinkUp, 1))
        shoe.stdin.write("card\npress no_more_bets\nlid open\n")
        shoe.stdin.flush()
        got.until(count(LidChanged, 1))
        assert [type(e).__name__ for e in got.events[1:]] == [
            "CardPresent", "CardGone", "ButtonPressed", "LidChanged"]
        got.transport.stop()
    finally:
        shoe.stdin.write("quit\n")
        shoe.stdin.flush()
        assert shoe.wait(timeout=5) == 0


def test_the_posix_build_names_a_wrong_option(binaries):
    wrong = subprocess.run([str(binaries / "sabot-shoe"), "--pty", "--history", "9999"],
                           capture_output=True, text=True)
    assert wrong.returncode == 2
    assert "--history must be 1 to SABOT_HISTORY" in wrong.stderr and "usage:" in wrong.stderr


def test_a_lamps_damaged_past_the_crc_is_dropped_and_its_good_copy_shown(binaries):
    """One damaged frame in 65,536 passes CRC-16. A LAMPS cut to one byte that passed it was
    taken in sequence and counted malformed, so the good copy the host sent again was a
    duplicate and the lamps stayed as they were until the next change. The firmware now
    drops it unacknowledged, as a frame that failed the CRC (docs/protocol.md section 4)."""
    from firmware_bridge.framing import Frame, encode
    from firmware_bridge.messages import MsgType

    firmware = CFirmware(binaries / "sabot-shoe", timing=FAST)
    host = Link(timing=FAST)

    def pump(until, limit: float = 5.0) -> None:
        end = time.monotonic() + limit
        while not until():
            assert time.monotonic() < end, "the firmware and the host did not get there"
            now = time.monotonic()
            for frame in firmware.take_output():
                host.feed(frame, now)
            host.tick(now)
            firmware.feed(host.take_output(), now)
            time.sleep(0.001)

    try:
        pump(lambda: host.up)
        session = host.session
        firmware.feed(encode(Frame(MsgType.LAMPS, session._next_seq, session._last_received,
                                   b"\x01")), time.monotonic())
        host.send_lamps({"player_draw", "banker_stand"}, time.monotonic())
        pump(lambda: frozenset({"player_draw", "banker_stand"}) in firmware.shown)
    finally:
        firmware.close()
