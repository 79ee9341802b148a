"""Passages benchmark: how many cards the tracker reads as they slide through the window.

`bench.vision` reads single windows with the card in place; a shoe sees each card slide
through the window in a few frames, only some of which show its whole index, and the table
halts for every card no two of them read. For each design (enrolled as `bench.vision` does:
from its whole faces and a solid-colour cut card), every card is dealt `--passages` times
through the window in `--frames` frames (`synth.card_frames`, the simulator's severity, the
card sensor given), into a `Tracker`: one row per design with the passages read, unread
(the table would halt), read as another card (must be 0) and taken for a card that slid
back into the shoe (a false halt).
`--face-up` deals every card face up past a shoe's two cameras instead: read right only when
the over view read its face and the under view its back. `--no-sensor` tells the tracker
nothing of the card sensor, as in a shoe without one: each passage is found from the frames
alone, and a frame read as the empty window in the middle of one may split it.
Run: .venv/bin/python -m bench.passages [--frames 16] [--passages 2] [--only NAME...]
     [--face-up] [--no-sensor]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.vision import design_seed, enrolment_dir, solid_colour
from controller.sim.setup import enrolled_reader
from vision.cards import ALL_CARDS
from vision.decks import decks_root, draw_cut, load_deck, synthetic_deck
from vision.enrol import enrol
from vision.events import CardSeen, SlidBack
from vision.reader import Reader
from vision.synth import card_frames, two_view_frames
from vision.tracker import Tracker
from vision.tuning import tune_for_reading

BUILT_IN = "built-in (synthetic)"


def reader_of(design: str, seed: int) -> tuple[object, Reader]:
    """(deck, reader): a shared design enrolled from its faces, or the simulator's own."""
    if design == BUILT_IN:
        deck = synthetic_deck()
        return deck, enrolled_reader(deck)
    folder = decks_root() / design
    cut = solid_colour(np.random.default_rng(seed))
    deck = load_deck(str(folder))
    deck.cards["CUT"] = draw_cut(cut)
    with tempfile.TemporaryDirectory() as tmp:
        return deck, Reader(enrol(enrolment_dir(folder, Path(tmp) / "samples", cut)))


def deal_passages(deck, reader: Reader, passages: int, frames: int, seed: int,
                  advance, face_up: bool = False, sensor: bool = True) -> dict:
    """`face_up`: every card dealt face up, past a shoe's two cameras (`two_view_frames`:
    the under view sees its back, the over view its face), and read right only as face up.
    `sensor`: the tracker is told what the card sensor says of each frame; without it,
    nothing (a shoe without one)."""
    rng = np.random.default_rng(seed)
    counts = {"passages": 0, "read": 0, "unread": 0, "wrong": 0, "slid": 0, "missed": []}
    blank = np.zeros((200, 128, 3), np.uint8)

    def views(code: str):
        """(under, over, card present) of each frame of `code`'s passage."""
        if face_up:
            return ((under, over, present) for under, over, present in two_view_frames(
                deck, code, rng, face_up=True, frames=frames))
        return ((window, None, present)
                for window, present in card_frames(deck, code, rng, frames=frames))

    for _ in range(passages):
        for code in ALL_CARDS:
            tracker = Tracker(reader)
            events = [e for under, over, present in views(code)
                      for e in tracker.feed(under, card_present=present if sensor else None,
                                            over=over)]
            events += tracker.feed(blank, card_present=False if sensor else None)
            seen = [e.card + (" face down" if face_up and not e.face_up else "")
                    for e in events if isinstance(e, CardSeen)]
            counts["passages"] += 1
            if any(isinstance(e, SlidBack) for e in events):
                counts["slid"] += 1
                counts["missed"].append(f"{code} slid back")
            elif seen == [code]:
                counts["read"] += 1
            elif seen:
                counts["wrong"] += 1
                counts["missed"].append(f"{code} read {' '.join(seen)}")
            else:
                counts["unread"] += 1
                counts["missed"].append(code)
            advance()
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=16, help="frames per card (default 16)")
    parser.add_argument("--passages", type=int, default=2, help="passages of each card (2)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--only", nargs="*", default=[], metavar="NAME",
                        help="only the designs whose name holds one of these")
    parser.add_argument("--face-up", action="store_true",
                        help="deal every card face up past two cameras (the under view sees "
                             "its back, the over view its face); designs without a back "
                             "are left out")
    parser.add_argument("--no-sensor", action="store_true",
                        help="tell the tracker nothing of the card sensor, as in a shoe "
                             "without one: passages found from the frames alone")
    args = parser.parse_args()
    if args.frames < 4 or args.passages < 1:
        parser.error("--frames must be at least 4 and --passages at least 1")
    tune_for_reading()  # as the service runs it
    designs = [BUILT_IN] + sorted(d.name for d in decks_root().iterdir() if d.is_dir())
    designs = [d for d in designs if not args.only or any(part in d for part in args.only)]
    if args.face_up:
        designs = [d for d in designs if d == BUILT_IN or (decks_root() / d / "back.png").exists()]
    table = Table(title=f"passages through the window ({args.frames} frames per card, "
                        f"{args.passages} of each card, seed {args.seed}"
                        f"{', face up past two cameras' if args.face_up else ''}"
                        f"{', no card sensor' if args.no_sensor else ''})")
    for column in ("design", "passages", "read", "unread", "read wrong", "slid back",
                   "unread cards"):
        table.add_column(column, justify="left" if column in ("design", "unread cards")
                         else "right")
    total = {"passages": 0, "read": 0, "unread": 0, "wrong": 0, "slid": 0}
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for design in designs:
            seed = design_seed(args.seed, design)
            task = progress.add_task(design, total=args.passages * len(ALL_CARDS))
            deck, reader = reader_of(design, seed)
            row = deal_passages(deck, reader, args.passages, args.frames, seed,
                                lambda task=task: progress.advance(task), args.face_up,
                                not args.no_sensor)
            for key in total:
                total[key] += row[key]
            table.add_row(design, str(row["passages"]), str(row["read"]), str(row["unread"]),
                          str(row["wrong"]), str(row["slid"]), " ".join(row["missed"][:8]))
    table.add_row("total", *(str(total[k]) for k in ("passages", "read", "unread", "wrong",
                                                     "slid")), "", style="bold")
    Console(width=140).print(table)
    return 1 if total["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
