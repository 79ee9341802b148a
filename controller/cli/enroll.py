"""`sabot enroll`: learn a deck design from one sample per card (DESIGN.md contract), or
from a recording of one fresh deck run through the shoe in a known order."""

from __future__ import annotations

import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from controller.cli._numbers import colour, window, window_used
from controller.cli._paths import check_file_path
from controller.errors import InputError
from controller.service.enrol_recording import ORDERS, parse_order, write_recorded_samples
from controller.service.recording import open_recording
from vision.cards import SURFACE_KINDS, SURFACE_PLURALS
from vision.enrol import NO_EMPTY_NOTE, enrolment
from vision.profile import is_profile_file, save_profile
from vision.views import CONFUSED_CARD_LEARNED, TRAIN_VIEWS


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
        "bad input. With --recording instead of SAMPLES_DIR, the samples are cut from the "
        "frames of `sabot record`: one fresh deck run through the shoe in the order --order "
        "names, one passage per card.",
    )
    parser.add_argument("samples_dir", metavar="SAMPLES_DIR", nargs="?",
                        help="directory of sample images")
    parser.add_argument("--recording", metavar="REC", help="a recording of `sabot record` "
                        "(camera, and the shoe's link if it has a card sensor) of one deck")
    parser.add_argument("--order", metavar="ORDER",
                        help="the order the recorded cards came out: "
                        f"{', '.join(ORDERS)} (default new-deck: spades A-K, diamonds A-K, "
                        "clubs K-A, hearts K-A), a file, or the tokens in the `sabot deal` "
                        "language (^ before a card dealt face up: its back is seen; CUT; "
                        "JOKER), where a named order stands for its cards: \"new-deck ^KD "
                        "CUT\"")
    parser.add_argument("--window", type=window, metavar="X,Y,W,H", help="the reading window "
                        "in the recorded frames (default: [camera] window of --config, or "
                        "the whole frame)")
    parser.add_argument("--config", metavar="PATH", help="the config of `sabot run` to take "
                        "the reading window from")
    parser.add_argument("--keep-samples", metavar="DIR", help="keep the samples cut from the "
                        "recording in DIR (to look at, or to enrol again without it)")
    parser.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    parser.add_argument("--views", type=_views, default=TRAIN_VIEWS, metavar="N",
                        help=f"views learned per card (default {TRAIN_VIEWS}; "
                        f"{1 + CONFUSED_CARD_LEARNED} times that of cards that held-back views "
                        "took for one another; fewer is faster, "
                        "with fewer views of cards sliding and passing as well, and reads "
                        "fewer cards with confidence)")
    parser.add_argument("--sheet", metavar="PNG", help="also draw a contact sheet: what was "
                        "enrolled and the held-back views read wrong or not read")
    parser.add_argument("--cut-colour", type=colour, metavar="COLOUR",
                        help="the shoe's cut card is a plain card of this colour, for samples "
                        "with no picture of it (cut*.png): a name (yellow, red...), #rrggbb "
                        "or r,g,b")
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
    if args.samples_dir is None and args.recording is None:
        raise InputError("give SAMPLES_DIR (a folder of samples) or --recording REC (a "
                         "recording of `sabot record`)")
    if args.samples_dir is not None and args.recording is not None:
        raise InputError(f"give either SAMPLES_DIR ({args.samples_dir}) or --recording "
                         f"({args.recording}), not both")
    if args.samples_dir is not None:
        # Said, not ignored: an operator who gave them expected them to count.
        given = [option for option, value in (("--order", args.order),
                                              ("--window", args.window),
                                              ("--config", args.config),
                                              ("--keep-samples", args.keep_samples))
                 if value is not None]
        if given:
            raise InputError(f"{', '.join(given)}: for --recording only; SAMPLES_DIR "
                             f"({args.samples_dir}) holds the samples already")
    # Before the enrolment's minute, not after it.
    check_file_path("--out", args.out)
    _check_not_overwriting(args.out)
    if args.sheet:
        check_file_path("--sheet", args.sheet)
        if Path(args.sheet).suffix.lower() != ".png":
            raise InputError(f"--sheet {args.sheet}: the sheet is a PNG; name it *.png")
    start = time.perf_counter()  # the time printed is the operator's wait, frames and all
    with ExitStack() as stack:
        samples_dir = args.samples_dir
        if args.recording:
            samples_dir = _samples_of_recording(args, stack)
        return _enrol(args, samples_dir, start)


def _bar(console: Console, what: str, unit: str) -> Progress:
    """A progress bar on stderr (none where stderr is no terminal: a log stays clean)."""
    # M/N shows "0/?" until the total is known (a text column printed "0/None").
    columns = (TextColumn(what), BarColumn(), MofNCompleteColumn(), TextColumn(unit),
               TimeRemainingColumn())
    return Progress(*columns, console=console, transient=True,
                    disable=not console.is_terminal)


def _check_not_overwriting(out: str) -> None:
    """Refuse an --out that names a file other than a profile (an operator's trial: a
    journal given as --out was replaced by the profile). A profile is written over."""
    path = Path(out)
    if not path.is_file() or path.stat().st_size == 0 or is_profile_file(path):
        return
    raise InputError(f"--out {out}: exists and is not a profile of `sabot enroll`; it would "
                     "be written over: give another name (or remove it first)")


def _samples_of_recording(args, stack: ExitStack) -> str:
    items = parse_order(args.order or "new-deck")
    if args.cut_colour is not None and any(item.name.startswith("cut") for item in items):
        raise InputError("--cut-colour: the order names the cut card (CUT), which the "
                         "recording shows: give one or the other")
    window = args.window
    if window is None and args.config:
        from controller.service.config import (  # noqa: PLC0415 - only when asked for
            load_config,
            sets_window,
        )

        config = load_config(args.config)  # its errors first: the file, a key, a line
        if not sets_window(args.config):
            # The config's default window is no calibration: samples cut there teach the
            # reader nothing (an operator's trial: 13.6% read, exit 0).
            raise InputError(f"--config {args.config}: sets no [camera] window: run `sabot "
                             f"calibrate FRAME --config {args.config}` first, or give "
                             "--window X,Y,W,H")
        window = tuple(config["camera"]["window"])
    print(window_used(window, given=args.window is not None, config=args.config),
          file=sys.stderr)
    recording = open_recording(args.recording)
    for note in recording.notes:
        print(f"note: {note}", file=sys.stderr)
    out = (Path(args.keep_samples) if args.keep_samples
           else Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="sabot-enrol-"))))
    if args.keep_samples and out.exists() and any(out.iterdir()):
        raise InputError(f"--keep-samples {out}: not empty; choose a new directory")
    with _bar(Console(stderr=True), "reading the recording", "frames") as progress:
        task = progress.add_task("frames", total=len(recording.frames))
        notes = write_recorded_samples(
            recording, items, out, window,
            progress=lambda done, total: progress.update(task, completed=done, total=total))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.keep_samples:
        print(f"samples cut from the recording -> {out}", file=sys.stderr)
    return str(out)


def _enrol(args, samples_dir: str, start: float) -> int:
    console = Console(stderr=True)
    with _bar(console, "enrolling", "views") as progress:
        task = progress.add_task("enrol", total=None)
        result = enrolment(samples_dir, views=args.views, cut_colour=args.cut_colour,
                           progress=lambda done, total: progress.update(task, completed=done,
                                                                        total=total))
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    save_profile(result.profile, args.out)
    p = result.profile
    kinds = [str(k) for k in p.kind_classes if str(k) in SURFACE_KINDS]
    if NO_EMPTY_NOTE in result.notes:  # no sample of it: the built-in dark grey interior
        kinds = [k if k != "empty" else "empty (assumed dark grey)" for k in kinds]
    print(f"enrolled {len(p.likeness)} cards and {', '.join(kinds)} in "
          f"{time.perf_counter() - start:.1f} s -> {args.out}", file=sys.stderr)
    least_score, least_margin = p.thresholds["card"]
    print(f"held-back views: {p.held_accepted:.1%} of {p.held_views} views of cards read with "
          f"confidence (similarity >= {least_score:.2f}, lead >= {least_margin:.2f}); "
          f"{p.held_wrong} read wrong before the thresholds, none by the reader; "
          f"margin found {p.separation:+.2f}", file=sys.stderr)
    if result.relearned:
        print(f"learned again from {1 + CONFUSED_CARD_LEARNED} times the views: "
              f"{len(result.relearned)} cards held-back views took for one another "
              f"({' '.join(result.relearned)})", file=sys.stderr)
    else:
        print("no held-back view of a card was taken for another card", file=sys.stderr)
    x, y, w, h = p.suit_place
    print(f"suit check: where the design prints its suit (a box {w:.0f} x {h:.0f} px, "
          f"{x:.0f} px in from the index zone's left and {y:.0f} down from its top), the suit "
          f"read {_suit_lead(p.thresholds['suit'][0])}; it stops {result.suit_stopped} "
          "held-back cards read wrong", file=sys.stderr)
    if result.surfaces_read:
        print("held back and read with confidence: " + ", ".join(
            f"{share:.1%} of the {SURFACE_PLURALS[kind]}"
            for kind, share in result.surfaces_read.items())
            + " (the rest left unknown)", file=sys.stderr)
    if p.gate_reach > 0:
        rest = "" if result.gate_share >= 0.995 else " (the others are looked at more closely)"
        print(f"empty window told at a glance of its colour: {result.gate_share:.0%} of the "
              f"held-back ones{rest}", file=sys.stderr)
    else:
        print("empty window told at a glance of its colour: never (something else looks like "
              "the empty shoe, or no empty window was learned): every window is read in "
              "full", file=sys.stderr)
    if args.sheet:
        from vision.sheet import write_sheet  # noqa: PLC0415 - only when asked for

        drawing = time.perf_counter()
        with _bar(console, "drawing the sheet", "views") as progress:
            task = progress.add_task("sheet", total=None)
            sheet = write_sheet(result, args.sheet, progress=lambda done, total:
                                progress.update(task, completed=done, total=total))
        print(f"sheet -> {sheet} (the held-back views read again in "
              f"{time.perf_counter() - drawing:.1f} s)", file=sys.stderr)
    for line in _verdict(result, kinds, args):
        print(line, file=sys.stderr)
    return 0


def _suit_lead(least: float) -> str:
    """The suit check's least lead in words: "lead by -0.04" read as a typo (a trial,
    stop 61)."""
    if least >= 0:
        return f"must lead the other three by {least:.2f}"
    return f"may trail the nearest of the other three by {-least:.2f} at most"


def _verdict(result, kinds: list[str], args) -> list[str]:
    """The enrolment in an operator's words: what the profile does, then what is left to
    do (the lines above are the engineer's)."""
    p = result.profile
    # Calibrated so: none of the held-back views is read as another card (`held_wrong`
    # counts those nearest another card before the thresholds, which left them unread).
    lines = [f"result: the profile read {p.held_accepted:.1%} of {p.held_views} test views of "
             "the cards, none as another card; a card it cannot read halts the table, it "
             "never guesses"]
    todo = []
    if "back" not in kinds:
        todo.append("add a picture of the cards' back (back.png): without it the table "
                    "halts at every card dealt face up")
    if "cut" not in kinds:
        todo.append("add a picture of the shoe's cut card (cut.png), or give its colour "
                    "(--cut-colour): without it the table halts at every shoe's cut card")
    if NO_EMPTY_NOTE in result.notes:
        todo.append("add a picture of the empty window (empty.png), if the camera sees "
                    "anything but a dark shoe with no card")
    # As the lines above show them (99.0% is not "fewer than 99%").
    low = (["the cards"] if round(p.held_accepted, 3) < 0.99 else []) + [
        SURFACE_PLURALS[kind] for kind, share in result.surfaces_read.items()
        if round(share, 3) < 0.99]
    if low:
        what = " and ".join(low)
        sheet = "the sheet" if args.sheet else "the sheet (--sheet PNG)"
        # A window set by `sabot calibrate` is no remedy for whole card faces: enrolment
        # cut their windows itself (a trial, stop 61).
        again = ("take the samples again" if result.whole_faces and not args.recording
                 else "take the samples again or set the window with `sabot calibrate`")
        todo.append(f"fewer than 99% of the test views of {what} were read: look at "
                    f"{sheet}, then {again}")
    # Enrolment learns each sample as the card its name (or the order) says: it cannot tell
    # a name that is wrong, and the reader then reads that card so, with confidence (an
    # operator's trial: hearts and diamonds swapped in the order, exit 0).
    where = f"on the sheet ({args.sheet})" if args.sheet else "with --sheet PNG"
    source = "the order names" if args.recording else "its file is named"
    todo.append(f"check {where} that each sample shows the card {source}: one named wrong "
                "is learned as that card, and read as it")
    return lines + ["to do:"] + [f"  - {item}" for item in todo]
