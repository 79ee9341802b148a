"""`sabot deal`: replay a card order through the table, no hardware (DESIGN.md contract)."""

from __future__ import annotations

import json
import sys

from controller.errors import InputError
from controller.render import describe, summary
from controller.script import parse_script, uses_no_more_bets
from controller.state import BURN, ROUND
from controller.table import Table

EXIT_OK, EXIT_OUT_OF_CARDS, EXIT_HALTED = 0, 3, 4


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "deal",
        help="replay a card order through the rules",
        description="Replay the cards of a shoe, in the order they leave it, through the NZ "
        "baccarat rules. Tokens: card codes (AS 10H Td), ^CODE for a card found face up, CUT, "
        "NMB, DISCLOSED, ACK, NEWSHOE, JOKER, UNREADABLE; # starts a comment. Exit status: 0 "
        "done, 2 bad input, 3 the cards ran out in the middle of a round, 4 the table ended "
        "halted on a fault.",
    )
    parser.add_argument("file", nargs="?", default="-", help="card order file, or - for stdin")
    parser.add_argument("--decks", type=int, default=8, help="decks in the shoe (default 8)")
    parser.add_argument("--style", choices=("A", "B"), default="A",
                        help="dealing style (rules 9.9, 9.10, 11.1); default A")
    parser.add_argument("--json", action="store_true", help="one JSON event per line")
    parser.set_defaults(func=run)


def read_input(path: str) -> tuple[str, str]:
    """The text of `path` (or stdin for '-') and the name to use in messages."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(), path
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror}") from None


def run(args) -> int:
    text, source = read_input(args.file)
    steps = parse_script(text, source)
    table = Table(args.decks, args.style, require_no_more_bets=uses_no_more_bets(steps))
    write = _json_writer() if args.json else _text_writer(table)
    write({"event": "new_shoe", "shoe": 1, "decks": args.decks, "style": args.style})
    rounds = []
    for step in steps:
        for event in table.apply(step.observation):
            if event["event"] == "round":
                rounds.append(event)
            write(event)
    status = _final_status(table, write)
    if not args.json:
        print(summary(rounds))
    return status


def _final_status(table: Table, write) -> int:
    """Say how the input ended if it left the table in the middle of something."""
    state = table.state
    if state.halted:
        write({"event": "input_end", "round": state.round_number, "phase": state.phase,
               "reason": "the input ended with the table halted: " + "; ".join(state.faults)})
        return EXIT_HALTED
    if state.phase in (ROUND, BURN) and (state.player or state.burn_cards):
        where = f"round {state.round_number}" if state.phase == ROUND else "the burn"
        write({"event": "input_end", "round": state.round_number, "phase": state.phase,
               "reason": f"the cards ran out in the middle of {where}"})
        return EXIT_OUT_OF_CARDS
    return EXIT_OK


def _json_writer():
    def write(event: dict) -> None:
        sys.stdout.write(json.dumps(event, separators=(", ", ": ")) + "\n")
    return write


def _text_writer(table: Table):
    def write(event: dict) -> None:
        line = describe(event)
        if line is not None:
            print(line)
    return write
