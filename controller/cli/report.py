"""`sabot report JOURNAL --html OUT`: a shoe report for review."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from controller.cli._evidence import add_evidence_options, evidence_of, printable, whose
from controller.cli._output import finish
from controller.errors import InputError, JournalError, SabotError
from controller.journal.replay import DealOrder, settings_of_meta
from controller.journal.store import Journal, being_written
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
    records, unread = _readable_records(args.journal)
    verdict = verify(args.journal, key=key, anchor=anchor)
    if verdict.ok and (key is not None or anchor is not None):
        said = f"verified: {verdict.message}"
    elif verdict.ok:  # intact as far as anyone can tell without the table's key
        said = f"not proven: {verdict.message}"
    else:
        said = f"FAILS VERIFICATION: {verdict.message}"
        print(printable(f"warning: {args.journal} fails verification ({verdict.message}): "
                        "the report shows what it holds, which may not be what happened"),
              file=sys.stderr)
    ends = unread or _where_it_ends(records, args.journal)
    page = render_report(args.journal + whose(args.journal), records, said, ends)
    try:
        with open(args.html, "w", encoding="utf-8") as handle:
            handle.write(page)
    except OSError as error:
        raise InputError(f"{args.html}: cannot write ({error.strerror})") from None
    print(f"wrote {args.html}", file=sys.stderr)  # OUT may be standard output
    return 0


def _readable_records(path: str) -> tuple[list, str]:
    """The records up to the first that cannot be read, and what stopped there ("": none
    did): a journal that fails verification is what the red report is for."""
    records = []
    with Journal(path, create=False) as journal:
        try:
            records.extend(journal.records())
        except JournalError as error:
            return records, f"The report stops there: {str(error).removeprefix(path + ': ')}"
    return records, ""


def _where_it_ends(records: list, path: str) -> str:
    """Where the journal ends in the middle of something, with the cards, as `sabot replay`
    says it ("" where it ends between rounds, or where its settings cannot be replayed:
    the verdict says why)."""
    order = None
    try:
        for record in records:
            if record.kind == "meta":
                order = DealOrder(settings_of_meta(record, path))
            elif record.kind == "observation" and order is not None:
                order.observed(record.body)
    except (SabotError, ValueError, TypeError, KeyError):
        return ""
    if order is None:
        return ""
    _, end = finish(order.table, journal=True, writing=being_written(path))
    return "" if end is None else end["reason"][0].upper() + end["reason"][1:]


# Files beside a journal that a report must never replace, whatever they hold.
JOURNAL_SIDES = ("-wal", "-shm", ".lock", ".key", ".published")
REPORT_TITLE = b"<title>Sabot shoe report</title>"


def _check_output(out: str, journal: str) -> None:
    """InputError unless `out` is a new file, an empty one, a Sabot report, or not a
    regular file (standard output): an auditor who gave the journal's own name as OUT had
    the evidence overwritten, without a word."""
    path = Path(out)
    if not path.exists():
        return
    if path.is_dir():
        raise InputError(f"--html {out}: a directory; give a file name in it")
    if not path.is_file():
        return  # /dev/stdout, a pipe: nothing there to lose (and reading one would wait)
    if os.path.exists(journal) and os.path.samefile(out, journal):
        raise InputError(f"--html {out}: that is the journal itself; the report would "
                         "overwrite it")
    if out.endswith(JOURNAL_SIDES):
        raise InputError(f"--html {out}: a journal's own file ({', '.join(JOURNAL_SIDES)}); "
                         "choose another name")
    try:
        with path.open("rb") as handle:
            head = handle.read(512)
    except OSError as error:
        raise InputError(f"--html {out}: cannot read what is there ({error.strerror})") from None
    if head.startswith(SQLITE_HEADER):
        raise InputError(f"--html {out}: an SQLite file (a journal?); the report would "
                         "overwrite it: choose another name")
    if head and REPORT_TITLE not in head:
        raise InputError(f"--html {out}: exists and is not a Sabot report; the report would "
                         "overwrite it: choose another name")
