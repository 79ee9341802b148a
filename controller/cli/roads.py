"""`sabot roads RESULTS`: the five scoreboard roads of a sequence of results."""

from __future__ import annotations

import json
import os
import sys

from controller.game import roads
from controller.views.text import counted


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "roads",
        help="draw the five scoreboard roads of a sequence of results",
        description="The bead plate, the big road (ties counted on the last win, the dragon "
        "tail), Big Eye Boy, Small Road and Cockroach Pig of RESULTS, a string of B (banker), "
        "P (player) and T (tie), and what each derived road would mark next for a banker and "
        "for a player win. `-` reads the results from standard input: letters, or the JSON "
        "event lines of `sabot deal --json` or `sabot replay --json` (the rounds of the last "
        "shoe in them, void hands left out): `sabot replay JOURNAL --shoe 3 --json | sabot "
        "roads -`.",
    )
    parser.add_argument("results", metavar="RESULTS", help="e.g. BBPTPPPB, or - for stdin")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object: bead_plate and big_road as columns of 6 rows "
                        "(null where empty), leading_ties, the derived roads as their marks "
                        "in order, and ask")
    parser.set_defaults(func=run)


def run(args) -> int:
    if args.results != "-" and (os.path.exists(args.results)
                                or any(mark in args.results for mark in "./\\")):
        # Read as letters, a file's name gave "'n' at position 1 is not a result" (a trial,
        # stop 61).
        print(f"sabot roads: {args.results!r} looks like a file's name: RESULTS are the "
              f"letters themselves (BBPTP...); to read a file, `sabot roads - < "
              f"{args.results}`", file=sys.stderr)
        return 2
    text = sys.stdin.read() if args.results == "-" else args.results
    try:
        results = (_results_of_events(text) if text.lstrip().startswith("{")
                   else roads.parse_results(text))
    except ValueError as error:
        print(f"sabot roads: {error}", file=sys.stderr)
        return 2
    drawn = roads.roads_json(results)
    if args.json:
        print(json.dumps(drawn))
        return 0
    print("\n".join(draw(results)))
    return 0


def _results_of_events(text: str) -> list[str]:
    """The results of the last shoe's rounds in JSON event lines (`sabot deal --json`), void
    hands left out as on the table's scoreboard; ValueError names a line that is not one."""
    results: list[str] = []
    shoes = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            raise ValueError(f"line {number} is not a JSON event ({line.strip()[:40]!r}): "
                             "give letters (BPT) or the lines of `sabot deal --json`") from None
        if not isinstance(event, dict):
            raise ValueError(f"line {number} is not a JSON event object")
        if event.get("event") == "new_shoe":
            results, shoes = [], shoes + 1
        elif event.get("event") == "round" and not event.get("void"):
            result = event.get("result")
            if not (isinstance(result, str) and result in roads.LETTER):
                raise ValueError(f"line {number}: a round whose result is "
                                 f"{result!r}, not banker, player or tie")
            results.append(result)
    if shoes > 1:
        print(f"note: {shoes} shoes in the input: the roads of the last (`sabot replay "
              "--shoe N` gives one)", file=sys.stderr)
    return results


def draw(results: list[str]) -> list[str]:
    """The roads as text: B/P on the bead plate and big road (with the number of ties
    that followed a win), R/b for the derived roads' red and blue."""
    def board(grid: dict, mark) -> list[str]:
        columns = roads.width(grid)
        return ["  " + " ".join(mark(grid[(c, r)]).ljust(2) if (c, r) in grid else ". "
                                for c in range(columns)).rstrip() for r in range(roads.ROWS)]

    lines = ["bead plate:", *board(roads.bead_plate(results), lambda r: roads.LETTER[r])]
    leading = roads.leading_ties(results)
    lines.append("big road" + (f" ({counted(leading, 'tie', 'ties')} before the first win):"
                               if leading else ":"))
    lines += board(roads.big_road(results),
                   lambda c: roads.LETTER[c.result] + (str(min(c.ties, 9)) if c.ties else ""))
    colour = {roads.RED: "R", roads.BLUE: "b"}
    for name, marks in roads.derived_roads(results).items():
        lines.append(f"{name.replace('_', ' ')}:")
        cells = [roads.RoadCell(m) for m in marks]
        lines += board(roads.layout(cells), lambda c: colour[c.result]) if marks else ["  -"]
    ask = roads.ask(results)
    for winner in ("banker", "player"):
        marks = ", ".join(f"{name.replace('_', ' ')} {mark or '-'}"
                          for name, mark in ask[winner].items())
        lines.append(f"if {winner}: {marks}")
    return lines
