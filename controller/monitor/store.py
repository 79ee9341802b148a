"""What the monitor has received, kept in SQLite, so a restarted monitor shows every table's
shoes again. Events are keyed by (table, journal, seq): a message delivered twice is stored
once, and a table restarted with a new journal, numbering its events from 1 again, is kept
beside its old one. They are given back in the order they were applied. The last retained
state of each journal is kept too: the journal a table left keeps its signed head (for
`sabot verify --anchor` of it) and its decks.

Only the monitor's one room thread writes it (`MonitorService`); the web server reads
through the in-memory `Room` that thread keeps, never the file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator

from controller.errors import SabotError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (table_id, journal, seq)
);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, status TEXT, state TEXT
);
CREATE TABLE IF NOT EXISTS states (
    table_id TEXT NOT NULL, journal TEXT NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (table_id, journal)
);
"""


# The tables a history file may hold (`events` keyed by (table, seq) alone before stop 47).
OWN_TABLES = frozenset({"events", "tables", "states"})


class MonitorStoreError(SabotError, OSError):
    """The monitor's history file cannot be used."""


class MonitorStore:
    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            tables = {name for (name,) in self._db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not tables <= OWN_TABLES:
                # A table's journal given by mistake gained the monitor's tables (a
                # surveillance officer's trial, stop 53): evidence is not written to.
                self._db.close()
                raise MonitorStoreError(
                    f"{path}: an SQLite file of something else (tables "
                    f"{', '.join(sorted(tables))}), not a monitor's history"
                    + (": a table's journal" if "records" in tables else ""))
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # a copy of what the tables keep
            self._add_journals()
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise MonitorStoreError(f"{path}: cannot use it as the monitor's history "
                                    f"({error})") from None

    def _add_journals(self) -> None:
        """A history file of a monitor before stop 47 keyed events by (table, seq) alone:
        they are kept, under no journal (""), in the order of their numbers."""
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(events)")}
        if not columns or "journal" in columns:
            return
        self._db.executescript(f"""
            BEGIN;
            ALTER TABLE events RENAME TO events_before_journals;
            {_SCHEMA}
            INSERT INTO events (table_id, journal, seq, body)
                SELECT table_id, '', seq, body FROM events_before_journals
                ORDER BY table_id, seq;
            DROP TABLE events_before_journals;
            COMMIT;
        """)

    def add_event(self, table: str, journal: str | None, seq: int,
                  payload: bytes | str) -> bool:
        """Store one event message as received (checked) and applied; False when that
        (table, journal, seq) was already stored. `journal`: None for a table that names
        none."""
        text = payload.decode() if isinstance(payload, bytes) else payload
        cursor = self._db.execute("INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)",
                                  (table, journal or "", int(seq), text))
        return cursor.rowcount == 1

    def set_status(self, table: str, status: str) -> None:
        self._db.execute("INSERT INTO tables (table_id, status) VALUES (?, ?) "
                         "ON CONFLICT (table_id) DO UPDATE SET status = excluded.status",
                         (table, status))

    def set_state(self, table: str, state: dict) -> None:
        """The last retained state of its journal (`tables.state` is a history file's
        before stop 47: read, never written)."""
        self._db.execute("INSERT INTO states VALUES (?, ?, ?) ON CONFLICT (table_id, journal) "
                         "DO UPDATE SET state = excluded.state",
                         (table, state.get("journal") or "",
                          json.dumps(state, separators=(",", ":"))))
        self._db.execute("UPDATE tables SET state = NULL WHERE table_id = ? AND state IS NOT "
                         "NULL", (table,))

    def begin(self) -> None:
        self._db.execute("BEGIN")

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def statuses(self) -> Iterator[tuple[str, str]]:
        yield from self._db.execute(
            "SELECT table_id, status FROM tables WHERE status IS NOT NULL")

    def states(self) -> list[tuple[str, dict]]:
        """Each journal's last retained state, in the order of their times (an older
        history file's one state per table first)."""
        old = [(table, json.loads(state)) for table, state in self._db.execute(
            "SELECT table_id, state FROM tables WHERE state IS NOT NULL")]
        new = [(table, json.loads(state)) for table, state in self._db.execute(
            "SELECT table_id, state FROM states")]
        return old + sorted(new, key=lambda item: _time(item[1]))

    def events(self) -> Iterator[tuple[str, dict]]:
        for table, body in self._db.execute(
                "SELECT table_id, body FROM events ORDER BY rowid"):
            yield table, json.loads(body)

    def close(self) -> None:
        self._db.close()


def _time(state: dict) -> float:
    ts = state.get("ts")
    return float(ts) if isinstance(ts, int | float) else 0.0
