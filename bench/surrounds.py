"""Surrounds benchmark: every design read over what a camera may see past the card instead of
the shoe's dark interior.

A real camera at the shoe's mouth sees the lip of the shoe, lit or not, and past it the
table: felt, wood, grey, a mottled mix. Each design is enrolled as in `bench.vision` (its
faces and the same cut card colour, from the same per-design seed; no empty window sample,
as an operator enrolling from the artwork has none), then `--views` views of every card and
`--surfaces` cut card and empty windows are read across the whole envelope over each
surround. Faces: read right, unknown, read wrong (as another card, or as a back, cut card or
empty window: silent). Cut cards and empty windows: right, and silent (read as anything but
unknown). The empty windows show a surround that was never enrolled: `sabot enroll` says
so, and asks for a picture of the empty window.
Run: .venv/bin/python -m bench.surrounds [--views N] [--surfaces N] [--seed S]
     [--decks DIR] [--only NAME...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.vision import designs_asked, enrolled_as_benchmarked
from vision.cards import ALL_CARDS
from vision.reader import Reader
from vision.synth import EMPTY, SURROUNDS, random_perturbation, render_window

OTHER_SURROUNDS = tuple(s for s in SURROUNDS if s != "interior")


def read_design(design: Path, views: int, surfaces: int, seed: int, progress) -> list[dict]:
    """Enrol `design` as `bench.vision` does, then `read_surrounds`."""
    deck, reader, _ = enrolled_as_benchmarked(design)
    task = progress.add_task(design.name, total=(52 * views + 2 * surfaces)
                             * len(OTHER_SURROUNDS))
    return read_surrounds(deck, reader, views, surfaces, seed,
                          lambda: progress.advance(task))


def read_surrounds(deck, reader: Reader, views: int, surfaces: int, seed: int,
                   advance=lambda: None) -> list[dict]:
    """One row per surround other than the interior: `views` views of every card and
    `surfaces` cut card and empty windows across the whole envelope, as `reader` reads them."""
    rng = np.random.default_rng(seed)
    codes = [c for c in ALL_CARDS for _ in range(views)] + ["CUT", EMPTY] * surfaces
    rows = []
    for surround in OTHER_SURROUNDS:
        row = {"name": deck.name, "surround": surround, "faces": 0, "right": 0,
               "unknown": 0, "silent": [], "cut": 0, "cut_right": 0, "empty": 0,
               "empty_right": 0, "surface_silent": []}
        for code in codes:
            window = render_window(deck, code, random_perturbation(rng, 1.0, surround=surround),
                                   rng=rng)
            reading = reader.read(window)
            advance()
            if code in ("CUT", EMPTY):
                kind = "cut" if code == "CUT" else "empty"
                row[kind] += 1
                row[f"{kind}_right"] += reading.kind == kind
                if reading.kind not in (kind, "unknown"):
                    row["surface_silent"].append(f"{code} read {reading.card or reading.kind}")
                continue
            row["faces"] += 1
            if reading.kind == "unknown":
                row["unknown"] += 1
            elif reading.card != code:  # another card, or a back, cut card or empty window
                row["silent"].append(f"{code} read {reading.card or reading.kind}")
            else:
                row["right"] += 1
        rows.append(row)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--views", type=int, default=2, help="views of each card (2)")
    parser.add_argument("--surfaces", type=int, default=10,
                        help="cut card and empty windows of each per surround (10)")
    parser.add_argument("--seed", type=int, default=5, help="of the views (5)")
    args, designs = designs_asked(parser)
    with Progress(console=Console(stderr=True), transient=True) as progress:
        rows = [row for d in designs
                for row in read_design(d, args.views, args.surfaces, args.seed, progress)]
    table = Table(title=f"over other surrounds ({args.views} views per card, {args.surfaces} "
                        f"cut and empty windows per surround, seed {args.seed}, enrolled "
                        "from faces)")
    for column in ("design", "surround", "faces read", "unknown", "read wrong", "cut card",
                   "empty (not enrolled)", "cut/empty silent", "what was wrong"):
        table.add_column(column, justify="left" if column in ("design", "surround",
                                                              "what was wrong") else "right")

    def add(name: str, surround: str, group: list[dict]) -> None:
        wrong = [s for r in group for s in r["silent"]]
        surfaces = [s for r in group for s in r["surface_silent"]]
        table.add_row(
            name, surround, f"{sum(r['right'] for r in group)}/{sum(r['faces'] for r in group)}",
            str(sum(r["unknown"] for r in group)), str(len(wrong)),
            f"{sum(r['cut_right'] for r in group)}/{sum(r['cut'] for r in group)}",
            f"{sum(r['empty_right'] for r in group)}/{sum(r['empty'] for r in group)}",
            str(len(surfaces)),
            "; ".join(wrong + sorted(f"{n} {what}" for what, n in Counter(surfaces).items())))

    for row in rows:
        add(row["name"], row["surround"], [row])
    for surround in OTHER_SURROUNDS:
        add("total", surround, [r for r in rows if r["surround"] == surround])
    Console(width=200).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
