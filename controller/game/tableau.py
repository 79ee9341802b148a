"""The tableau: who draws, from point values alone.

Pure functions over point values (0-9), shared by the table state machine and the exact
enumeration of round probabilities, so both are checked by the same tests.
"""

from __future__ import annotations

PLAYER, BANKER = "player", "banker"


def is_natural(total: int) -> bool:
    """Rule 9.2: eight or nine on the first two cards is a natural."""
    return total >= 8


def player_draws(player_total: int) -> bool:
    """Table 1: the player draws on 0-5 and stands on 6-7 (8-9 are naturals)."""
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None) -> bool:
    """Table 2 when the player drew (its third card's point value), rule 9.5 when it stood."""
    if player_third is None:  # rule 9.5: player stood on six or seven
        return banker_total <= 5
    if banker_total <= 2:
        return True
    if banker_total == 3:
        return player_third != 8
    if banker_total == 4:
        return 2 <= player_third <= 7
    if banker_total == 5:
        return 4 <= player_third <= 7
    if banker_total == 6:
        return player_third in (6, 7)
    return False  # 7 stands; 8-9 never reach here (naturals)


def banker_fate(banker_total: int) -> bool | None:
    """Whether the banker draws (True) or stands (False) whatever third card the player is
    about to get, or None when that card decides it (rule 9.4's table 2: 0-2 always draw,
    7 always stands). The lamps show a decided banker before the player's card is out."""
    return _BANKER_FATES[banker_total]


def _fate(banker_total: int) -> bool | None:
    fates = {banker_draws(banker_total, third) for third in range(10)}
    return fates.pop() if len(fates) == 1 else None


_BANKER_FATES = tuple(_fate(total) for total in range(10))


INITIAL_CARDS = 4  # rule 8.3


def initial_hand(dealt: int) -> str:
    """Rule 8.3: of the initial four cards the first and third are the player's."""
    return PLAYER if dealt % 2 == 0 else BANKER


def next_hand(player: list[int], banker: list[int]) -> str | None:
    """Which hand the next card goes to, or None when the round is complete.

    `player` and `banker` are the point values dealt so far. Deal order (rule 8.3): player,
    banker, player, banker; then at most one extra card each (rule 9.6), player first (9.9).
    """
    dealt = len(player) + len(banker)
    if dealt < INITIAL_CARDS:
        return initial_hand(dealt)
    player_total = sum(player[:2]) % 10
    banker_total = sum(banker[:2]) % 10
    if is_natural(player_total) or is_natural(banker_total):
        return None  # rule 9.2
    if len(player) == 2 and len(banker) == 2 and player_draws(player_total):
        return PLAYER
    if len(banker) == 2:
        player_third = player[2] if len(player) == 3 else None
        if banker_draws(banker_total, player_third):
            return BANKER
    return None


def result(player_total: int, banker_total: int) -> str:
    """Rule 10.1: the higher total wins; equal totals are a "Tie Hand"."""
    if player_total > banker_total:
        return PLAYER
    if banker_total > player_total:
        return BANKER
    return "tie"
