"""`sabot deal --journal` killed with SIGKILL at random moments loses and duplicates nothing."""

import random
import subprocess
import sys

from bench.kills import events_of, records_in, wait_then_kill
from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.verify import verify


def three_shoes() -> str:
    parts = [format_script(dealt_until_shoe_end(shuffled_shoe(8, seed=s), 8)) for s in (1, 2, 3)]
    return "NEWSHOE\n".join(parts)


def deal(script, journal, **kwargs):
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "deal", str(script), "--journal", str(journal),
         "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


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
