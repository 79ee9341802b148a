"""Exact probabilities of one round from a full shoe, enumerated over point values.

No sampling: every sequence of point values the tableau can deal is weighted by its exact
probability of being drawn without replacement. Uses the same `tableau.next_hand` as the
table, so it checks the rules the table plays.
"""

from __future__ import annotations

from controller.game.cards import CARDS_PER_DECK
from controller.game.tableau import BANKER, PLAYER, next_hand, result


def round_probabilities(decks: int) -> dict[str, float]:
    """{"banker": p, "player": p, "tie": p} for the first round of a full `decks`-deck shoe."""
    counts = [16 * decks] + [4 * decks] * 9  # point value 0: tens and courts
    outcome = {BANKER: 0.0, PLAYER: 0.0, "tie": 0.0}

    def deal(player: list[int], banker: list[int], remaining: int, weight: float) -> None:
        hand = next_hand(player, banker)
        if hand is None:
            outcome[result(sum(player) % 10, sum(banker) % 10)] += weight
            return
        for value in range(10):
            available = counts[value]
            if not available:
                continue
            counts[value] -= 1
            share = weight * available / remaining
            if hand == PLAYER:
                deal(player + [value], banker, remaining - 1, share)
            else:
                deal(player, banker + [value], remaining - 1, share)
            counts[value] += 1

    deal([], [], decks * CARDS_PER_DECK, 1.0)
    return outcome
