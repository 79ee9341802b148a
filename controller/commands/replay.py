"""`sabot replay JOURNAL`: print a journaled shoe as `sabot deal` does."""

from __future__ import annotations

from controller.commands._output import EventPrinter
from controller.journal import Journal


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "replay", help="print the shoes a journal holds",
        description="Print the events of a journal (as `sabot deal` prints them), in order.")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.add_argument("--json", action="store_true", help="one JSON event per line")
    parser.set_defaults(func=run)


def run(args) -> int:
    printer = EventPrinter(args.json)
    with Journal(args.journal, create=False) as journal:
        for record in journal.records():
            if record.kind == "event":
                printer(record.body)
    printer.close()
    return 0
