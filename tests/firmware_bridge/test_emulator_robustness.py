"""The emulated MCU survives whatever the line brings: it counts a malformed message and goes
on, as firmware must (issue 11). Every frame shape the fuzzer can make is fed to it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import framing
from firmware_bridge.faults import Faults, FaultyLine
from firmware_bridge.messages import UNSEQUENCED, CardPresent, MsgType
from tests.firmware_bridge.wiring import Bench


def _up_bench() -> Bench:
    bench = Bench()
    bench.run_until(lambda: bench.host.up and bench.mcu.up)
    return bench


def _cards_seen(bench: Bench) -> list[int]:
    return [e.counter for e in bench.of(CardPresent)]


@settings(max_examples=150, deadline=None)
@given(kind=st.integers(0, 255).filter(lambda k: k not in UNSEQUENCED),
       payload=st.binary(max_size=framing.MAX_PAYLOAD))
def test_a_well_framed_message_of_any_type_and_payload_never_stops_the_mcu(kind, payload):
    bench = _up_bench()
    bench.host.session.send(kind, payload, bench.now)  # sequenced, CRC right: delivered
    bench.run_until(lambda: bench.host.session.queued == 0)
    usable = (kind == MsgType.LAMPS and len(payload) == 2) or (kind == MsgType.ERROR and payload)
    assert bench.mcu.malformed == (0 if usable else 1)
    bench.mcu.deal_card(bench.now)  # ... and it goes on
    bench.run_until(lambda: _cards_seen(bench) == [1])


def test_a_short_lamps_payload_is_counted_and_the_next_lamps_still_show():
    """A host that itself sends a short LAMPS: refused three times as damage past the CRC
    (docs/protocol.md section 4), then taken and counted, and the link goes on."""
    bench = _up_bench()
    bench.host.session.send(MsgType.LAMPS, b"\x01", bench.now)
    bench.host.send_lamps({"fault", "shuffle"}, bench.now)
    bench.run_until(lambda: bench.mcu.lamps == {"fault", "shuffle"})
    assert bench.mcu.malformed == 1 and bench.mcu.session.stats.corrupt == 3


def test_a_lamps_damaged_past_the_crc_is_dropped_and_its_good_copy_shown():
    """One damaged frame in 65,536 passes CRC-16. A LAMPS cut to one byte that passed it was
    taken in sequence and counted malformed: the good copy the host sent again was then a
    duplicate, and the lamps stayed as they were until the next change. It is now dropped
    unacknowledged, as a frame that failed the CRC."""
    bench = _up_bench()
    session = bench.host.session
    forged = framing.Frame(MsgType.LAMPS, session._next_seq, bench.mcu.session._next_seq - 1,
                           b"\x01")
    bench.mcu.feed(framing.encode(forged), bench.now)
    assert bench.mcu.session.stats.corrupt == 1
    bench.host.send_lamps({"player_draw", "banker_stand"}, bench.now)
    bench.run_until(lambda: bench.mcu.lamps == {"player_draw", "banker_stand"}, limit=5)
    assert bench.mcu.malformed == 0


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=300))
def test_any_bytes_at_all_never_stop_the_mcu(data):
    bench = _up_bench()
    bench.mcu.feed(data, bench.now)
    bench.mcu.feed(data.replace(b"\x00", b"") + b"\x00", bench.now)
    bench.mcu.deal_card(bench.now)
    bench.run_until(lambda: _cards_seen(bench) == [1])


@settings(max_examples=60, deadline=None)
@given(frame=st.binary(min_size=1, max_size=8), seed=st.integers(0, 1000))
def test_the_fault_line_damages_frames_of_any_length_without_failing(frame, seed):
    line = FaultyLine(Faults.damaged(1.0), seed=seed)
    for _ in range(20):
        line.apply([frame + b"\x00"])
    assert line.stats.frames == 20


def test_heavy_damage_both_ways_never_stops_the_mcu():
    bench = Bench(faults=Faults.damaged(0.3), seed=3)
    bench.run_until(lambda: bench.host.up and bench.mcu.up)
    for k in range(200):
        bench.mcu.deal_card(bench.now)
        bench.host.send_lamps({"player_draw"} if k % 2 else {"banker_draw"}, bench.now)
        bench.run(0.01)
    bench.run_until(lambda: len(_cards_seen(bench)) == 200 and bench.host.session.queued == 0)
    assert _cards_seen(bench) == list(range(1, 201))
    assert bench.mcu.lamps == {"player_draw"}
