"""`sabot verify JOURNAL`: check the hash chain and replay the journal through the rules."""

from __future__ import annotations

from controller.journal.verify import verify


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "verify", help="prove a journal was not altered",
        description="Check every record's SHA-256 chain, then replay the observations through "
        "the rules and compare with the journaled events; report the first record that does "
        "not match. Exit status 0 intact, 1 altered or inconsistent.")
    parser.add_argument("journal", help="journal file (SQLite)")
    parser.set_defaults(func=run)


def run(args) -> int:
    verdict = verify(args.journal)
    print(f"{args.journal}: {'OK' if verdict.ok else 'FAILED'}: {verdict.message}")
    return 0 if verdict.ok else 1
