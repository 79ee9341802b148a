"""Gate benchmark: the empty-window gate against cut cards of many colours, per design.

The gate (`vision.gate`) answers "empty" from a window's six colour numbers in 0.03 ms
against a full read's 0.8, so a cut card it lets through is a silent error (the last coup
missed without a card sensor), and a cut card about the interior's colour is where that can
happen. `bench.vision` reads 20 cut cards of one colour per design. Here each design is
enrolled from its faces with `--colours` cut card colours in turn (dark ones by default:
hue and saturation any, value 20-89, as `bench.vision`'s dark fifth; each design its own,
drawn from its `design_seed`), and `--per-colour` fresh cut cards and a tenth as many backs
and empty windows each are put to the gate alone, across the whole envelope: how many of
each it lets through, and its clearance.
Run: .venv/bin/python -m bench.gate [--colours N] [--per-colour N] [--any] [--seed S]
     [--decks DIR] [--only NAME...]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.invent import hsv_colour
from bench.vision import (
    DARK_VALUES,
    add_design_choice,
    chosen_designs,
    design_seed,
    enrolment_dir,
    solid_colour,
)
from vision.decks import draw_cut, load_deck
from vision.enrol import enrolment
from vision.features import thumbnail
from vision.geometry import to_window
from vision.synth import EMPTY, random_perturbation, render_window
from vision.tuning import tune_for_reading
from vision.views import TRAIN_VIEWS


def dark_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A cut card's colour near the shoe's interior: any hue and saturation, value 20-89."""
    return hsv_colour(int(rng.integers(0, 180)), int(rng.integers(0, 256)),
                      int(rng.integers(*DARK_VALUES)))


def gate_colours(design: Path, colours: int, per_colour: int, dark: bool, seed: int,
                 progress, views: int = TRAIN_VIEWS) -> list[dict]:
    """One row per cut card colour: the design enrolled with it (`views` learned per card),
    then its gate's count of fresh cut cards, backs and empty windows let through."""
    draw = np.random.default_rng(design_seed(seed, design.name))
    base = load_deck(str(design))
    has_back = (design / "back.png").exists()
    others = max(1, per_colour // 10)
    kinds = [("CUT", per_colour)] + [("BACK", others)] * has_back + [(EMPTY, others)]
    task = progress.add_task(design.name, total=colours * (1 + sum(n for _, n in kinds)))
    rows = []
    for number in range(colours):
        colour = dark_colour(draw) if dark else solid_colour(draw)
        # A deck of its own per colour: the renderer keeps each deck's cards once drawn.
        deck = dataclasses.replace(base, cards={**base.cards, "CUT": draw_cut(colour)})
        # The enrolment, most of each colour's time, on a bar of its own while it lasts.
        views_task = progress.add_task(f"  enrolling with {colour}", total=None)
        with tempfile.TemporaryDirectory() as tmp:
            enrolled = enrolment(
                enrolment_dir(design, Path(tmp) / "samples", colour), views=views,
                progress=lambda done, total, bar=views_task: progress.update(
                    bar, completed=done, total=total))
        progress.remove_task(views_task)
        progress.advance(task)
        gate = enrolled.profile.gate
        rng = np.random.default_rng((design_seed(seed, design.name), number))
        row = {"name": design.name, "colour": colour, "clearance": gate.clearance,
               "reach": gate.reach, "held": enrolled.gate_share}
        for code, count in kinds:
            through = 0
            for _ in range(count):
                window = render_window(deck, code, random_perturbation(rng, 1.0), rng=rng)
                through += gate.passes(thumbnail(to_window(window)))
                progress.advance(task)
            row[code] = (through, count)
        rows.append(row)
    return rows


def _count(row: dict, code: str) -> str:
    through, count = row.get(code, (0, 0))
    return f"{through}/{count}" if count else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--colours", type=int, default=2, help="cut card colours per design "
                        "(2)")
    parser.add_argument("--per-colour", type=int, default=1000, metavar="N",
                        help="fresh cut cards per colour (1000); a tenth as many backs and "
                        "empty windows")
    parser.add_argument("--any", action="store_true", help="colours as bench.vision draws "
                        "them (four in five bright), not only dark ones")
    parser.add_argument("--seed", type=int, default=11, help="of the colours and views (11)")
    add_design_choice(parser)
    args = parser.parse_args()
    if args.colours < 1 or args.per_colour < 1:
        parser.error("--colours and --per-colour must be at least 1")
    tune_for_reading()
    designs = chosen_designs(args)
    with Progress(console=Console(stderr=True), transient=True) as progress:
        rows = [row for d in designs for row in gate_colours(
            d, args.colours, args.per_colour, not args.any, args.seed, progress)]
    table = Table(title=f"the empty-window gate against {'any' if args.any else 'dark'} cut "
                        f"card colours ({args.colours} per design, seed {args.seed})")
    for column in ("design", "cut card (BGR)", "clearance", "held-back empties through",
                   "cut cards through", "backs through", "empty windows through"):
        table.add_column(column, justify="left" if column == "design" else "right")
    for row in rows:
        table.add_row(row["name"], str(row["colour"]), f"{row['clearance']:.2f}"
                      if row["reach"] > 0 else "shut", f"{row['held']:.0%}",
                      _count(row, "CUT"), _count(row, "BACK"), _count(row, EMPTY))
    totals = {code: (sum(r.get(code, (0, 0))[0] for r in rows),
                     sum(r.get(code, (0, 0))[1] for r in rows)) for code in ("CUT", "BACK", EMPTY)}
    table.add_row("total", "", "", "", *(_count(totals, code) for code in ("CUT", "BACK", EMPTY)),
                  style="bold")
    Console(width=160).print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
