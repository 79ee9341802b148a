"""The service path killed with SIGKILL at random moments and restarted: `sabot simulate`
(frames -> Tracker, pty link, queue -> TableService -> journal) resumes after what it had
journaled, and ends with exactly the journal of an uninterrupted run."""

import random
import subprocess
import sys

from controller.script import format_script
from controller.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.verify import verify
from tests.controller.test_kill9 import events_of, records_in, wait_then_kill


def simulate(script, journal):
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "simulate", "--json", "--shoe", str(script),
         "--decks", "1", "--seed", "5", "--journal", str(journal)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def test_service_killed_at_random_moments_resumes_without_loss_or_duplicates(tmp_path):
    script = tmp_path / "shoe.txt"
    script.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=4), 1)))
    reference = tmp_path / "reference.db"
    assert simulate(script, reference).wait(timeout=120) == 0
    total = records_in(reference)

    victim = tmp_path / "victim.db"
    targets = sorted(random.Random(4).sample(range(3, total), 6))
    killed_at = [wait_then_kill(simulate(script, victim), victim, target) for target in targets]
    final = simulate(script, victim)
    assert final.wait(timeout=120) == 0, final.stderr.read().decode()

    assert len({n for n in killed_at if n}) >= 4, killed_at
    assert events_of(victim) == events_of(reference)
    verdict = verify(str(victim))
    assert verdict.ok, verdict.message
