"""`sabot report JOURNAL --html OUT`: a shoe report for review."""

from __future__ import annotations

import sys

from controller.errors import InputError
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.views.report import render_report


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="write an HTML shoe report from a journal",
        description="Write one self-contained HTML page: per shoe, the rounds, bead plate and "
        "big road, irregularities, faults and announcements.")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.add_argument("--html", required=True, metavar="OUT", help="HTML file to write")
    parser.set_defaults(func=run)


def run(args) -> int:
    with Journal(args.journal, create=False) as journal:
        records = list(journal.records())
    verdict = verify(args.journal)
    if verdict.ok:
        said = f"verified: {verdict.message}"
    else:
        said = f"FAILS VERIFICATION: {verdict.message}"
        print(f"warning: {args.journal} fails verification ({verdict.message}): the report "
              "shows what it holds, which may not be what happened", file=sys.stderr)
    page = render_report(args.journal, records, said)
    try:
        with open(args.html, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as error:
        raise InputError(f"{args.html}: cannot write ({error.strerror})") from None
    print(f"wrote {args.html}")
    return 0
