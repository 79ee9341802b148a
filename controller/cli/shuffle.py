"""`sabot shuffle`: print a freshly shuffled shoe in the `sabot deal` input language."""

from __future__ import annotations

import sys

from controller.cli._numbers import number
from controller.game.script import format_script
from controller.game.shoe import MIN_CUT_FROM_BACK, dealt_until_shoe_end, shuffled_shoe


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "shuffle",
        help="print a shuffled shoe (input for `sabot deal`)",
        description="Shuffle N decks, place the cutting card per rule 7.3 and print the cards "
        "a dealer draws from it, in order, up to the end of the shoe (9.7/9.8); --full prints "
        "the whole stack instead.",
    )
    parser.add_argument("--decks", type=number(int, 1, 12), default=8,
                        help="decks in the shoe, 1-12 (default 8)")
    parser.add_argument("--seed", type=int, default=None, help="seed, for a repeatable shoe")
    parser.add_argument("--cut", type=number(int, MIN_CUT_FROM_BACK), default=None, metavar="N",
                        help=f"cutting card N cards from the back (rule 7.3: at least "
                        f"{MIN_CUT_FROM_BACK}; default random 20-52)")
    parser.add_argument("--full", action="store_true",
                        help="print the whole stack, including the cards left in the shoe")
    parser.set_defaults(func=run)


def run(args) -> int:
    shoe = shuffled_shoe(args.decks, seed=args.seed, cut_from_back=args.cut)
    if not args.full:
        shoe = dealt_until_shoe_end(shoe, args.decks)
    sys.stdout.write(f"# {args.decks}-deck shoe, seed {args.seed}\n" + format_script(shoe))
    return 0
