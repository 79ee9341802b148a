"""What resizing a camera's reading window to the nominal 128 x 200 costs, per frame.

A window cut from the frame is as big as the card is there (`sabot calibrate`), so every
frame is resized before it is read (`vision.geometry.to_window`). For windows 0.75 to 2.5
times the nominal size (a rendered card), the median time of the reader's resize and of
enrolment's (`averaged`: area averaging whatever the size), on one thread as the service
runs.
Run: .venv/bin/python -m bench.resize [--repeats N]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

import numpy as np
from rich.console import Console
from rich.table import Table

from vision.decks import synthetic_deck
from vision.geometry import WINDOW_H, WINDOW_W, to_window
from vision.synth import NOMINAL, render_window
from vision.tuning import tune_for_reading

SCALES = (0.75, 1.1, 1.25, 1.5, 1.9, 2.5)


def median_us(image: np.ndarray, averaged: bool, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        to_window(image, averaged=averaged)
        times.append(time.perf_counter() - start)
    return 1e6 * float(np.median(times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=500)
    args = parser.parse_args()
    tune_for_reading()
    deck = synthetic_deck()
    table = Table(title="resizing a reading window to 128 x 200 (median per frame)")
    for column in ("window", "times nominal", "reader (to_window)", "enrolment (averaged)"):
        table.add_column(column, justify="right")
    for scale in SCALES:
        size = (round(WINDOW_W * scale), round(WINDOW_H * scale))
        image = render_window(deck, "7H", replace(NOMINAL, size=size))
        table.add_row(f"{size[0]} x {size[1]}", f"{scale:.2f}",
                      f"{median_us(image, False, args.repeats):.0f} us",
                      f"{median_us(image, True, args.repeats):.0f} us")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
