"""Following a journal as it is written, like `tail -f`: for `sabot replay --follow` and the
surveillance publisher (the journal is its outbox).

The follower opens the journal for reading only, in its own connection, so it never takes
the writer's lock and never slows the table thread: WAL mode lets it read committed records
while the service appends. Between reads it waits on `wake` (set by the table thread after
a commit) or for `poll` seconds, whichever comes first.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from controller.journal.store import Journal, Record


def follow(path: str, *, after: int = 0, stop: threading.Event | None = None,
           wake: threading.Event | None = None, poll: float = 0.1,
           forever: bool = True) -> Iterator[Record]:
    """Every record after `after`, then (if `forever`) each new one as it is committed,
    until `stop`."""
    stop = stop or threading.Event()
    wake = wake or threading.Event()
    with Journal(path, create=False) as journal:
        last = after
        while not stop.is_set():
            wake.clear()
            for record in journal.records(after=last):
                last = record.seq
                yield record
                if stop.is_set():
                    return
            if not forever:
                return
            wake.wait(poll)
