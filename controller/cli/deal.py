"""`sabot deal`: replay a card order through the table, no hardware (DESIGN.md contract)."""

from __future__ import annotations

import sys

from controller.cli._numbers import number
from controller.cli._output import EventPrinter, finish
from controller.errors import InputError
from controller.game.script import parse_script, read_input, uses_no_more_bets
from controller.game.table import Table


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "deal",
        help="replay a card order through the rules",
        description="Replay the cards of a shoe, in the order they leave it, through the NZ "
        "baccarat rules. Tokens: card codes (AS 10H Td), ^CODE for a card found face up, CUT, "
        "NMB, DISCLOSED, ACK, NEWSHOE, COUNT (the cards left counted out, rule 11.1), JOKER, "
        "UNREADABLE; # starts a comment. Exit status: 0 "
        "done, 2 bad input, 3 the cards ran out in the middle of a round, 4 the table ended "
        "halted on a fault.",
    )
    parser.add_argument("file", nargs="?", default="-", help="card order file, or - for stdin")
    parser.add_argument("--decks", type=number(int, 1, 12), default=8,
                        help="decks in the shoe, 1-12 (default 8)")
    parser.add_argument("--style", choices=("A", "B"), default="A",
                        help="dealing style (rules 9.9, 9.10, 11.1); default A")
    parser.add_argument("--json", action="store_true", help="one JSON event per line")
    parser.add_argument("--journal", metavar="PATH",
                        help="journal every observation and event to this SQLite file; if it "
                        "already holds the start of the same input, resume after it")
    parser.add_argument("--sign", metavar="KEY",
                        help="with --journal: sign the journal's heads with the table key at "
                        "KEY (created if absent, owner-only, with KEY.pub beside it, as `sabot "
                        "run` does): a journal to check with `sabot verify --key KEY.pub`")
    parser.set_defaults(func=run)


def run(args) -> int:
    text, source = read_input(args.file)
    steps = parse_script(text, source)
    settings = {"decks": args.decks, "style": args.style,
                "require_no_more_bets": uses_no_more_bets(steps)}
    table = Table(**settings)  # validates the settings before any journal is touched
    printer = EventPrinter(args.json)
    if args.journal is None:
        if args.sign:
            raise InputError("--sign signs a journal: give --journal PATH too")
        printer({"event": "new_shoe", "shoe": 1, "decks": args.decks, "style": args.style})
        for step in steps:
            for event in table.apply(step.observation):
                printer(event)
        return _close(table, printer)
    # Only with a journal: `sabot deal` on its own starts in a few tens of milliseconds.
    from controller.cli._journal_path import check_journal_argument, signer_of  # noqa: PLC0415
    from controller.journal.replay import check_journal_continues  # noqa: PLC0415
    from controller.journal.store import Journal  # noqa: PLC0415
    from controller.service.table_service import TableService  # noqa: PLC0415

    check_journal_argument(args.journal)
    check_journal_continues(args.journal, [step.observation for step in steps])
    with Journal(args.journal, signer=signer_of(args.sign)) as journal:
        service = TableService(journal, settings)
        done = service.recover()
        if done:
            print(f"sabot deal: resuming after {len(done)} journaled observations",
                  file=sys.stderr)
        else:
            printer({"event": "new_shoe", "shoe": 1, "decks": args.decks, "style": args.style})
        for step in steps[len(done):]:
            for event in service.handle(step.observation):
                printer(event)
        return _close(service.table, printer)


def _close(table: Table, printer: EventPrinter) -> int:
    status, end = finish(table)
    if end is not None:
        printer(end)
    printer.close()
    return status
