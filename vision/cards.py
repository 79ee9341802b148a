"""Card codes as the vision package reads them (the codes themselves are `contract`'s).

Canonical codes are rank + suit: `AS`, `10H`, `QD`. Input is case-insensitive and `T` is
accepted for ten. Besides a card, a window may show a surface: a back, the cut card, the
empty shoe (`SURFACE_KINDS`, named for people by `SURFACE_NAMES`). Nor is a face with
nothing printed (BLANK) or a card's body passing with its index out of view (PASSING): the
reader learns both, and reads them as `unknown`, looking like one of them. A card coming
up into the window with its index not yet wholly in view is `unknown` too, looking ENTERING.
"""

from __future__ import annotations

from types import MappingProxyType

from contract import ALL_CARDS, RANKS, SUITS

__all__ = ["ALL_CARDS", "BLANK", "COUNTERPART", "ENTERING", "FACE_SIDES", "PASSING", "RANKS",
           "RED_SUITS", "SUITS", "SURFACE_KINDS", "SURFACE_NAMES", "is_red", "split_code"]

RED_SUITS = frozenset({"H", "D"})
SURFACE_KINDS = ("back", "cut", "empty")
SURFACE_NAMES = {"back": "back", "cut": "cut card", "empty": "empty window"}
SURFACE_PLURALS = {"back": "backs", "cut": "cut cards", "empty": "empty windows"}
BLANK, PASSING = "blank", "passing"
# A face's side without an index in view: what a face-down card shows the under view while
# its index is out of the window. Neither is a reading; told apart, they are told alike.
FACE_SIDES = (PASSING, BLANK)
# A card's top edge low in the window, its index zone not yet wholly in view: a card coming
# in, or one going back into the shoe after its index was read (`tracker`).
ENTERING = "entering"
# The one pair of surfaces a shoe without a card sensor confuses silently (the last coup
# called with no cut card drawn, or missed): each of the cut card and the empty window to
# the other, which it is told from.
COUNTERPART = MappingProxyType({"cut": "empty", "empty": "cut"})


def split_code(token: str) -> tuple[str, str] | None:
    """(rank, suit) of a card code, or None when `token` is not one."""
    text = token.strip().upper()
    if len(text) < 2:
        return None
    rank, suit = text[:-1], text[-1]
    if rank == "T":
        rank = "10"
    if rank not in RANKS or suit not in SUITS:
        return None
    return rank, suit


def is_red(suit: str) -> bool:
    return suit in RED_SUITS
