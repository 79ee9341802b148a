"""Card codes, point values and burn values.

A card code is a rank (`A 2..9 10 J Q K`, `T` accepted for ten) followed by a suit
(`S H D C`), case-insensitive on input; the canonical form is upper case with `10` for ten.
"""

from __future__ import annotations

from contract import ALL_CARDS, RANKS, SUITS
from controller.errors import CardCodeError

ALL_CODES = ALL_CARDS
CARDS_PER_DECK = len(ALL_CODES)

_RANK_ALIASES = {"T": "10", "1": None}  # "1" alone is never a rank; "10" is matched whole


def parse_card(token: str) -> str:
    """The canonical code of `token`, or CardCodeError naming the token."""
    if token in _CANONICAL:
        return token  # what the engine is handed almost always: no need to normalise
    text = token.strip().upper()
    rank, suit = text[:-1], text[-1:]
    rank = _RANK_ALIASES.get(rank, rank)
    if rank not in RANKS or suit not in SUITS:
        raise CardCodeError(
            f"{token!r} is not a card code (rank A 2-9 10/T J Q K, then suit S H D C)"
        )
    return rank + suit


def is_card_code(token: str) -> bool:
    try:
        parse_card(token)
    except CardCodeError:
        return False
    return True


def rank_of(code: str) -> str:
    return code[:-1]


def point_value(code: str) -> int:
    """Baccarat point value: A=1, 2-9 face value, 10/J/Q/K = 0."""
    known = POINT_VALUES.get(code)
    return _rank_value(rank_of(code)) if known is None else known


def _rank_value(rank: str) -> int:
    if rank == "A":
        return 1
    if rank in ("10", "J", "Q", "K"):
        return 0
    return int(rank)


def burn_value(code: str) -> int:
    """Rule 7.5: for the burn, 10/J/Q/K count ten and an ace one."""
    return point_value(code) or MAX_BURNED


MAX_BURNED = 10  # the most cards a burn draws after its first (rule 7.5: a ten or a court)


def is_pair(hand: list[str] | tuple[str, ...]) -> bool:
    """The first two cards of a hand are of one rank (a pair bet wins)."""
    return len(hand) >= 2 and rank_of(hand[0]) == rank_of(hand[1])


def hand_total(codes: list[str] | tuple[str, ...]) -> int:
    return sum(map(point_value, codes)) % 10


# The engine looks these up for every card it is handed (a dict beats parsing the rank).
_CANONICAL = frozenset(ALL_CODES)
POINT_VALUES = {code: _rank_value(rank_of(code)) for code in ALL_CODES}  # canonical codes
