"""Foreign cards benchmark: each design's profile shown the cards of every other design.

A card of another design in the shoe (a cheat's, or a deck mixed up) is a foreign card: the
table should halt on it. The reader is calibrated on the enrolled design and on the built-in
design in another typeface, never on the design it is shown here. Each shared design is
enrolled as `bench.vision` does (its faces and the same cut card), then reads `--views`
views of every card of each other design at `--severity` of the envelope. One row per
profile: the foreign faces shown, read as a card (its own value: the foreign card is not
caught, but no value is wrong), and read as another value (a wrong card with confidence,
the one error not allowed), with the worst of them.
Run: .venv/bin/python -m bench.foreign [--views 1] [--severity 0.5] [--seed 3]
     [--decks DIR] [--only NAME...]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.vision import designs_asked, enrolled_as_benchmarked
from vision.cards import ALL_CARDS
from vision.decks import Deck, load_deck
from vision.reader import Reader
from vision.synth import random_perturbation, render_window


def read_foreign(reader: Reader, others: list[Deck], views: int, severity: float,
                 rng: np.random.Generator, advance=lambda: None) -> dict:
    """How `reader` reads `views` views of every card of each deck of `others`: the faces
    shown, those read as their own card, and each read as another ("deck CODE as CARD")."""
    row: dict = {"faces": 0, "own": 0, "wrong": []}
    for deck in others:
        for code in ALL_CARDS:
            for _ in range(views):
                reading = reader.read(render_window(deck, code,
                                                    random_perturbation(rng, severity),
                                                    rng=rng))
                advance()
                row["faces"] += 1
                if reading.kind != "face":
                    continue
                if reading.card == code:
                    row["own"] += 1
                else:
                    row["wrong"].append((reading.score, f"{deck.name} {code} as "
                                                        f"{reading.card} {reading.score:.2f}"))
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--views", type=int, default=1, help="views of each foreign card (1)")
    parser.add_argument("--severity", type=float, default=0.5,
                        help="of the camera envelope (0.5)")
    parser.add_argument("--seed", type=int, default=3, help="of the views (3)")
    args, designs = designs_asked(parser)
    every = sorted(d for d in args.decks.iterdir() if d.is_dir())
    decks = {d: load_deck(str(d)) for d in every}
    rows = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for design in designs:
            _, reader, _ = enrolled_as_benchmarked(design)
            others = [decks[d] for d in every if d != design]
            task = progress.add_task(design.name, total=len(others) * 52 * args.views)
            row = read_foreign(reader, others, args.views, args.severity,
                               np.random.default_rng(args.seed),
                               lambda task=task: progress.advance(task))
            rows.append((design.name, row))
    table = Table(title=f"foreign cards: each profile shown every other design's cards "
                        f"({args.views} view per card, severity {args.severity}, seed "
                        f"{args.seed})")
    for column in ("profile", "foreign faces", "read as their own card", "read wrong",
                   "the surest wrong"):
        table.add_column(column, justify="left" if column in ("profile", "the surest wrong")
                         else "right")
    total = {"faces": 0, "own": 0, "wrong": []}
    for name, row in rows:
        _add(table, name, row)
        for key in total:
            total[key] += row[key]
    _add(table, "total", total)
    Console(width=200).print(table)
    return 0


def _add(table: Table, name: str, row: dict) -> None:
    worst = max(row["wrong"], default=(0.0, ""))[1]
    faces = max(row["faces"], 1)
    table.add_row(name, str(row["faces"]), f"{row['own']} ({row['own'] / faces:.1%})",
                  f"{len(row['wrong'])} ({len(row['wrong']) / faces:.2%})", worst)


if __name__ == "__main__":
    sys.exit(main())
