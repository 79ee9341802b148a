"""`sabot enroll`: learn a deck design from one sample per card (DESIGN.md contract)."""

from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from vision.enrol import TRAIN_VIEWS, enrolment
from vision.profile import save_profile


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help="learn a deck design from one sample per card",
        description="Enrol a deck design and cut card: SAMPLES_DIR holds one image per card "
        "named by its code (AS.png, 10H.png, TD.jpg; all 52), either a reading window or a "
        "whole card face as the deck's artwork ships (the window is cut from it), plus "
        "back*.png, cut*.png and optionally empty*.png and joker*.png. Views of each across "
        "the camera envelope are learned and others read to calibrate when a reading is "
        "trusted. Other file names and a missing back or cut card are noted, not fatal. "
        "Writes the profile (.npz) that `sabot read` and the service use. Exit status 2 on "
        "bad input.",
    )
    parser.add_argument("samples_dir", metavar="SAMPLES_DIR", help="directory of sample images")
    parser.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    parser.add_argument("--views", type=_views, default=TRAIN_VIEWS, metavar="N",
                        help=f"views learned per card (default {TRAIN_VIEWS}; fewer is faster "
                        "and reads fewer cards with confidence)")
    parser.add_argument("--sheet", metavar="PNG", help="also draw a contact sheet: what was "
                        "enrolled and the held-back views read wrong or not read")
    parser.set_defaults(func=run)


def _views(text: str) -> int:
    import argparse  # noqa: PLC0415 - only for the error

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 2 <= value <= 400:
        raise argparse.ArgumentTypeError(f"{value} views: give 2 to 400")
    return value


def run(args) -> int:
    console = Console(stderr=True)
    start = time.perf_counter()
    columns = (TextColumn("enrolling"), BarColumn(), TextColumn("{task.completed}/{task.total}"
                                                                " views"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("enrol", total=None)
        result = enrolment(args.samples_dir, views=args.views,
                           progress=lambda done, total: progress.update(task, completed=done,
                                                                        total=total))
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    save_profile(result.profile, args.out)
    p = result.profile
    kinds = [str(k) for k in p.kind_classes if str(k) in ("back", "cut", "empty")]
    print(f"enrolled {len(p.likeness)} cards and {', '.join(kinds)} in "
          f"{time.perf_counter() - start:.1f} s -> {args.out}", file=sys.stderr)
    print(f"held-back views: {p.held_accepted:.1%} of {p.held_views} cards read with "
          f"confidence (similarity >= {p.card_score:.2f}, lead >= {p.card_margin:.2f}); "
          f"{p.held_wrong} read wrong before the thresholds, none after; "
          f"margin found {p.separation:+.2f}", file=sys.stderr)
    if args.sheet:
        from vision.sheet import write_sheet  # noqa: PLC0415 - only when asked for

        print(f"sheet -> {write_sheet(result, args.sheet)}", file=sys.stderr)
    return 0
