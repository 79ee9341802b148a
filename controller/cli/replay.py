"""`sabot replay JOURNAL`: print a journaled shoe as `sabot deal` does (with `--json`, the
same lines: `journal.replay.DealOrder`); `--follow` goes on
printing events as the service journals them, like `tail -f`; `--shoe N` prints one shoe
(the table still replays every record before it) and `--times` when each was journaled."""

from __future__ import annotations

import sys
from datetime import UTC, datetime

from controller.cli._numbers import number
from controller.cli._output import EXIT_OK, EXIT_OUT_OF_CARDS, EventPrinter, finish
from controller.journal.follow import follow
from controller.journal.replay import DealOrder, settings_of_meta
from controller.journal.store import being_written
from controller.journal.verify import verify


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "replay", help="print the shoes a journal holds",
        description="Print the events of a journal (as `sabot deal` prints them), in order, "
        "and where it ends in the middle of a round, the burn or a halt, that too, with the "
        "cards (an `input_end` event with --json). Exit status as `sabot deal`'s: 0, 3 the "
        "journal ends in the middle of a round or the burn, 4 with the table halted (0 for "
        "a journal the service is writing still: it ends there for now); 2 no such journal "
        "or not one; 1 a journal that cannot be read, or that fails verification (what it "
        "holds is printed all the same, with a warning).")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.add_argument("--json", action="store_true", help="one JSON event per line")
    parser.add_argument("--follow", "-f", action="store_true",
                        help="keep printing events as they are journaled (Ctrl-C ends)")
    parser.add_argument("--shoe", type=number(int, 1), metavar="N",
                        help="only shoe N of the journal (1 is its first)")
    parser.add_argument("--round", type=number(int, 1), metavar="N",
                        help="only round N (of each shoe shown; with --shoe, of that one): "
                        "its cards, result, faults and what came between them")
    parser.add_argument("--times", action="store_true",
                        help="each event with the time it was journaled (UTC; a \"time\" key "
                        "with --json, which is then no longer `sabot deal --json`'s line)")
    parser.set_defaults(func=run)


def run(args) -> int:
    failed = False
    if not args.follow:  # a journal still being written is verified when it is done
        verdict = verify(args.journal)
        if not verdict.ok:
            failed = True
            print(f"warning: {args.journal} fails verification ({verdict.message}): what "
                  "follows is what it holds, which may not be what happened", file=sys.stderr)
    printer = EventPrinter(args.json, flush=args.follow, sums=args.round is None)
    records = follow(args.journal, poll=0.2, forever=args.follow)
    order: DealOrder | None = None
    shoe, at = 0, None  # the shoe the records are of (the meta record starts the first)
    ran_dry = False  # the shoe asked for ran out of cards in a round (`deal` exits 3)

    in_round = False  # within the round asked for (`--round`)
    round_found = False
    header: dict | None = None  # with --round, the shoe's header, until its round shows

    def show(event: dict) -> None:
        nonlocal ran_dry, in_round, round_found, header
        if args.shoe is not None and shoe != args.shoe:
            return
        event = _stamped(event, at) if args.times else event
        if args.round is not None:
            if event.get("event") == "new_shoe":
                # Printed with the round's first event: a shoe without that round (or a
                # journal without it at all) prints nothing of it.
                header = event
                return
            # A round's events name it; those between them (acknowledgements, notices,
            # lamps) go with the round they come in.
            if event.get("event") != "input_end" and "round" in event:
                in_round = event["round"] == args.round
            if not in_round:
                return
            round_found = True
            if header is not None:
                printer(header)
                header = None
        ran_dry |= event.get("event") == "shoe_exhausted"
        printer(event)

    try:
        for record in records:
            at = record.ts_us
            if record.kind == "meta":
                # The first shoe's header, as `sabot deal` prints it: its settings are in the
                # journal's meta record (later shoes have their own new_shoe events).
                settings = settings_of_meta(record, args.journal)
                order, shoe = DealOrder(settings), 1
                show({"event": "new_shoe", "shoe": 1, "decks": settings["decks"],
                      "style": settings["style"]})
            elif record.kind == "observation" and order is not None:
                order.observed(record.body)
            elif record.kind == "event":
                if record.body.get("event") == "new_shoe":
                    shoe, in_round = record.body.get("shoe", shoe + 1), False
                    if args.shoe is not None and shoe > args.shoe:
                        break  # the shoe asked for has ended (`--follow` would wait on)
                show(record.body if order is None else order.event(record.body))
        status, end = (finish(order.table, journal=True, writing=being_written(args.journal))
                       if order is not None else (0, None))
        if args.shoe is not None and shoe != args.shoe:
            # The shoe asked for ended before the journal did (its own end was printed), as
            # `deal` of it would: 3 where it ran out of cards in a round.
            status, end = (EXIT_OUT_OF_CARDS if ran_dry else EXIT_OK), None
        if args.round is not None and not in_round:
            # The round asked for ended before the journal did: what came after it (a
            # round cut short, a halt) is none of its business (a second review, stop 49).
            status, end = (EXIT_OUT_OF_CARDS if ran_dry else EXIT_OK), None
        if end is not None:
            show(end)
    finally:
        printer.close()
    if args.round is not None and not round_found and shoe >= (args.shoe or 1):
        which = f"shoe {args.shoe}" if args.shoe is not None else "any shoe"
        print(f"sabot replay: {args.journal}: no round {args.round} in {which} of the "
              "journal", file=sys.stderr)
        return 2
    if args.shoe is not None and args.shoe > shoe:
        print(f"sabot replay: {args.journal}: no shoe {args.shoe}: the journal holds "
              f"{'no shoe' if shoe == 0 else f'shoes 1-{shoe}' if shoe > 1 else 'shoe 1'}",
              file=sys.stderr)
        return 2
    # A script around replay is told by the status too: the warning alone went unseen (a
    # lab's trial: an altered journal replayed with status 0).
    return 1 if failed else status


def _stamped(event: dict, at_us: int | None) -> dict:
    """`event` with the time its record was journaled, as a `time` key (in text, the line's
    start: `EventPrinter`)."""
    if at_us is None:
        return event
    moment = datetime.fromtimestamp(at_us / 1e6, UTC)
    return {**event, "time": f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"}
