"""`--key` and `--anchor`, what `sabot verify` and `sabot report` check a journal against
(docs/security.md)."""

from __future__ import annotations

import sys
from pathlib import Path

from controller.journal.signing import Anchor, load_public_key

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
