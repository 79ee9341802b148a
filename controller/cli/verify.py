"""`sabot verify JOURNAL`: check the hash chain, the signed heads and an anchor, and replay
the journal through the rules."""

from __future__ import annotations

from controller.journal.signing import Anchor, load_public_key
from controller.journal.verify import latest_anchor, verify


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="prove a journal was not altered",
        description="Check every record's SHA-256 chain, then replay the observations through "
        "the rules and compare with the journaled events; with --key, check that every "
        "signed head is the table's and the newest record is signed (a re-chained journal "
        "fails); with --anchor, check the journal against a signed head kept elsewhere (a "
        "journal cut short fails). Report the first thing that does not match. Exit status "
        "0 intact, 1 altered or inconsistent, 2 a key or anchor file that is not one.")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.add_argument("--key", metavar="PUB",
                        help="the table's public key (the KEY.pub beside its journal key)")
    parser.add_argument("--anchor", metavar="FILE",
                        help="a signed head, as --print-anchor prints it (the last line counts)")
    parser.add_argument("--print-anchor", action="store_true",
                        help="print the newest signed head as one JSON line (after verifying)")
    parser.set_defaults(func=run)


def run(args) -> int:
    key = load_public_key(args.key) if args.key else None
    anchor = Anchor.load(args.anchor) if args.anchor else None
    verdict = verify(args.journal, key=key, anchor=anchor)
    if args.print_anchor and verdict.ok:
        head = latest_anchor(args.journal)
        if head is None:
            print(f"{args.journal}: FAILED: not signed, so there is no anchor to print")
            return 1
        print(head.to_json())
        return 0
    print(f"{args.journal}: {'OK' if verdict.ok else 'FAILED'}: {verdict.message}")
    return 0 if verdict.ok else 1
