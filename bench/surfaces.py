"""Surfaces benchmark: backs, cut cards and empty windows, many fresh views of each per design.

`bench.vision` reads 20 of each per design beside the cards; a back, cut card or empty window
read as another of them (a cut card taken for the empty shoe misses the last coup without a
card sensor) is a thin tail that so few do not show. Here each design is enrolled as in
`bench.vision` (its faces and the same cut card colour, from the same per-design seed), then
`--per-kind` windows of each are read across the whole envelope, drawn from `--seed`: right,
unknown, and silent (read as another of them, or as a card), with what the silent ones were.
Run: .venv/bin/python -m bench.surfaces [--per-kind N] [--seed S] [--only NAME...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.vision import OTHERS, designs_asked, enrolled_as_benchmarked
from vision.synth import random_perturbation, render_window


def read_surfaces(design: Path, per_kind: int, seed: int, progress) -> dict:
    deck, reader, colour = enrolled_as_benchmarked(design)
    has_back = (design / "back.png").exists()
    codes = [k for k in OTHERS for _ in range(per_kind) if k != "BACK" or has_back]
    rng = np.random.default_rng(seed)
    row = {"name": design.name, "colour": colour, "windows": 0, "right": 0, "unknown": 0,
           "silent": []}
    task = progress.add_task(design.name, total=len(codes))
    for code in codes:
        window = render_window(deck, code, random_perturbation(rng, 1.0), rng=rng)
        reading = reader.read(window)
        row["windows"] += 1
        if reading.kind == OTHERS[code]:
            row["right"] += 1
        elif reading.kind == "unknown":
            row["unknown"] += 1
        else:
            row["silent"].append(f"{code} read {reading.card or reading.kind}")
        progress.advance(task)
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=100, help="windows of each (100)")
    parser.add_argument("--seed", type=int, default=99, help="of the views (99)")
    args, designs = designs_asked(parser)
    with Progress(console=Console(stderr=True), transient=True) as progress:
        rows = [read_surfaces(d, args.per_kind, args.seed, progress) for d in designs]
    table = Table(title=f"backs, cut cards and empty windows ({args.per_kind} of each per "
                        f"design, seed {args.seed})")
    for column in ("design", "cut card (BGR)", "windows", "right", "unknown", "silent", "what"):
        table.add_column(column, justify="left" if column in ("design", "what") else "right")
    for row in rows:
        table.add_row(row["name"], str(row["colour"]), str(row["windows"]), str(row["right"]),
                      str(row["unknown"]), str(len(row["silent"])), "; ".join(row["silent"]))
    total = {k: sum(row[k] for row in rows) for k in ("windows", "right", "unknown")}
    table.add_row("total", "", str(total["windows"]), str(total["right"]), str(total["unknown"]),
                  str(sum(len(row["silent"]) for row in rows)), "", style="bold")
    Console(width=160).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
