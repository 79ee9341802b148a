"""Following a journal as it is written, like `tail -f` (`sabot replay --follow`).

The follower opens the journal for reading only, in its own connection, so it never takes
the writer's lock and never slows the table thread: WAL mode lets it read committed records
while the service appends.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from controller.journal.store import Journal, Record


def follow(path: str, *, poll: float = 0.1, forever: bool = True) -> Iterator[Record]:
    """Every record, then (if `forever`) each new one as it is committed, looking again
    every `poll` seconds."""
    with Journal(path, create=False) as journal:
        last = 0
        while True:
            for record in journal.records(after=last):
                last = record.seq
                yield record
            if not forever:
                return
            time.sleep(poll)
