"""Seconds per shoe of `sabot playback --fast`: whole 8-deck shoes recorded, played back.

Each shoe is a shuffled 8-deck shoe dealt to its end, written as a recording of `sabot record`
(synthetic frames of the synthetic deck and the bytes of an emulated shoe on the link,
`controller.sim.recording`), then played into the service as fast as it takes the frames
and compared with `sabot deal` on the same order. The recording's writing is not timed.
Usage: python -m bench.playback [SHOES]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from controller.game import observations as obs
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.table import Table
from controller.journal.compare import first_difference, journal_events
from controller.service.playback_setup import Playback
from controller.sim.recording import write_synthetic_recording
from controller.sim.setup import enrolled_reader
from vision.decks import synthetic_deck
from vision.profile import save_profile

SETTINGS = {"decks": 8, "style": "A", "require_no_more_bets": False}


def token(observation: obs.Observation) -> str:
    return "CUT" if isinstance(observation, obs.Cut) else observation.card  # type: ignore[attr-defined]


def main(shoes: int = 1) -> None:
    deck = synthetic_deck()
    walls, frames_total, recorded = [], 0, []
    with tempfile.TemporaryDirectory(prefix="bench-playback-") as tmp:
        folder = Path(tmp)
        profile = folder / "profile.npz"
        save_profile(enrolled_reader(deck).profile, profile)
        for seed in range(shoes):
            order = dealt_until_shoe_end(shuffled_shoe(8, seed=seed), 8)
            print(f"  shoe {seed}: writing a recording of {len(order)} cards...",
                  file=sys.stderr, flush=True)
            recording = write_synthetic_recording(deck, [token(o) for o in order],
                                                  folder / f"rec-{seed}", seed=seed)
            table = Table(**SETTINGS)
            expected = [{"event": "new_shoe", "shoe": 1, "decks": 8, "style": "A"}]
            for observation in order:
                expected += table.apply(observation)
            journal = folder / f"journal-{seed}.sqlite"
            started = time.monotonic()
            with Playback(recording, SETTINGS, str(profile), (40, 30, 128, 200), str(journal),
                          speed=None) as playback:
                playback.play(progress=False)
                wall = time.monotonic() - started
                summary = playback.summary(wall)
            difference = first_difference(expected, journal_events(journal))
            walls.append(wall)
            frames_total += playback.player.frames
            recorded.append(playback.recording.frames[-1].t)
            print(f"  shoe {seed}: {summary}; "
                  f"{'the same events as sabot deal' if difference is None else difference}",
                  file=sys.stderr)
    print(f"playback: {shoes} shuffled 8-deck shoe(s) recorded and played back with --fast")
    print(f"  seconds per shoe: {sum(walls) / len(walls):.1f} "
          f"({sum(recorded) / len(recorded):.0f} s recorded at 90 frames/s)")
    print(f"  frames per second: {frames_total / sum(walls):.0f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
