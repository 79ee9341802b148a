"""`sabot report JOURNAL --html OUT`: a shoe report for review."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from controller.cli._evidence import add_evidence_options, evidence_of, whose
from controller.cli._output import finish
from controller.errors import InputError
from controller.journal.replay import DealOrder, settings_of_meta
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.views.report import render_report

SQLITE_HEADER = b"SQLite format 3\x00"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="write an HTML shoe report from a journal",
        description="Write one self-contained HTML page: per shoe, the rounds, bead plate and "
        "big road, irregularities, faults and announcements; at the top, what `sabot "
        "verify` says of the journal: green only when checked against the table's key or "
        "an anchor, orange when intact but not proven so, red when it fails. Exit status "
        "0 written, 2 bad input (OUT is the journal, or a file that is not a report).")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.add_argument("--html", required=True, metavar="OUT",
                        help="HTML file to write (a new file, or a report to replace)")
    add_evidence_options(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    _check_output(args.html, args.journal)
    key, anchor = evidence_of(args)
    with Journal(args.journal, create=False) as journal:
        records = list(journal.records())
    verdict = verify(args.journal, key=key, anchor=anchor)
    if verdict.ok and (key is not None or anchor is not None):
        said = f"verified: {verdict.message}"
    elif verdict.ok:  # intact as far as anyone can tell without the table's key
        said = f"not proven: {verdict.message}"
    else:
        said = f"FAILS VERIFICATION: {verdict.message}"
        print(f"warning: {args.journal} fails verification ({verdict.message}): the report "
              "shows what it holds, which may not be what happened", file=sys.stderr)
    page = render_report(args.journal + whose(args.journal), records, said,
                         _where_it_ends(records, args.journal))
    try:
        with open(args.html, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as error:
        raise InputError(f"{args.html}: cannot write ({error.strerror})") from None
    print(f"wrote {args.html}")
    return 0


def _where_it_ends(records: list, path: str) -> str:
    """Where the journal ends in the middle of something, with the cards, as `sabot replay`
    says it ("" where it ends between rounds)."""
    order = None
    for record in records:
        if record.kind == "meta":
            order = DealOrder(settings_of_meta(record, path))
        elif record.kind == "observation" and order is not None:
            order.observed(record.body)
    _, end = finish(order.table, journal=True) if order is not None else (0, None)
    return "" if end is None else end["reason"][0].upper() + end["reason"][1:]


def _check_output(out: str, journal: str) -> None:
    """InputError unless `out` is a new file or a report: an auditor who gave the journal's
    own name (or another journal's) as OUT had the evidence overwritten, without a word."""
    path = Path(out)
    if not path.exists():
        return
    if path.is_dir():
        raise InputError(f"--html {out}: a directory; give a file name in it")
    if os.path.exists(journal) and os.path.samefile(out, journal):
        raise InputError(f"--html {out}: that is the journal itself; the report would "
                         "overwrite it")
    try:
        with path.open("rb") as handle:
            head = handle.read(64)
    except OSError as error:
        raise InputError(f"--html {out}: cannot read what is there ({error.strerror})") from None
    if head.startswith(SQLITE_HEADER):
        raise InputError(f"--html {out}: an SQLite file (a journal?); the report would "
                         "overwrite it: choose another name")
    if head and not head.lstrip().lower().startswith((b"<!doctype html", b"<html")):
        raise InputError(f"--html {out}: exists and is not an HTML report; the report would "
                         "overwrite it: choose another name")
