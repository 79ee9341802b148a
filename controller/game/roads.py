"""Scoreboard roads from round results: the bead plate and the big road.

Pure functions over results ("banker", "player", "tie"); the displays and the report draw
them. Six rows, as on casino scoreboards.
"""

from __future__ import annotations

from dataclasses import dataclass

ROWS = 6


@dataclass
class RoadCell:
    result: str  # "banker" or "player"
    ties: int = 0  # ties that followed it


def bead_plate(results: list[str], rows: int = ROWS) -> dict[tuple[int, int], str]:
    """(column, row) -> result, filled down each column then across."""
    return {(i // rows, i % rows): result for i, result in enumerate(results)}


def big_road(results: list[str], rows: int = ROWS) -> dict[tuple[int, int], RoadCell]:
    """(column, row) -> cell. A new column at every change of winner; ties mark the last
    cell; a streak longer than the column turns right along its last row (dragon tail)."""
    grid: dict[tuple[int, int], RoadCell] = {}
    leading_ties = 0
    last: tuple[int, int] | None = None
    next_column = 0
    for result in results:
        if result == "tie":
            if last is None:
                leading_ties += 1
            else:
                grid[last].ties += 1
            continue
        if last is None or grid[last].result != result:
            while (next_column, 0) in grid:
                next_column += 1
            position = (next_column, 0)
            next_column += 1
        else:
            column, row = last
            below = (column, row + 1)
            position = below if row + 1 < rows and below not in grid else (column + 1, row)
        grid[position] = RoadCell(result, leading_ties)
        leading_ties = 0
        last = position
    return grid


def width(grid: dict[tuple[int, int], object]) -> int:
    return 1 + max((column for column, _ in grid), default=-1)
