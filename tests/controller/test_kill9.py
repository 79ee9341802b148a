"""`sabot deal --journal` killed with SIGKILL at random moments loses and duplicates nothing."""

import contextlib
import random
import sqlite3
import subprocess
import sys
import time

from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.store import Journal
from controller.journal.verify import verify


def three_shoes() -> str:
    parts = [format_script(dealt_until_shoe_end(shuffled_shoe(8, seed=s), 8)) for s in (1, 2, 3)]
    return "NEWSHOE\n".join(parts)


def deal(script, journal, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "deal", str(script), "--journal", str(journal),
         "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


def events_of(path):
    """Each event with the observation that caused it, counted among the observations: the
    service also journals the link's card counter, as often as the restarts made it."""
    with Journal(str(path), create=False) as journal:
        records = list(journal.records())
    nth = {r.seq: n for n, r in enumerate(r for r in records if r.kind == "observation")}
    return [(nth[r.cause], r.body) for r in records if r.kind == "event"]


def records_in(path) -> int:
    """Records committed so far, read without disturbing the writer (read-only, no schema)."""
    if not path.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True,
                                                timeout=0.05)) as db:
            return db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0]
    except sqlite3.Error:  # the writer may be creating the file right now
        return 0


def wait_then_kill(process, journal, target: int) -> int | None:
    """SIGKILL `process` as soon as `journal` holds `target` records. Returns the record
    count at the kill, or None if the process finished first."""
    while process.poll() is None:
        if records_in(journal) >= target:
            process.kill()
            process.wait()
            return records_in(journal)
        time.sleep(0.001)
    assert process.returncode == 0, process.stderr.read().decode()
    return None


def test_kill_9_at_random_moments_then_restart_gives_the_uninterrupted_journal(tmp_path):
    script = tmp_path / "shoes.txt"
    script.write_text(three_shoes())
    reference = tmp_path / "reference.db"
    assert deal(script, reference).wait(timeout=120) == 0
    total = records_in(reference)

    victim = tmp_path / "victim.db"
    rng = random.Random(20261130)
    targets = sorted(rng.sample(range(2, total), 12))
    killed_at = [wait_then_kill(deal(script, victim), victim, target) for target in targets]
    assert deal(script, victim).wait(timeout=120) == 0

    assert len({n for n in killed_at if n}) >= 8, killed_at  # killed at many moments
    assert events_of(victim) == events_of(reference)
    verdict = verify(str(victim))
    assert verdict.ok, verdict.message
