"""The service path killed with SIGKILL at random moments and restarted: `sabot simulate`
(frames -> Tracker, pty link, queue -> TableService -> journal) resumes after what it had
journaled, and ends with exactly the journal of an uninterrupted run."""

import random
import signal
import subprocess
import sys
import time

import pytest

from bench.kills import events_of, records_in, wait_then_kill
from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.verify import verify
from tests.shared_profiles import suite_reader
from vision.decks import synthetic_deck


def simulate(script, journal):
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "simulate", "--json", "--shoe", str(script),
         "--decks", "1", "--seed", "5", "--journal", str(journal)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


# The service writes tens of records a second: a look at the journal every 10 ms kills it
# within a record of the target, and leaves the CPU to it.
POLL = 0.01


@pytest.fixture(scope="module")
def one_shoe(tmp_path_factory):
    """A 1-deck shoe's script, and the journal of its uninterrupted simulation."""
    # The design learned (once per test run, under the workers' lock) before any process is
    # timed: a simulation that had to learn it first could outlast its timeout.
    suite_reader(synthetic_deck())
    folder = tmp_path_factory.mktemp("one-shoe")
    script = folder / "shoe.txt"
    script.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=4), 1)))
    reference = folder / "reference.db"
    assert simulate(script, reference).wait(timeout=120) == 0
    return script, reference


def test_service_killed_at_random_moments_resumes_without_loss_or_duplicates(tmp_path,
                                                                              one_shoe):
    script, reference = one_shoe
    total = records_in(reference)

    victim = tmp_path / "victim.db"
    targets = sorted(random.Random(4).sample(range(3, total), 6))
    killed_at = [wait_then_kill(simulate(script, victim), victim, target, POLL)
                 for target in targets]
    final = simulate(script, victim)
    assert final.wait(timeout=120) == 0, final.stderr.read().decode()

    assert len({n for n in killed_at if n}) >= 4, killed_at
    assert events_of(victim) == events_of(reference)
    verdict = verify(str(victim))
    assert verdict.ok, verdict.message


def stop_with(signum, process, journal, target: int) -> tuple[int | None, int, str]:
    """Send `signum` once `journal` holds `target` records; (records then, exit status,
    stderr)."""
    at = None
    while process.poll() is None:
        if at is None and records_in(journal) >= target:
            at = records_in(journal)
            process.send_signal(signum)
        time.sleep(POLL)
    return at, process.returncode, process.stderr.read().decode()


def test_sigint_and_sigterm_stop_simulate_cleanly_and_it_resumes_to_the_same_events(
        tmp_path, one_shoe):
    """Issue 9: SIGINT to a background `sabot simulate` broke the emulated link and the
    journal then refused to resume. Each signal stops it with a clear line and exit 130 /
    143; the restarted run ends with the events of an uninterrupted one."""
    script, reference = one_shoe

    victim = tmp_path / "victim.db"
    rng = random.Random(9)
    stops = []
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
        # Some records into this run: a signal during start-up (before Python has run any
        # of ours) ends the process the way the signal's default does, losing nothing.
        target = records_in(victim) + rng.randrange(2, 40)
        at, status, err = stop_with(signum, simulate(script, victim), victim, target)
        stops.append(at)
        if at is not None:
            assert status == 128 + signum, err
            said = "sabot: interrupted" if signum == signal.SIGINT else "sabot: stopped by SIGTERM"
            assert "Traceback" not in err and said in err, err
    final = simulate(script, victim)
    assert final.wait(timeout=120) == 0, final.stderr.read().decode()
    assert any(stops), stops
    assert events_of(victim) == events_of(reference)
    assert verify(str(victim)).ok
