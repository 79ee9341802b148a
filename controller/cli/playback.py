"""`sabot playback REC`: a recording played into the real service, and compared."""

from __future__ import annotations

import argparse
import os
import sys
import time

from controller.cli._journal_path import journal_path
from controller.cli._numbers import number, window, window_used

EXIT_DIFFERENT = 1


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "playback", help="play a recording of `sabot record` into the service",
        description="Play a recording of `sabot record` into the service of `sabot run`: "
        "its camera frames through the reader and the tracker, its serial bytes through the "
        "real link, in the order they were recorded, into a new journal; then print what the "
        "table did. The same recording gives the same journal at any speed. Exit status as "
        "`sabot deal` (0 done, 2 bad input, 3 the cards ran out in a round, 4 the table "
        "ended halted), or 1 if --expect found a difference.",
        epilog="A regression test for a shoe's firmware, its camera or a new Sabot version: "
        "sabot playback REC --config /etc/sabot/config.toml --fast --expect before.sqlite")
    parser.add_argument("recording", metavar="REC", help="directory written by `sabot record`")
    parser.add_argument("--config", metavar="PATH", help="the table's config of `sabot run`: "
                        "its [table] settings, [camera] profile and window")
    parser.add_argument("--profile", metavar="PROFILE", help="the deck's profile (default: "
                        "[camera] profile of --config)")
    parser.add_argument("--window", type=window, metavar="X,Y,W,H", help="the reading window "
                        "in the recorded frames (default: [camera] window of --config)")
    parser.add_argument("--decks", type=number(int, 1, 12), help="decks in the shoe "
                        "(default: [table] decks of --config, else 8)")
    parser.add_argument("--style", choices=("A", "B"), help="dealing style (default: [table] "
                        "style of --config, else A)")
    parser.add_argument("--no-more-bets", choices=("required", "not-required"),
                        help="whether rounds wait for the No more bets button, rule 8.2 "
                        "(default: [table] require_no_more_bets of --config, else required)")
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=number(float, 0.01, 1000), default=1.0, metavar="N",
                      help="N times the recorded pace (default 1: as recorded)")
    pace.add_argument("--fast", action="store_true",
                      help="as fast as the service takes the frames")
    parser.add_argument("--journal", metavar="PATH", help="the new journal (must not exist; "
                        "default: one in a new temporary directory, named at the end)")
    parser.add_argument("--expect", metavar="FILE", help="the events this playback must give: "
                        "a journal, or the JSON lines of `sabot deal --json` or `sabot replay "
                        "--json`; the first difference is named")
    parser.add_argument("--json", action="store_true", help="print the events as JSON lines "
                        "as they happen, as `sabot deal --json` does")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.cli._output import EventPrinter, finish
    from controller.errors import InputError
    from controller.journal.compare import expected_events, first_difference, journal_events
    from controller.service.playback_setup import Playback

    expected = expected_events(args.expect) if args.expect else None
    if args.journal and os.path.exists(args.journal):
        raise InputError(f"--journal {args.journal}: already exists; a playback writes a new "
                         "journal")
    printer = EventPrinter(True) if args.json else None
    started = time.monotonic()
    settings, profile, reading_window = _table(args)
    # Said: a window left at the default reads nothing in frames where the card is elsewhere
    # (a lab's trial: 0 cards, 27 unreadable, and no word of the window).
    print(window_used(reading_window, given=args.window is not None, config=args.config),
          file=sys.stderr)
    with journal_path(args.journal, "sabot-playback-", "playback.sqlite") as journal, \
            Playback(args.recording, settings, profile, reading_window, journal,
                     speed=None if args.fast else args.speed,
                     sinks=[printer] if printer else []) as playback:
        for note in playback.recording.notes:
            print(f"note: {note}", file=sys.stderr)
        if printer is not None:
            printer({"event": "new_shoe", "shoe": 1, "decks": settings["decks"],
                     "style": settings["style"]})
        playback.play(progress=not args.json)
        table = playback.table.service.table
        summary = playback.summary(time.monotonic() - started)
    status, end = finish(table)
    if printer is not None and end is not None:
        printer(end)
    print(summary + f"; journal {journal}", file=sys.stderr)
    if printer is None and end is not None:
        # Why the table stopped: without it, a halted playback said only "1 fault" (a trial,
        # stop 61).
        print(end["reason"], file=sys.stderr)
    if expected is None:
        return status
    difference = first_difference(expected, journal_events(journal))
    if difference is not None:
        print(f"sabot playback: differs from {args.expect}: {difference}", file=sys.stderr)
        return EXIT_DIFFERENT
    print(f"the same {len(expected)} events as {args.expect}", file=sys.stderr)
    return status


def _table(args) -> tuple[dict, str, tuple[int, int, int, int]]:
    """The table settings, the profile and the window: the flags, else --config, else the
    defaults of `sabot run`."""
    from controller.service.config import load_config, validate

    config = load_config(args.config) if args.config else validate({}, "<defaults>")
    table = config["table"]
    required = table["require_no_more_bets"] if args.no_more_bets is None \
        else args.no_more_bets == "required"
    settings = {"decks": args.decks or table["decks"], "style": args.style or table["style"],
                "require_no_more_bets": required}
    return (settings, args.profile or config["camera"]["profile"],
            args.window or tuple(config["camera"]["window"]))
