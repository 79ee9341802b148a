"""Serial link benchmark: card events per second and delivery latency over a real pty.

The emulator runs on the master side of a pseudo-terminal, the host's SerialTransport opens
the slave at 115200 baud with pyserial (termios speed set). A pty does NOT enforce the baud
rate, so the figures show the software's limits; the theoretical wire time at 115200 8N1 is
printed next to them. Run: .venv/bin/python -m bench.link [--cards N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import termios
import threading
import time

from firmware_bridge import framing
from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.faults import Faults
from firmware_bridge.link import Link
from firmware_bridge.messages import (
    CardGone,
    CardPresent,
    LinkUp,
    MsgType,
    pack_counter,
    with_event,
)
from firmware_bridge.pty_shoe import PtyShoe
from firmware_bridge.session import LinkTiming
from firmware_bridge.transport import SerialTransport

BAUD = 115200
BITS_PER_BYTE = 10  # 8N1: start + 8 data + stop


def wire_seconds_per_card() -> float:
    """Two frames (CARD_PRESENT, CARD_GONE) per card, each at its encoded length in link
    version 2 (the event number in front of the card counter)."""
    payload = with_event(1, pack_counter(1))
    frame = framing.encode(framing.Frame(MsgType.CARD_PRESENT, 1, 0, payload))
    return 2 * len(frame) * BITS_PER_BYTE / BAUD


class Run:
    def __init__(self, damage: float, timing: LinkTiming):
        self.dealt: dict[int, float] = {}
        self.latencies: list[float] = []
        self.gone = 0
        self.up = threading.Event()
        self.done = threading.Event()
        self.expected = 0
        self.shoe = PtyShoe(
            ShoeEmulator(timing=timing, queue_limit=None, seed=7),
            to_host=Faults.damaged(damage), to_mcu=Faults.damaged(damage), seed=7,
        )  # fmt: skip
        self.transport = SerialTransport(
            self.shoe.start(), Link(timing=timing), baudrate=BAUD, on_event=self.on_event
        )

    def on_event(self, event) -> None:
        now = time.perf_counter()
        if isinstance(event, LinkUp):
            self.up.set()
        elif isinstance(event, CardPresent):
            self.latencies.append(now - self.dealt[event.counter])
        elif isinstance(event, CardGone):
            self.gone += 1
            if self.gone >= self.expected:
                self.done.set()

    def deal(self, cards: int, interval: float) -> float:
        self.expected += cards
        self.done.clear()
        start = time.perf_counter()
        for n in range(cards):
            if interval:
                time.sleep(max(0.0, start + n * interval - time.perf_counter()))
            self.dealt[self.shoe.emulator.card_counter + 1] = time.perf_counter()
            self.shoe.deal_card()
        if not self.done.wait(120):
            raise SystemExit(f"only {self.gone} of {self.expected} cards arrived")
        return time.perf_counter() - start

    def __enter__(self) -> Run:
        self.transport.start()
        if not self.up.wait(10):
            raise SystemExit("link did not come up")
        return self

    def __exit__(self, *exc) -> None:
        self.transport.stop()
        self.shoe.stop()


def p99(values: list[float]) -> float:
    return statistics.quantiles(values, n=100)[98] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=5000, help="cards per burst run")
    parser.add_argument("--paced", type=int, default=500, help="cards in the latency run")
    parser.add_argument("--interval", type=float, default=0.005, help="s between paced cards")
    args = parser.parse_args()
    timing = LinkTiming(retransmit_timeout=0.02)  # production defaults but a quick RTO
    wire = wire_seconds_per_card()
    print(f"pty at {BAUD} baud (termios set; a pty does not enforce it)")
    print(f"theoretical wire time per card (2 frames): {wire * 1e3:.2f} ms "
          f"-> at most {2 / wire:.0f} events/s on a real 115200 line")  # fmt: skip
    for damage in (0.0, 0.05):
        with Run(damage, timing) as run:
            fd = os.open(os.path.realpath(run.shoe.device), os.O_RDONLY | os.O_NOCTTY)
            speed = termios.tcgetattr(fd)[5]
            os.close(fd)
            assert speed == termios.B115200, "the pty did not take the baud rate"
            burst = run.deal(args.cards, 0.0)
            events_per_s = 2 * args.cards / burst
            run.latencies.clear()
            run.deal(args.paced, args.interval)
            lat = sorted(run.latencies)
            stats = run.transport.link.stats
            print(
                f"damage {damage:4.0%}: burst {args.cards} cards in {burst:.2f} s = "
                f"{events_per_s:,.0f} events/s; paced 1 card/{args.interval * 1e3:.0f} ms: "
                f"latency p50 {statistics.median(lat) * 1e3:.2f} ms, p99 {p99(lat) * 1e3:.2f} ms,"
                f" max {lat[-1] * 1e3:.2f} ms; host saw {stats['crc_errors']} CRC errors, "
                f"{stats['bad_frames']} bad frames, {stats['duplicates']} duplicates"
            )
            mcu = run.shoe.emulator.session.stats
            print(
                f"            MCU resent {mcu.retransmits} frames ({mcu.timeouts} timeouts, "
                f"{mcu.fast_retransmits} fast retransmits); add {wire / 2 * 1e3:.2f} ms wire "
                "time per event on a real line"
            )


if __name__ == "__main__":
    main()
