"""The surveillance room as the monitor knows it: every table (`TableView`), from the
messages received. Pure (no I/O, no clock, no threads): the monitor's room thread owns one
`Room` and feeds it; the web pages and the API read the dictionaries it gives.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from controller.monitor.table_view import TableView


class Room:
    def __init__(self, keys: dict[str, str] | None = None) -> None:
        """`keys`: table id -> its trusted public key (hex), for the evidence check."""
        self.tables: dict[str, TableView] = {}
        self.keys = dict(keys or {})

    def table(self, table: str) -> TableView:
        view = self.tables.get(table)
        if view is None:
            view = self.tables[table] = TableView(table, trusted_key=self.keys.get(table))
        return view

    def add_event(self, table: str, message: dict) -> bool:
        """False for a message applied already (a repeat, or an older number of its
        journal)."""
        return self.table(table).add_event(message)

    def set_state(self, table: str, state: dict) -> None:
        self.table(table).set_state(state)

    def set_status(self, table: str, status: str) -> None:
        self.table(table).status = status

    def summary(self, now: float | None = None) -> list[dict]:
        return [self.tables[t].summary(now) for t in sorted(self.tables)]


CSV_COLUMNS = ("round", "player", "banker", "player_total", "banker_total", "natural",
               "player_pair", "banker_pair", "result", "void", "ts")
# After them, for the reader of a spreadsheet: `ts` (seconds since 1970) as a UTC time.
TIME_COLUMN = "time"


def shoe_csv(detail: dict) -> str:
    """A shoe's rounds as CSV (cards space-separated within a cell)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow((*CSV_COLUMNS, TIME_COLUMN))
    for r in detail["round_list"]:
        writer.writerow([*(_cell(r.get(c)) for c in CSV_COLUMNS), _utc(r.get("ts"))])
    return out.getvalue()


def _utc(ts) -> str:
    if not isinstance(ts, int | float) or isinstance(ts, bool):
        return ""
    try:
        moment = datetime.fromtimestamp(ts, UTC)
    except (OverflowError, OSError, ValueError):  # a table's clock far off: no time
        return ""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _cell(value) -> str:
    """A cell a spreadsheet will not run: the messages came over the network."""
    text = " ".join(map(str, value)) if isinstance(value, list) else "" if value is None \
        else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
