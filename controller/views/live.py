"""The table as a rich renderable: lamps, hands, last results, bead plate and big road.

Built from the table state and the rounds so far; the simulator and `sabot run --show`
refresh it with rich.live.
"""

from __future__ import annotations

from rich.console import Group
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from contract import LAMP_NAMES
from controller.game.cards import hand_total
from controller.game.roads import ROWS, big_road, width
from controller.game.roads import bead_plate as plate
from controller.game.state import ENDED, TableState

_LAMP_STYLE = {
    "player_draw": "bold white on blue", "player_stand": "bold white on blue",
    "banker_draw": "bold white on red", "banker_stand": "bold white on red",
    "player_win": "bold white on blue", "banker_win": "bold white on red",
    "tie": "bold black on green", "last_coup": "bold black on yellow",
    "no_bets": "bold black on yellow", "shuffle": "bold black on cyan",
    "fault": "bold white on magenta",
}
_LAMP_LABEL = {
    "player_draw": "P DRAW", "player_stand": "P STAND", "banker_draw": "B DRAW",
    "banker_stand": "B STAND", "player_win": "P WIN", "banker_win": "B WIN", "tie": "TIE",
    "last_coup": "LAST COUP", "no_bets": "NO BETS", "shuffle": "SHUFFLE", "fault": "FAULT",
}
_BEAD_STYLE = {"banker": ("B", "bold red"), "player": ("P", "bold blue"),
               "tie": ("T", "bold green")}
_SUIT = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


def card_text(code: str) -> Text:
    colour = "red" if code[-1] in "HD" else "white"
    return Text(f"{code[:-1]}{_SUIT[code[-1]]}", style=f"bold {colour}")


_HAND_LAMPS = ("player_draw", "player_stand", "banker_draw", "banker_stand", "player_win",
               "banker_win", "tie")


def lamp_strip(lit: frozenset[str]) -> Text:
    """Two rows that fit 80 columns: the hands' lamps, then the table's."""
    strip = Text()
    for row in (_HAND_LAMPS, tuple(n for n in LAMP_NAMES if n not in _HAND_LAMPS)):
        for name in row:
            style = _LAMP_STYLE[name] if name in lit else "dim"
            strip.append(f" {_LAMP_LABEL[name]} ", style=style)
            strip.append(" ")
        strip.append("\n")
    strip.rstrip()
    return strip


def hands(state: TableState, last_round: dict | None) -> RichTable:
    grid = RichTable.grid(padding=(0, 2))
    shown = last_round if (not state.player and last_round) else None
    for side in ("player", "banker"):
        cards = shown[side] if shown else getattr(state, side)
        row = Text(f"{side.upper():<7}")
        for code in cards:
            row.append(" ")
            row.append_text(card_text(code))
        total = shown[f"{side}_total"] if shown else None
        if total is None and cards:
            total = hand_total(cards)
        grid.add_row(row, Text("" if total is None else f"({total})", style="bold"))
    return grid


def _grid_text(cells: dict[tuple[int, int], tuple[str, str]], columns: int) -> Text:
    text = Text()
    for row in range(ROWS):
        for column in range(columns):
            mark, style = cells.get((column, row), ("\u00b7", "dim"))
            text.append(mark + " ", style=style)
        text.append("\n")
    return text


def roads(results: list[str], columns: int = 30) -> RichTable:
    beads = {pos: _BEAD_STYLE[r] for pos, r in plate(results).items()}
    road = {pos: (("\u25cf" if cell.ties == 0 else str(min(cell.ties, 9))),
                  _BEAD_STYLE[cell.result][1])
            for pos, cell in big_road(results).items()}
    bead_offset = max(0, width(beads) - columns // 2)
    road_offset = max(0, width(road) - columns)
    grid = RichTable.grid(padding=(0, 3))
    grid.add_row(Text("bead plate", style="dim"), Text("big road", style="dim"))
    grid.add_row(
        _grid_text({(c - bead_offset, r): v for (c, r), v in beads.items()}, columns // 2),
        _grid_text({(c - road_offset, r): v for (c, r), v in road.items()}, columns))
    return grid


SHOWN_EVENTS = ("round", "irregularity")


def shoe_rounds(kept: list[dict], events: list[dict]) -> list[dict]:
    """The rounds and irregularities of the shoe being dealt after `events`: a new shoe
    starts its own bead plate, big road, last result and list of irregularities, as a
    scoreboard is cleared for it."""
    kept = list(kept)
    for event in events:
        if event["event"] == "new_shoe":
            kept = []
        elif event["event"] in SHOWN_EVENTS:
            kept.append(event)
    return kept


def table_view(title: str, state: TableState, lit: frozenset[str], shown: list[dict],
               footer: str = "", width: int = 80) -> Panel:
    """The table at `width` columns (80 is enough): `shown` is what `shoe_rounds` kept."""
    rounds = [e for e in shown if e["event"] == "round"]
    irregularities = [e for e in shown if e["event"] == "irregularity"]
    last = rounds[-1] if rounds else None
    results = [r["result"] for r in rounds if not r["void"]]
    # Once the shoe has ended no round comes next, and no bets are taken.
    doing = ("ended after round" if state.phase == ENDED else "round")
    bets = ("" if state.phase == ENDED else
            f"  {state.phase}  {'no more bets' if state.bets_closed else 'bets open'}")
    status = (f"shoe {state.shoe}  {doing} {state.shown_round}  cards left "
              f"{state.cards_left}{bets}")
    parts = [Text(status, style="bold"), lamp_strip(lit), hands(state, last)]
    if state.burn_cards:
        burned = len(state.burn_cards) - 1 + state.burn_unread
        parts.append(Text(f"burn: {state.burn_cards[0]} shown, {burned} burned"))
    if last:
        winner = "TIE HAND" if last["result"] == "tie" else f"{last['result'].upper()} wins"
        parts.append(Text(f"last: round {last['round']} {winner}, player "
                          f"{last['player_total']} banker {last['banker_total']}"
                          + (" natural" if last["natural"] else "")
                          + (" VOID" if last["void"] else "")))
    for event in irregularities[-3:]:
        parts.append(Text(f"rule {event['rule']}, round {event['round']}: {event['message']}",
                          style="yellow"))
    if state.faults:
        parts.append(Text("FAULT: " + "; ".join(state.faults), style="bold magenta"))
    # Each road cell is 2 characters, the bead plate has half the big road's columns, and
    # the panel's borders and the gap between the roads take 7.
    parts.append(roads(results, columns=max(12, (width - 7) // 3)))
    if footer:
        parts.append(Text(footer, style="dim"))
    return Panel(Group(*parts), title=title, border_style="green")
