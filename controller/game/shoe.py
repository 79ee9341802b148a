"""Freshly shuffled shoes, as a card order with the cutting card in place (rule 7.3)."""

from __future__ import annotations

import random

from controller.game import observations as obs
from controller.game.cards import ALL_CODES, CARDS_PER_DECK

MIN_CUT_FROM_BACK = 20  # rule 7.3: the cutting card goes at least twenty cards from the back


def shuffled_shoe(decks: int = 8, seed: int | None = None,
                  cut_from_back: int | None = None) -> list[obs.Observation]:
    """`decks` decks shuffled, with the cutting card `cut_from_back` cards from the back.

    Without `cut_from_back` the cutting card lands at a random depth between twenty cards
    and one deck from the back, as casinos commonly place it.
    """
    rng = random.Random(seed)
    cards: list[obs.Observation] = [obs.Card(code) for code in ALL_CODES * decks]
    rng.shuffle(cards)
    if cut_from_back is None:
        deepest = max(MIN_CUT_FROM_BACK, min(CARDS_PER_DECK, len(cards) // 3))
        cut_from_back = rng.randint(MIN_CUT_FROM_BACK, deepest)
    cut_from_back = max(0, min(cut_from_back, len(cards)))
    cards.insert(len(cards) - cut_from_back, obs.Cut())
    return cards


def dealt_until_shoe_end(stack: list[obs.Observation], decks: int = 8) -> list[obs.Observation]:
    """The prefix of `stack` a dealer draws: everything up to the end of the shoe.

    Runs the stack through a table (no "No more bets" calls) and stops at `shoe_end`; the
    cards behind it stay in the shoe (rule 9.7/9.8: no more cards after the last coup).
    """
    from controller.game.table import Table  # the table imports nothing from here; keep it so

    table = Table(decks, require_no_more_bets=False)
    for index, observation in enumerate(stack):
        if any(e["event"] == "shoe_end" for e in table.apply(observation)):
            return stack[: index + 1]
    return list(stack)
