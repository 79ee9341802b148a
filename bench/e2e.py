"""Cards per second and frame-to-lamp latency through the whole pipeline (`sabot simulate`).

Deals whole shuffled 8-deck shoes at speed 0: synthetic frames -> Tracker, emulated MCU on a
pty -> Link, queue -> rules -> fake GPIO -> SQLite journal. Prints the figures for the README,
and where the reading time went: each read timed by what it read (`ReadingMix`), since the
shoe's time follows the reader's.
Usage: python -m bench.e2e [SHOES]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import defaultdict

import numpy as np

from controller.sim.setup import build_simulation, enrolled_reader, load_observations
from vision.decks import synthetic_deck
from vision.reader import Reader, Reading


class ReadingMix:
    """A reader's stand-in that times each read by what it read: the view (under, or the
    over view of a shoe with two cameras) and the reading's kind, an unknown by what it
    looks like (`Reading.looks`) or as "not sure". The rest of the reader is the reader's."""

    def __init__(self, reader: Reader) -> None:
        self.reader = reader
        self.times: dict[str, list[float]] = defaultdict(list)

    def __getattr__(self, name: str):
        return getattr(self.reader, name)

    def read(self, image: np.ndarray, *, back_expected: bool = False) -> Reading:
        started = time.perf_counter()
        reading = self.reader.read(image, back_expected=back_expected)
        self.times[outcome(reading, back_expected)].append(time.perf_counter() - started)
        return reading

    def lines(self) -> list[str]:
        """One line per outcome, the most reading time first: reads, median, share."""
        total = sum(sum(times) for times in self.times.values()) or 1.0
        ranked = sorted(self.times.items(), key=lambda item: -sum(item[1]))
        return [f"  {name:<26} {len(times):6d} reads, median {np.median(times) * 1000:5.2f} ms,"
                f" {sum(times) / total:4.0%} of the reading time" for name, times in ranked]


def outcome(reading: Reading, over: bool) -> str:
    what = reading.kind if reading.kind != "unknown" else f"unknown: {reading.looks or 'not sure'}"
    return f"{'over' if over else 'under'} {what}"


def main(shoes: int = 2) -> None:
    # The design is learned (or its cached profile loaded) before any shoe is timed: a
    # first run used to count the enrolment in its first shoe's wall time.
    mix = ReadingMix(enrolled_reader(synthetic_deck()))
    latencies, cards, frames, walls, commits = [], 0, 0, [], 0
    for seed in range(shoes):
        observations, settings = load_observations(None, 8, "A", seed)
        with tempfile.TemporaryDirectory() as folder:
            started = time.monotonic()
            with build_simulation(settings, os.path.join(folder, "j.sqlite"), seed=seed,
                                  reader=mix) as sim:
                sim.dealer.play(observations)
                sim.drain()
                stats = sim.stats(time.monotonic() - started)
                latencies.extend(sim.stopwatch.latencies)
                commits += sim.journal.commits
            walls.append(stats["wall_s"])
            cards += stats["cards"]
            frames += stats["frames"]
            print(f"  shoe {seed}: {stats['cards']} cards, {stats['frames']} frames in "
                  f"{stats['wall_s']:.1f} s", file=sys.stderr)
    ms = np.array(latencies) * 1000
    print(f"e2e: {shoes} shuffled 8-deck shoes at speed 0 through the whole pipeline")
    print(f"  wall time per shoe: median {np.median(walls):.1f} s, max {max(walls):.1f} s")
    print(f"  cards per second:   {cards / sum(walls):.1f} ({frames / sum(walls):.0f} frames/s)")
    print(f"  durable commits:    1 between a card's frame and its lamps (the observation; "
          f"its events after the lamps), {commits / cards:.2f} per card in all")
    print(f"  frame-to-lamp latency over {len(ms)} lamp changes: p50 {np.percentile(ms, 50):.1f}"
          f" ms, p99 {np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms")
    reading = sum(sum(times) for times in mix.times.values())
    print(f"  reading time by what was read: {reading / shoes:.1f} s a shoe (the renderer, a "
          "process of its own, shares the cores):")
    print("\n".join(mix.lines()))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
