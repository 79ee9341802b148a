"""`--key` and `--anchor`, what `sabot verify` and `sabot report` check a journal against
(docs/security.md)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from controller.errors import SabotError
from controller.journal.replay import table_id
from controller.journal.signing import Anchor, load_public_key
from controller.journal.store import Journal
from controller.surveillance.messages import TABLE_ID

PRIVATE_PEM = "-----BEGIN PRIVATE KEY"


def add_evidence_options(parser) -> None:
    parser.add_argument("--key", metavar="PUB",
                        help="the table's public key (the KEY.pub beside its journal key)")
    parser.add_argument("--anchor", metavar="FILE",
                        help="a signed head, as --print-anchor prints it (the last line counts)")


def evidence_of(args):
    """(the trusted public key or None, the anchor or None) the options name. A private
    key works as --key, but surveillance should never hold one: said, not refused."""
    key = load_public_key(args.key) if args.key else None
    if args.key and _is_private(args.key):
        print(f"note: --key {args.key} is the table's private key: checking needs only its "
              f"public key ({args.key}.pub); the private key belongs on the table alone",
              file=sys.stderr)
    anchor = Anchor.load(args.anchor) if args.anchor else None
    return key, anchor


def _is_private(path: str) -> bool:
    try:
        with Path(path).open("rb") as handle:
            return handle.read(len(PRIVATE_PEM)) == PRIVATE_PEM.encode()
    except OSError:
        return False


def names_of(path: str) -> tuple[str, str]:
    """(the table's id, the journal's name) of the journal at `path`, "" for either it does
    not have. The id is the journal's own word, read before it is proven: given only in the
    shape a config allows (a forged id held "..., journal J): OK: ..." and a terminal
    escape)."""
    with Journal(path, create=False) as journal:
        table, name = table_id(journal), journal.identity()
    return (table if isinstance(table, str) and TABLE_ID.match(table) else ""), name or ""


def labelled(anchor: Anchor, path: str) -> Anchor:
    """`anchor` of the journal at `path` with the journal's name and its table's id, so an
    auditor filing anchors of many tables can tell them apart."""
    table, name = names_of(path)
    return replace(anchor, journal=name, table=table)


def whose(path: str) -> str:
    """" (table T, journal J)": which table's journal it is, and its name in the monitor's
    API (`?journal=`); an auditor filing many had nothing to tell them by."""
    try:
        table, name = names_of(path)
    except SabotError:  # the verdict says what is wrong with it
        return ""
    parts = [f"table {table}" if table else "", f"journal {name}" if name else ""]
    return f" ({', '.join(part for part in parts if part)})" if any(parts) else ""


def printable(text: str) -> str:
    """`text` with every character a terminal would act on written as its escape: a
    verdict quotes what the journal holds, which is not to be trusted to draw the line."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
