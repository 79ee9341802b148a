"""Shallow pulls benchmark: a card drawn until its index shows, then pushed back, over every
surround a camera may see past the card.

A dealer who draws a card a little and pushes it back into the shoe has not dealt it: the
tracker must say so (`SlidBack`, which halts the table naming the card) or leave the pull
unread (the table halts too), and never count the card when it is drawn again for good as
a second card. A card drawn so little that its index is read near one height only is told
going back by its top edge seen low in the window again (`register.entering`), which the
camera must find over the shoe's lit lip or the table as well as over the dark interior
(`vision.top_edge`). For each design (enrolled as `bench.vision` does), `--pulls` pulls of
random cards, each over the next surround in turn (`synth.SURROUNDS`), drawn to a travel of
30-65 rows at 2, 3, 4, 10 or 28 rows a frame (`synth.pulled_a_little`), then the card's
whole passage, with the card sensor. One row per design: caught (slid back), halted
unreadable, never read (the pull unseen, the card read once: right too), counted twice
(must be 0).
Run: .venv/bin/python -m bench.pulls [--pulls 30] [--severity 1.0] [--seed S] [--only NAME...]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.passages import BUILT_IN, reader_of
from bench.vision import design_seed
from vision.cards import ALL_CARDS
from vision.decks import decks_root
from vision.events import CardSeen, SlidBack, Unreadable
from vision.synth import EMPTY, SURROUNDS, card_frames, pulled_a_little, render_window
from vision.tracker import Tracker
from vision.tuning import tune_for_reading

REACH = (30.0, 65.0)  # the pull's travel, rows (about 40-60 shows the index just wholly)
STEPS = (2.0, 3.0, 4.0, 10.0, 28.0)  # rows a frame: a slow hand to a quick one


def pull_outcome(events: list, code: str) -> str:
    """What the table makes of a pull of `code` followed by its passage: "caught" (slid
    back, then read), "halted" (an unreadable passage), "once" (read once, the pull never
    read), "twice" (counted twice) or "wrong" (read as another card)."""
    seen = [e.card for e in events if isinstance(e, CardSeen)]
    if any(card != code for card in seen):
        return "wrong"
    if any(isinstance(e, SlidBack) for e in events):
        return "caught"
    if any(isinstance(e, Unreadable) for e in events):
        return "halted"
    return "twice" if len(seen) > 1 else "once"


def pull_design(deck, reader, pulls: int, severity: float, seed: int, advance) -> dict:
    rng = np.random.default_rng(seed)
    counts = {"pulls": 0, "caught": 0, "halted": 0, "once": 0, "twice": 0, "wrong": 0,
              "missed": []}
    for n in range(pulls):
        code = ALL_CARDS[int(rng.integers(len(ALL_CARDS)))]
        surround = SURROUNDS[n % len(SURROUNDS)]
        frames_rng = np.random.default_rng(int(rng.integers(1 << 30)))
        pull = pulled_a_little(deck, code, frames_rng, reach=float(rng.uniform(*REACH)),
                               step=float(rng.choice(STEPS)), severity=severity,
                               surround=surround)
        empty = [(render_window(deck, EMPTY, rng=frames_rng), False)] * 2
        passage = list(card_frames(deck, code, frames_rng, severity=severity))
        tracker = Tracker(reader)
        events = [e for window, present in pull + empty + passage + empty
                  for e in tracker.feed(window, card_present=present)]
        outcome = pull_outcome(events + tracker.flush(), code)
        counts["pulls"] += 1
        counts[outcome] += 1
        if outcome in ("twice", "wrong"):
            counts["missed"].append(f"{code} {outcome} over {surround}")
        advance()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pulls", type=int, default=30, help="pulls per design (30)")
    parser.add_argument("--severity", type=float, default=1.0,
                        help="of the camera envelope (1.0: the whole of it)")
    parser.add_argument("--seed", type=int, default=20261207)
    parser.add_argument("--only", nargs="*", default=[], metavar="NAME",
                        help="only the designs whose name holds one of these")
    args = parser.parse_args()
    if args.pulls < 1 or args.severity <= 0:
        parser.error("--pulls must be at least 1 and --severity above 0")
    tune_for_reading()  # as the service runs it
    designs = [BUILT_IN] + sorted(d.name for d in decks_root().iterdir() if d.is_dir())
    designs = [d for d in designs if not args.only or any(part in d for part in args.only)]
    table = Table(title=f"shallow pulls over every surround ({args.pulls} per design, "
                        f"severity {args.severity:g}, seed {args.seed}, card sensor)")
    columns = ("pulls", "caught", "halted", "once", "twice", "wrong")
    for column in ("design", *columns, "counted twice or wrong"):
        table.add_column(column, justify="left" if column in ("design", "counted twice or "
                                                              "wrong") else "right")
    total = dict.fromkeys(columns, 0)
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for design in designs:
            seed = design_seed(args.seed, design)
            task = progress.add_task(design, total=args.pulls)
            deck, reader = reader_of(design, seed)
            row = pull_design(deck, reader, args.pulls, args.severity, seed,
                              lambda task=task: progress.advance(task))
            for key in total:
                total[key] += row[key]
            table.add_row(design, *(str(row[k]) for k in columns), " ".join(row["missed"][:6]))
    table.add_row("total", *(str(total[k]) for k in columns), "", style="bold")
    Console(width=140).print(table)
    return 1 if total["twice"] or total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
