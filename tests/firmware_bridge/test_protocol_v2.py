"""Link protocol version 2 (docs/protocol.md 8): the event number on every MCU message, the
history a restarted host is replayed from, OVERFLOW, and the negotiation that keeps a
version 1 shoe working. Host and emulator wired in memory on a fake clock (`wiring.Bench`)."""

import re

import pytest

from firmware_bridge.faults import Faults
from firmware_bridge.framing import Frame
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    ButtonPressed,
    CardGone,
    CardPresent,
    CardsMissed,
    EventsLost,
    Hello,
    LidChanged,
    McuError,
    MsgType,
    Overflow,
    Role,
    pack_button,
    pack_counter,
    pack_error,
    pack_hello,
    pack_overflow,
    split_event,
    unpack_overflow,
    with_event,
)

from .test_framing import PROTOCOL_MD, doc_vectors
from .wiring import TIMING, Bench

MESSAGES = ("CardPresent", "CardGone", "ButtonPressed", "LidChanged", "McuError")


def up_bench(**kwargs) -> Bench:
    bench = Bench(**kwargs)
    bench.run_until(lambda: bench.host.up and bench.mcu.up)
    return bench


def messages(bench) -> list:
    return [e for e in bench.events if type(e).__name__ in MESSAGES]


# ---- the document's vectors ----------------------------------------------------------------

def _spelled() -> list[dict]:
    section = PROTOCOL_MD.read_text().split("### 8.5", 1)[1]
    block = re.search(r"```messages\n(.*?)```", section, re.S).group(1)
    rows = []
    for line in block.splitlines():
        name, rest = line.split(maxsplit=1)
        fields = dict(re.findall(r"(\w+)=(.*?)(?= \w+=|$)", rest))
        rows.append({"name": name, **fields})
    return rows


def _payload(row: dict) -> bytes:
    def n(key):
        return int(row[key], 0)

    name = row["name"]
    if name in ("CARD_PRESENT", "CARD_GONE"):
        return with_event(n("event"), pack_counter(n("counter")))
    if name == "BUTTON":
        return with_event(n("event"), pack_button(row["button"]))
    if name == "LID":
        return with_event(n("event"), bytes([n("open")]))
    if name == "ERROR":
        return with_event(n("event"), pack_error(n("code"), row["text"]))
    if name == "OVERFLOW":
        counts = {k: None if row[k] == "unknown" else n(k)
                  for k in ("cards", "buttons", "lids", "errors")}
        return pack_overflow(Overflow(n("first"), n("last"), **counts))
    assert name == "HELLO"
    return pack_hello(Hello(n("protocol"), Role[row["role"].upper()], row["ready"] == "1",
                            n("boot"), n("peer"), n("counter"), row["version"]))


def test_the_version_2_vectors_are_the_messages_the_document_spells():
    section = PROTOCOL_MD.read_text().split("### 8.5", 1)[1].replace(" ", "")
    vectors = [v for v in doc_vectors() if v[2].hex() in section]
    assert len(vectors) == len(_spelled()) == 8
    for (name, frame, _), row in zip(vectors, _spelled(), strict=True):
        assert name == row["name"]
        assert frame.payload == _payload(row), name
        assert isinstance(frame, Frame) and frame.version == 1  # the framing stays version 1


def test_an_overflow_payload_round_trips_and_a_bad_one_is_refused():
    lost = Overflow(12, 40, 20, 1, 0, None)
    assert unpack_overflow(pack_overflow(lost)) == lost
    assert split_event(with_event(9, b"\x02")) == (9, b"\x02")
    with pytest.raises(ValueError, match="OVERFLOW payload of 3 bytes"):
        unpack_overflow(b"\x00\x01\x02")
    with pytest.raises(ValueError, match="from event 9 to 3"):
        unpack_overflow(pack_overflow(Overflow(9, 3)))


# ---- negotiation ----------------------------------------------------------------------------

def test_both_ends_speak_version_2_and_number_every_mcu_message():
    bench = up_bench()
    assert bench.host.session.link_version == bench.mcu.session.link_version == 2
    bench.mcu.deal_card(bench.now)
    bench.mcu.press("no_more_bets", bench.now)
    bench.mcu.set_lid(True, bench.now)
    bench.mcu.report_error(7, "sensor dirty", bench.now)
    bench.run(0.2)
    assert messages(bench) == [CardPresent(1), CardGone(1), ButtonPressed("no_more_bets"),
                               LidChanged(True), McuError(7, "sensor dirty")]
    assert [e.mcu_event for e in messages(bench)] == [1, 2, 3, 4, 5]


def test_a_version_1_mcu_still_works_with_this_host():
    bench = up_bench(mcu_protocol=1)
    assert bench.host.session.link_version == bench.mcu.session.link_version == 1
    bench.mcu.deal_card(bench.now)
    bench.mcu.press("acknowledge", bench.now)
    bench.run(0.2)
    assert messages(bench) == [CardPresent(1), CardGone(1), ButtonPressed("acknowledge")]
    assert all(e.mcu_event == 0 for e in messages(bench))  # version 1 carries no number


def test_a_version_1_host_gets_version_1_payloads_from_a_version_2_mcu():
    bench = Bench()
    bench.host.session.protocol = 1  # stands in for an older host
    bench.run_until(lambda: bench.host.up and bench.mcu.up)
    assert bench.mcu.session.link_version == 1
    bench.mcu.deal_card(bench.now)
    bench.mcu.set_lid(False, bench.now)
    bench.run(0.2)
    assert messages(bench) == [CardPresent(1), CardGone(1), LidChanged(False)]


# ---- a host restart: exactly once -----------------------------------------------------------

def _in_flight_then_host_dies(bench) -> list:
    """Two cards acknowledged; then a button, a lid and a card reach the host while its
    acks never reach the MCU (the host dies before they leave). Returns what it received."""
    for _ in range(2):
        bench.mcu.deal_card(bench.now)
    bench.run(0.2)
    bench.to_mcu.faults = Faults(drop=1.0)
    bench.events.clear()
    bench.mcu.press("card_disclosed", bench.now)
    bench.mcu.set_lid(True, bench.now)
    bench.mcu.deal_card(bench.now)
    bench.run(0.05)
    received = messages(bench)
    assert received == [ButtonPressed("card_disclosed"), LidChanged(True), CardPresent(3),
                        CardGone(3)]
    assert bench.mcu.queued == 4  # none of them acknowledged
    return received


@pytest.mark.parametrize("journaled", range(5))
def test_a_restarted_host_journals_every_message_in_flight_exactly_once(journaled):
    """Issue 11: killed with an unacknowledged button, lid and card in flight, restarted from
    its journal (which holds the first `journaled` of them), the host ends with each once."""
    bench = up_bench()
    received = _in_flight_then_host_dies(bench)
    kept = received[:journaled]
    last_event = kept[-1].mcu_event if kept else received[0].mcu_event - 1
    last_card = max([e.counter for e in kept if isinstance(e, CardPresent)], default=2)
    bench.host = Link(timing=TIMING, boot_id=0x22222222,
                      resume=(bench.mcu.session.boot_id, last_card, last_event))
    bench.to_mcu.faults = Faults()
    bench.events.clear()
    bench.run(0.5)
    assert kept + messages(bench) == received
    assert bench.of(EventsLost) == [] and bench.of(CardsMissed) == []


def test_version_1_delivers_an_unacknowledged_press_to_a_restarted_host_again():
    """The hole version 2 closes: a version 1 MCU resends what was not acknowledged,
    whatever the old host had journaled, and a press has no number to tell."""
    bench = up_bench(mcu_protocol=1)
    _in_flight_then_host_dies(bench)
    bench.host = Link(timing=TIMING, boot_id=0x22222222,
                      resume=(bench.mcu.session.boot_id, 3, 0))
    bench.to_mcu.faults = Faults()
    bench.events.clear()
    bench.run(0.5)
    assert ButtonPressed("card_disclosed") in messages(bench)


def test_a_resume_point_older_than_the_history_is_reported_lost_with_unknown_counts():
    bench = up_bench(queue_limit=8)
    for _ in range(20):
        bench.mcu.deal_card(bench.now)
        bench.run(0.02)  # each acknowledged before the next: nothing overflows
    assert bench.of(EventsLost) == []
    bench.host = Link(timing=TIMING, boot_id=0x22222222,
                      resume=(bench.mcu.session.boot_id, 5, 10))
    bench.events.clear()
    bench.run(0.5)
    lost = bench.of(EventsLost)
    assert len(lost) == 1 and lost[0].first == 11 and lost[0].cards is None
    assert "an unknown number of card reports" in lost[0].describe()
    # The history's events after the gap come, in order, and end with the last card.
    assert messages(bench)[-1] == CardGone(20)


# ---- overflow and gaps ----------------------------------------------------------------------

def test_an_overflow_says_how_many_of_each_kind_were_lost():
    bench = up_bench(queue_limit=6)
    bench.connected = False
    sent = []
    for n in range(40):
        if n % 4 == 0:
            bench.mcu.press("no_more_bets", bench.now)
            sent.append("buttons")
        elif n % 4 == 1:
            bench.mcu.set_lid(n % 8 == 1, bench.now)
            sent.append("lids")
        else:
            bench.mcu.card_present(bench.now)
            sent.append("cards")
    bench.connected = True
    bench.run(1.0)
    (lost,) = bench.of(EventsLost)
    # The window in flight came through; the newest queue_limit - 1 too; the rest is counted.
    assert lost.first == TIMING.window + 1 and lost.last == len(sent) - (6 - 1)
    gone = sent[lost.first - 1 : lost.last]
    assert (lost.cards, lost.buttons, lost.lids, lost.errors) == (
        gone.count("cards"), gone.count("buttons"), gone.count("lids"), 0)
    assert [e.mcu_event for e in messages(bench)] == (
        list(range(1, lost.first)) + list(range(lost.last + 1, len(sent) + 1)))


def test_cards_dropped_before_any_host_came_are_missed_from_the_hello_baseline():
    """Issue 11: cards the MCU counted before first contact and could not keep were never
    reported. Version 2's HELLO names the baseline; the gap from it is CardsMissed."""
    bench = Bench(queue_limit=10, connected=False)
    for _ in range(20):
        bench.mcu.deal_card(bench.now)
    bench.connected = True
    bench.run(1.0)
    got = [e.counter for e in bench.of(CardPresent)]
    (missed,) = bench.of(CardsMissed)
    assert missed.after_counter == 0 and missed.count + len(got) == 20 and got[-1] == 20
    (lost,) = bench.of(EventsLost)
    assert lost.first == 1 and lost.cards == lost.last


def test_a_gap_in_the_event_numbers_is_reported_not_skipped_over():
    bench = up_bench()
    bench.mcu.press("acknowledge", bench.now)
    bench.run(0.1)
    bench.mcu.event_counter += 3  # firmware that skipped three numbers
    bench.mcu.press("new_shoe", bench.now)
    bench.run(0.1)
    assert bench.of(EventsLost) == [EventsLost(2, 4)]
    assert [e.name for e in bench.of(ButtonPressed)] == ["acknowledge", "new_shoe"]


def test_an_overflow_is_type_0x15_and_a_version_1_host_never_gets_one():
    bench = Bench(queue_limit=4, connected=False)
    bench.host.session.protocol = 1
    for _ in range(10):
        bench.mcu.deal_card(bench.now)
    bench.connected = True
    bench.run(1.0)
    assert MsgType.OVERFLOW == 0x15
    assert bench.of(EventsLost) == [] and bench.host.stats["delivered"] == len(messages(bench))
