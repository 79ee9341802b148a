"""Cards per second and frame-to-lamp latency through the whole pipeline (`sabot simulate`).

Deals whole shuffled 8-deck shoes at speed 0: synthetic frames -> Tracker, emulated MCU on a
pty -> Link, queue -> rules -> fake GPIO -> SQLite journal. Prints the figures for the README.
Usage: python -m bench.e2e [SHOES]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

from controller.sim.setup import build_simulation, enrolled_reader, load_observations
from vision.decks import synthetic_deck


def main(shoes: int = 2) -> None:
    # The design is learned (or its cached profile loaded) before any shoe is timed: a
    # first run used to count the enrolment in its first shoe's wall time.
    enrolled_reader(synthetic_deck())
    latencies, cards, frames, walls, commits = [], 0, 0, [], 0
    for seed in range(shoes):
        observations, settings = load_observations(None, 8, "A", seed)
        with tempfile.TemporaryDirectory() as folder:
            started = time.monotonic()
            with build_simulation(settings, os.path.join(folder, "j.sqlite"), seed=seed) as sim:
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


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
