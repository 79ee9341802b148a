"""`sabot verify JOURNAL`: check the hash chain, the signed heads and an anchor, and replay
the journal through the rules."""

from __future__ import annotations

import sys

from controller.cli._evidence import (
    add_evidence_options,
    evidence_of,
    labelled,
    printable,
    whose,
)
from controller.journal.verify import latest_anchor, verify


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="prove a journal was not altered",
        description="Check every record's SHA-256 chain, then replay the observations through "
        "the rules and compare with the journaled events; with --key, check that every "
        "signed head is the table's and the newest record is signed (a re-chained journal "
        "fails); with --anchor, check the journal against a signed head kept elsewhere (a "
        "journal cut short fails). Report the first thing that does not match. Exit status "
        "0 intact, 1 altered, damaged or inconsistent, 2 bad input (no such journal, a file "
        "that is no journal, a key or anchor file that is not one, --print-anchor of a "
        "journal not signed).")
    parser.add_argument("journal", help="journal file (SQLite)")
    add_evidence_options(parser)
    parser.add_argument("--print-anchor", action="store_true",
                        help="print the newest signed head as one JSON line (after verifying)")
    parser.set_defaults(func=run)


def run(args) -> int:
    key, anchor = evidence_of(args)
    verdict = verify(args.journal, key=key, anchor=anchor)
    if args.print_anchor and verdict.ok:
        head = latest_anchor(args.journal)
        if head is None:  # intact, but asked for what it does not have
            print(f"sabot verify: {args.journal}: not signed, so there is no anchor to print "
                  f"(the journal itself: OK: {verdict.message})", file=sys.stderr)
            return 2
        print(labelled(head, args.journal).to_json())
        return 0
    print(printable(f"{args.journal}{whose(args.journal)}: "
                    f"{'OK' if verdict.ok else 'FAILED'}: {verdict.message}"))
    return 0 if verdict.ok else 1

