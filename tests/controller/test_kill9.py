"""`sabot deal --journal` killed with SIGKILL at random moments loses and duplicates nothing."""

import random
import subprocess
import sys
import time

from controller.journal import Journal
from controller.script import format_script
from controller.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.verify import verify


def three_shoes() -> str:
    parts = [format_script(dealt_until_shoe_end(shuffled_shoe(8, seed=s), 8)) for s in (1, 2, 3)]
    return "NEWSHOE\n".join(parts)


def deal(script, journal, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "deal", str(script), "--journal", str(journal),
         "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


def events_of(path):
    with Journal(str(path), create=False) as journal:
        return [(r.cause, r.body) for r in journal.records() if r.kind == "event"]


def records_in(path) -> int:
    if not path.exists():
        return 0
    with Journal(str(path)) as journal:
        return journal.last_seq


def test_kill_9_at_random_moments_then_restart_gives_the_uninterrupted_journal(tmp_path):
    script = tmp_path / "shoes.txt"
    script.write_text(three_shoes())
    reference = tmp_path / "reference.db"
    started = time.monotonic()
    assert deal(script, reference).wait(timeout=120) == 0
    duration = time.monotonic() - started

    victim = tmp_path / "victim.db"
    rng = random.Random(20261130)
    killed_at = []
    for _ in range(80):
        process = deal(script, victim)
        try:
            status = process.wait(timeout=rng.uniform(0.05, 0.3 * duration))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            killed_at.append(records_in(victim))
            continue
        assert status == 0, process.stderr.read().decode()
        break
    else:
        raise AssertionError("the deal never completed")

    assert len({n for n in killed_at if n > 0}) >= 3, killed_at  # killed mid-journal, often
    assert events_of(victim) == events_of(reference)
    verdict = verify(str(victim))
    assert verdict.ok, verdict.message
