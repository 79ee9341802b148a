"""`sabot shuffle`: print a freshly shuffled shoe in the `sabot deal` input language."""

from __future__ import annotations

import secrets
import sys

from controller.cli._numbers import number
from controller.errors import InputError
from controller.game.cards import CARDS_PER_DECK, MAX_BURNED
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
    parser.add_argument("--seed", type=int, default=None,
                        help="seed, for a repeatable shoe (default: a new one, printed in the "
                        "first line)")
    parser.add_argument("--cut", type=number(int, MIN_CUT_FROM_BACK), default=None, metavar="N",
                        help=f"cutting card N cards from the back (rule 7.3: at least "
                        f"{MIN_CUT_FROM_BACK}; default random 20-52)")
    parser.add_argument("--full", action="store_true",
                        help="print the whole stack, including the cards left in the shoe")
    parser.set_defaults(func=run)


def run(args) -> int:
    cards = CARDS_PER_DECK * args.decks
    # Further in than this, the cutting card is among the cards the burn may take (rule 7.4:
    # the first card and up to ten more), or before them all.
    deepest = cards - 1 - MAX_BURNED
    if args.cut is not None and args.cut > deepest:
        raise InputError(f"--cut {args.cut}: a {args.decks}-deck shoe has {cards} cards, so the "
                         f"cutting card goes at most {deepest} cards from the back (else the "
                         "burn, rule 7.4, may draw it)")
    # Without --seed one is drawn and printed, so that any shoe can be dealt again.
    seed = secrets.randbelow(2**32) if args.seed is None else args.seed
    shoe = shuffled_shoe(args.decks, seed=seed, cut_from_back=args.cut)
    if not args.full:
        shoe = dealt_until_shoe_end(shoe, args.decks)
    sys.stdout.write(f"# {args.decks}-deck shoe, seed {seed}\n" + format_script(shoe))
    return 0
