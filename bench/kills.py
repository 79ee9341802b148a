"""Killing Sabot's commands at chosen moments and reading what their journal kept: shared by
the power-loss tests (`tests/controller/test_kill9*.py`) and the fault campaign
(`bench/faults.py`)."""

from __future__ import annotations

import contextlib
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from controller.journal.store import Journal


def sabot(*args: str, file_limit: int | None = None) -> subprocess.Popen:
    """A Sabot command in a process of its own, its output discarded, its errors kept.
    `file_limit`: no file it writes may grow past this many bytes (a full disk: the write
    fails with EFBIG, as it would with ENOSPC)."""
    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.Popen([sys.executable, "-m", "controller.cli", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=limited if file_limit is not None else None)


def records_in(path: Path) -> int:
    """Records committed so far, read without disturbing the writer (read-only, no schema)."""
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                                timeout=0.05)) as db:
            return db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0]
    except sqlite3.Error:  # the writer may be creating the file right now
        return 0


def events_of(path: Path) -> list[tuple[int, dict]]:
    """Each event with the observation that caused it, counted among the observations: the
    service also journals the link's counters, as often as the restarts made it."""
    with Journal(str(path), create=False) as journal:
        records = list(journal.records())
    nth = {r.seq: n for n, r in enumerate(r for r in records if r.kind == "observation")}
    return [(nth[r.cause], r.body) for r in records if r.kind == "event"]


class FinishedFirst(RuntimeError):
    """The process ended with an error before it could be killed."""


def wait_then_kill(process: subprocess.Popen, journal: Path, target: int,
                   poll: float = 0.001) -> int | None:
    """SIGKILL `process` as soon as `journal` holds `target` records, looked at every `poll`
    seconds (each look opens the journal: half a millisecond of CPU, taken from the victim
    when the cores are busy; `deal` writes thousands of records a second, the service tens).
    Returns the record count at the kill, or None if the process finished (successfully)
    first."""
    while process.poll() is None:
        if records_in(journal) >= target:
            process.kill()
            process.wait()
            return records_in(journal)
        time.sleep(poll)
    if process.returncode != 0:
        raise FinishedFirst(process.stderr.read().decode())
    return None
