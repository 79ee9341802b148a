"""`sabot replay JOURNAL --follow` (issue 10): events appear as they are journaled, like
`tail -f`, without disturbing the writer; Ctrl-C ends it cleanly."""

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

from controller.game.script import parse_script
from controller.journal.store import Journal
from controller.service.table_service import TableService

SETTINGS = {"decks": 8, "style": "A", "require_no_more_bets": False}


class Lines:
    """A process's stdout lines as they come, read by a thread (no buffering surprises)."""

    def __init__(self, process):
        self._queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(process.stdout,), daemon=True).start()

    def _pump(self, stream):
        for line in stream:
            self._queue.put(json.loads(line))

    def take(self, count: int, timeout: float = 20) -> list[dict]:
        lines, deadline = [], time.monotonic() + timeout
        while len(lines) < count and time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                lines.append(self._queue.get(timeout=0.2))
        return lines


def test_follow_prints_events_as_they_are_journaled_and_stops_on_ctrl_c(tmp_path):
    path = tmp_path / "j.sqlite"
    service = TableService(Journal(str(path)), SETTINGS, table_id="t1")
    service.recover()
    steps = [s.observation for s in parse_script("AS 2C 9H 8D 9C 8S")]
    for observation in steps[:2]:
        service.handle(observation)
    follower = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "replay", str(path), "--follow", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = Lines(follower)
        first = lines.take(2)
        assert [e["event"] for e in first] == ["new_shoe", "burn"]
        for observation in steps[2:6]:
            service.handle(observation)  # the writer is not slowed nor locked out
        later = lines.take(6)  # four cards, the round (a natural), its lamps
        assert [e["event"] for e in later][:5] == ["card"] * 4 + ["round"]
    finally:
        follower.send_signal(signal.SIGINT)
        _, err = follower.communicate(timeout=10)
        service.journal.close()
    assert follower.returncode == 130
    assert "Traceback" not in err


def journaled(path, script: str) -> TableService:
    """A table service that journaled `script` at `path` (its journal left open)."""
    service = TableService(Journal(str(path)), SETTINGS)
    service.recover()
    for step in parse_script(script):
        service.handle(step.observation)
    return service


def test_replay_without_follow_ends_at_the_last_record(tmp_path):
    path = tmp_path / "j.sqlite"
    journaled(path, "AS 2C 9H 8D 9C 8S").journal.close()
    done = subprocess.run([sys.executable, "-m", "controller.cli", "replay", str(path),
                           "--json"], capture_output=True, text=True, timeout=30,
                          env={**os.environ})
    assert done.returncode == 0
    events = [json.loads(line)["event"] for line in done.stdout.splitlines()]
    assert events[:2] == ["new_shoe", "burn"] and "round" in events


def test_follow_of_one_shoe_ends_when_a_later_shoe_begins(tmp_path):
    """A lab's trial (stop 48): `replay --follow --shoe 1` waited on after shoe 1 ended."""
    path = tmp_path / "j.sqlite"
    service = journaled(path, "AS 2C 9H 8D 9C 8S NEWSHOE 2C 3C 4C")
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli", "replay", str(path),
                               "--follow", "--shoe", "1", "--json"], capture_output=True,
                              text=True, timeout=30)
    finally:
        service.journal.close()
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["shoe"] == 1 and events[-1]["event"] == "shoe_end"
