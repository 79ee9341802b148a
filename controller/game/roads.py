"""Scoreboard roads from round results: the bead plate, the big road and its three derived
roads (Big Eye Boy, Small Road, Cockroach Pig), and what each derived road would mark next.

Pure functions over results ("banker", "player", "tie"), the one definition every view
draws: the terminal, the report, the monitor and `sabot roads`. Six rows, as on casino
scoreboards.

The derived roads read the big road's *streak columns* (one column per run of one winner,
ties ignored, however the dragon tail bends it on the board). With k = 1 (Big Eye Boy),
2 (Small Road) or 3 (Cockroach Pig), every entry of the big road after the first ones marks:
- an entry at row r >= 2 of column c (rows counted from 1), with p the length of column
  c - k: blue if r = p + 1 (the column it is compared with ended just there), red otherwise;
- an entry that opens column c: red if columns c - 1 and c - 1 - k have the same length,
  blue otherwise.
A road starts with the first entry whose comparison column exists (row 2 of column k, or
the opening of column k + 1). Red means the shoe repeats its pattern, blue that it breaks it.
"""

from __future__ import annotations

from dataclasses import dataclass

ROWS = 6
RESULTS = ("banker", "player", "tie")
LETTER = {"banker": "B", "player": "P", "tie": "T"}
OF_LETTER = {letter: result for result, letter in LETTER.items()}
DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}
RED, BLUE = "red", "blue"


@dataclass
class RoadCell:
    result: str  # "banker" or "player" on the big road; "red" or "blue" on a derived road
    ties: int = 0  # ties that followed it
    pair: tuple[bool, bool] = (False, False)  # (player pair, banker pair) of its round


def parse_results(text: str) -> list[str]:
    """Results from letters ("BPPT..."), spaces ignored; ValueError names a wrong letter."""
    results = []
    for position, letter in enumerate(text, start=1):
        if letter.isspace():
            continue
        if letter.upper() not in OF_LETTER:
            raise ValueError(f"{letter!r} at position {position} is not a result "
                             "(B banker, P player, T tie)")
        results.append(OF_LETTER[letter.upper()])
    return results


def bead_plate(results: list[str], rows: int = ROWS) -> dict[tuple[int, int], str]:
    """(column, row) -> result, filled down each column then across."""
    return {(i // rows, i % rows): result for i, result in enumerate(results)}


def layout(marks: list[RoadCell], rows: int = ROWS) -> dict[tuple[int, int], RoadCell]:
    """(column, row) -> cell of marks laid out as on a board: a new column at every change
    of mark, a streak longer than the column (or running into an occupied cell) turning
    right along its row (the dragon tail)."""
    grid: dict[tuple[int, int], RoadCell] = {}
    last: tuple[int, int] | None = None
    next_column = 0
    for cell in marks:
        if last is None or grid[last].result != cell.result:
            while (next_column, 0) in grid:
                next_column += 1
            position = (next_column, 0)
            next_column += 1
        else:
            column, row = last
            below = (column, row + 1)
            position = below if row + 1 < rows and below not in grid else (column + 1, row)
        grid[position] = cell
        last = position
    return grid


def big_road_cells(results: list[str], pairs: list[tuple[bool, bool]] | None = None
                   ) -> tuple[int, list[RoadCell]]:
    """(leading ties, one cell per banker or player win with the ties that followed it).
    Ties before any win belong to no cell: they are counted apart."""
    cells: list[RoadCell] = []
    leading = 0
    for i, result in enumerate(results):
        if result == "tie":
            if cells:
                cells[-1].ties += 1
            else:
                leading += 1
            continue
        pair = pairs[i] if pairs is not None else (False, False)
        cells.append(RoadCell(result, 0, pair))
    return leading, cells


def big_road(results: list[str], rows: int = ROWS,
             pairs: list[tuple[bool, bool]] | None = None) -> dict[tuple[int, int], RoadCell]:
    """(column, row) -> cell of the big road (leading ties are not on it: `leading_ties`)."""
    return layout(big_road_cells(results, pairs)[1], rows)


def leading_ties(results: list[str]) -> int:
    return big_road_cells(results)[0]


def _wins(results: list[str]):
    """(column, row) of each win on the big road's streak columns (rows from 1), ties
    ignored: a new column at every change of winner."""
    column, row, previous = -1, 0, None
    for result in results:
        if result == "tie":
            continue
        if result == previous:
            row += 1
        else:
            column, row, previous = column + 1, 1, result
        yield column, row


def streak_columns(results: list[str]) -> list[int]:
    """The length of each run of one winner, ties ignored."""
    lengths: list[int] = []
    for column, row in _wins(results):
        if row == 1:
            lengths.append(1)
        else:
            lengths[column] = row
    return lengths


def derived_road(results: list[str], k: int) -> list[str]:
    """The marks ("red"/"blue") of the road comparing each column with the one k before."""
    marks: list[str] = []
    lengths: list[int] = []  # of the columns so far, the last one growing
    for column, row in _wins(results):
        if row == 1:
            lengths.append(1)
            if column - 1 - k >= 0:
                marks.append(RED if lengths[column - 1] == lengths[column - 1 - k] else BLUE)
        else:
            lengths[column] = row
            if column - k >= 0:
                marks.append(BLUE if row == lengths[column - k] + 1 else RED)
    return marks


def derived_roads(results: list[str]) -> dict[str, list[str]]:
    return {name: derived_road(results, k) for name, k in DERIVED.items()}


def ask(results: list[str]) -> dict[str, dict[str, str | None]]:
    """What each derived road would mark next if the next round were a banker or a player
    win (None: that road would mark nothing yet)."""
    now = {name: len(marks) for name, marks in derived_roads(results).items()}
    out: dict[str, dict[str, str | None]] = {}
    for winner in ("banker", "player"):
        after = derived_roads([*results, winner])
        out[winner] = {name: (marks[-1] if len(marks) > now[name] else None)
                       for name, marks in after.items()}
    return out


def width(grid: dict[tuple[int, int], object]) -> int:
    return 1 + max((column for column, _ in grid), default=-1)


def as_columns(grid: dict[tuple[int, int], object], rows: int = ROWS) -> list[list]:
    """The board column by column, each `rows` long (None where nothing is drawn)."""
    return [[grid.get((column, row)) for row in range(rows)] for column in range(width(grid))]


def roads_json(results: list[str], pairs: list[tuple[bool, bool]] | None = None,
               rows: int = ROWS) -> dict:
    """The five roads as `sabot roads --json` prints them."""
    def cell(c: RoadCell | None) -> dict | None:
        if c is None:
            return None
        out = {"winner": LETTER[c.result], "ties": c.ties}
        if pairs is not None:
            out |= {"player_pair": c.pair[0], "banker_pair": c.pair[1]}
        return out

    plate = bead_plate(results, rows)
    return {
        "bead_plate": [[LETTER[r] if r else None for r in column]
                       for column in as_columns(plate, rows)],
        "big_road": [[cell(c) for c in column]
                     for column in as_columns(big_road(results, rows, pairs), rows)],
        "leading_ties": leading_ties(results),
        **derived_roads(results),
        "ask": ask(results),
    }
