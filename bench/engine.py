"""Rounds per second through `Table.apply` on whole shuffled shoes.

Prints the figures for the README; not a timed test. Usage: python -m bench.engine [SHOES]
"""

from __future__ import annotations

import statistics
import sys
import time

from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.game.table import Table


def main(shoes: int = 300) -> None:
    stacks = [dealt_until_shoe_end(shuffled_shoe(8, seed=seed), 8) for seed in range(shoes)]
    per_shoe, rounds, cards = [], 0, 0
    for stack in stacks:
        table = Table(8, require_no_more_bets=False)
        started = time.perf_counter()
        for observation in stack:
            table.apply(observation)
        per_shoe.append(time.perf_counter() - started)
        rounds += table.state.rounds
        cards += table.state.cards_drawn
    total = sum(per_shoe)
    print(f"engine: {shoes} shuffled 8-deck shoes, {rounds} rounds, {cards} cards")
    print(f"  rounds per second through Table.apply: {rounds / total:,.0f}")
    print(f"  cards per second:                      {cards / total:,.0f}")
    print(f"  one whole 8-deck shoe: median {statistics.median(per_shoe) * 1e3:.2f} ms, "
          f"max {max(per_shoe) * 1e3:.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
