"""Rounds per second through `Table.apply` on whole shuffled shoes, against the plain tableau.

`Table.apply` does everything a live table needs (the burn, the cut card, every event,
irregularities, the ledger, the lamps after each card); the plain tableau only plays the
same cards into rounds with `tableau.next_hand` and `result`, the least any engine does.
Prints the figures for the README; not a timed test. Usage: python -m bench.engine [SHOES]
"""

from __future__ import annotations

import statistics
import sys
import time

from controller.game import observations as obs
from controller.game.cards import POINT_VALUES
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.table import Table
from controller.game.tableau import next_hand, result


def plain_rounds(points: list[int]) -> int:
    """The rounds the plain tableau plays from `points` (no burn, no cut card, no events)."""
    rounds, player, banker = 0, [], []
    for value in points:
        (player if next_hand(player, banker) == "player" else banker).append(value)
        if len(player) + len(banker) >= 4 and next_hand(player, banker) is None:
            result(sum(player) % 10, sum(banker) % 10)
            rounds += 1
            player, banker = [], []
    return rounds


def main(shoes: int = 300) -> None:
    stacks = [dealt_until_shoe_end(shuffled_shoe(8, seed=seed), 8) for seed in range(shoes)]
    per_shoe, rates, rounds, cards = [], [], 0, 0
    for stack in stacks:
        table = Table(8, require_no_more_bets=False)
        started = time.perf_counter()
        for observation in stack:
            table.apply(observation)
        per_shoe.append(time.perf_counter() - started)
        rates.append(table.state.rounds / per_shoe[-1])
        rounds += table.state.rounds
        cards += table.state.cards_drawn
    total = sum(per_shoe)
    plain, plain_total = 0, 0.0
    for stack in stacks:
        points = [POINT_VALUES[o.card] for o in stack if isinstance(o, obs.Card)]
        started = time.perf_counter()
        plain += plain_rounds(points)
        plain_total += time.perf_counter() - started
    print(f"engine: {shoes} shuffled 8-deck shoes, {rounds} rounds, {cards} cards")
    # The median shoe as well as the mean: on a shared machine a few shoes catch a pause.
    print(f"  rounds per second through Table.apply: {rounds / total:,.0f} "
          f"(median shoe: {statistics.median(rates):,.0f})")
    print(f"  rounds per second, plain tableau:      {plain / plain_total:,.0f}")
    print(f"  cards per second:                      {cards / total:,.0f}")
    print(f"  one whole 8-deck shoe: median {statistics.median(per_shoe) * 1e3:.2f} ms, "
          f"max {max(per_shoe) * 1e3:.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
