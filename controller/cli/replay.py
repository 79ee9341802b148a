"""`sabot replay JOURNAL`: print a journaled shoe as `sabot deal` does."""

from __future__ import annotations

from controller.cli._output import EventPrinter
from controller.journal.replay import table_settings
from controller.journal.store import Journal


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
        settings = table_settings(journal)
        if settings is not None:
            # The first shoe's header, as `sabot deal` prints it: its settings are in the
            # journal's meta record (later shoes have their own new_shoe events).
            printer({"event": "new_shoe", "shoe": 1, "decks": settings["decks"],
                     "style": settings["style"]})
        for record in journal.records():
            if record.kind == "event":
                printer(record.body)
    printer.close()
    return 0
