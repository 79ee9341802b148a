"""Card codes as the vision package speaks them (no dependency on `controller`).

Canonical codes are rank + suit: `AS`, `10H`, `QD`. Input is case-insensitive and `T` is
accepted for ten.
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
RED_SUITS = frozenset({"H", "D"})
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)


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
