"""What the monitor has received, kept in SQLite, so a restarted monitor shows every table's
shoes again. Events are keyed by (table, seq): a message delivered twice is stored once.

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
    table_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS tables (
    table_id TEXT PRIMARY KEY, status TEXT, state TEXT
);
"""


class MonitorStoreError(SabotError, OSError):
    """The monitor's history file cannot be used."""


class MonitorStore:
    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # a copy of what the tables keep
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as error:
            raise MonitorStoreError(f"{path}: cannot use it as the monitor's history "
                                    f"({error})") from None

    def add_event(self, table: str, seq: int, payload: bytes | str) -> bool:
        """Store one event message as received (checked); False when that (table, seq) was
        already stored."""
        text = payload.decode() if isinstance(payload, bytes) else payload
        cursor = self._db.execute("INSERT OR IGNORE INTO events VALUES (?, ?, ?)",
                                  (table, int(seq), text))
        return cursor.rowcount == 1

    def set_status(self, table: str, status: str) -> None:
        self._db.execute("INSERT INTO tables (table_id, status) VALUES (?, ?) "
                         "ON CONFLICT (table_id) DO UPDATE SET status = excluded.status",
                         (table, status))

    def set_state(self, table: str, state: dict) -> None:
        self._db.execute("INSERT INTO tables (table_id, state) VALUES (?, ?) "
                         "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state",
                         (table, json.dumps(state, separators=(",", ":"))))

    def begin(self) -> None:
        self._db.execute("BEGIN")

    def commit(self) -> None:
        self._db.execute("COMMIT")

    def tables(self) -> Iterator[tuple[str, str | None, dict | None]]:
        for table, status, state in self._db.execute(
                "SELECT table_id, status, state FROM tables ORDER BY table_id"):
            yield table, status, json.loads(state) if state else None

    def events(self) -> Iterator[tuple[str, dict]]:
        for table, body in self._db.execute(
                "SELECT table_id, body FROM events ORDER BY table_id, seq"):
            yield table, json.loads(body)

    def close(self) -> None:
        self._db.close()
