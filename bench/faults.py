"""The fault campaign (issue 12): inject every fault class we can, with fixed seeds, count what
survived and what was lost or doubled, and write RELIABILITY.md. `make faults` runs it;
`--quick` runs a few of each (a test runs that).

Each class is one function returning a `Row`: how many faults were injected, how many the
table survived as it should (events exactly once, a fault named when something was really
lost), events lost without a word and events doubled (both must be 0), and a note.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import logging
import platform
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from bench.kills import FinishedFirst, events_of, records_in, sabot, wait_then_kill
from controller.game import observations as obs
from controller.game.script import format_script, parse_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.verify import verify


@dataclass
class Row:
    fault: str
    injected: int = 0
    survived: int = 0
    lost: int = 0  # events lost without a fault that names them
    doubled: int = 0
    note: str = ""


def _multiset_diff(expected: list, got: list) -> tuple[int, int]:
    """(missing, extra) between two lists of events, order aside."""
    want, have = Counter(map(repr, expected)), Counter(map(repr, got))
    return sum((want - have).values()), sum((have - want).values())


def _unread(journal: Path) -> int:
    """Cards the camera path could not read (each one halted the table with `fault`): a
    difference from `sabot deal` that is the reader's, not the journal's."""
    from controller.journal.store import Journal

    if not journal.exists():
        return 0
    with Journal(str(journal), create=False) as opened:
        return sum(r.kind == "observation" and r.body.get("kind") == "unreadable"
                   for r in opened.records())


def _unread_note(runs: list[int], unit: str = "run") -> str:
    if not runs:
        return ""
    return (f"; not survived, nothing lost: {len(runs)} {unit}(s) where the camera path could "
            "not read a card (the table halted with `fault`; issue 8)")


def _deal(script: Path, journal: Path) -> tuple:
    """`sabot deal` of a one-deck shoe into `journal`: the rules' own outcome of it."""
    return ("deal", script, "--decks", "1", "--journal", journal, "--json")


def _reference(folder: Path, seed: int, name: str) -> tuple[Path, Path, list]:
    """A one-deck shoe's script, the journal `sabot deal` makes of it, and its events."""
    script = _shoe_script(folder, seed)
    reference = folder / f"{name}-ref.db"
    if sabot(*_deal(script, reference)).wait(timeout=300) != 0:
        raise RuntimeError(f"the reference deal of shoe {seed} failed")
    return script, reference, events_of(reference)


def _shoe_script(folder: Path, seed: int) -> Path:
    script = folder / f"shoe-{seed}.txt"
    script.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=seed), 1)))
    return script


# ---- power loss ----------------------------------------------------------------------------

def power_loss_service(shoes: int, kills: int, folder: Path) -> Row:
    """SIGKILL of `sabot simulate` (camera frames, the emulated shoe on a pty, the table
    thread and the journal: the assembly of `sabot run`) at random moments of a shoe, then
    started again on the same journal until the shoe is done."""
    row = Row("power loss: SIGKILL of the service (`sabot simulate`), restarted")
    failures: list[str] = []
    unread: list[int] = []
    for seed in range(1, shoes + 1):
        # The reference is the rules' own outcome of the shoe (`sabot deal`): a card the
        # camera path misread would then show too, as it should.
        script, reference, expected = _reference(folder, seed, f"power-{seed}")
        victim = folder / f"victim-{seed}.db"

        def run(journal: Path, script=script, seed=seed):
            return sabot("simulate", "--json", "--shoe", script, "--decks", "1", "--seed",
                         seed, "--journal", journal)

        total = records_in(reference)
        targets = sorted(random.Random(seed).sample(range(3, total), min(kills, total - 3)))
        killed, failed = 0, ""
        for target in targets:
            try:
                killed += wait_then_kill(run(victim), victim, target) is not None
            except FinishedFirst as error:  # a restart that refused or failed: counted
                killed, failed = killed + 1, str(error).strip().splitlines()[-1]
                break
        final = run(victim)
        _, err = final.communicate(timeout=300)
        if final.returncode != 0:
            failed = failed or err.decode(errors="replace").strip().splitlines()[-1]
        row.injected += killed
        if _unread(victim):
            unread.append(seed)  # the table halted for a card: nothing to compare after it
            continue
        lost, doubled = _multiset_diff(expected, events_of(victim))
        intact = verify(str(victim)).ok
        row.survived += killed if intact and lost == doubled == 0 and not failed else 0
        row.lost, row.doubled = row.lost + lost, row.doubled + doubled
        if failed:
            failures.append(f"shoe {seed}: {failed}")
    row.note = (f"{shoes} one-deck shoes, the events compared with what `sabot deal` makes "
                "of the same shoe" + (f"; failed: {'; '.join(failures)}" if failures else "")
                + _unread_note(unread))
    return row


def torn_journal(runs: int, folder: Path) -> Row:
    """`sabot deal --journal` killed, then its write-ahead log cut at a random byte (a write
    torn by the power cut), then run again: the torn transaction is dropped whole and the
    run resumes after the last one that is complete."""
    row = Row("torn journal: the WAL cut at a random byte after a SIGKILL, resumed")
    failures: list[list[str]] = []
    rng = random.Random(7)
    script, reference, expected = _reference(folder, 99, "torn")
    total = records_in(reference)
    for run in range(runs):
        victim = folder / f"torn-{run}.db"
        try:
            wait_then_kill(sabot(*_deal(script, victim)), victim,
                           rng.randrange(5, total))
        except FinishedFirst:
            continue
        wal = Path(f"{victim}-wal")
        if not wal.exists() or wal.stat().st_size <= 32:
            continue  # nothing in the log to tear (checkpointed): not an injection
        with wal.open("r+b") as log:
            log.truncate(rng.randrange(32, wal.stat().st_size))
        row.injected += 1
        again = sabot(*_deal(script, victim))
        _, err = again.communicate(timeout=120)
        if again.returncode != 0:
            failures.append(err.decode(errors="replace").strip().splitlines()[-1:] or ["?"])
            row.lost += len(expected)
            continue
        lost, doubled = _multiset_diff(expected, events_of(victim))
        verdict = verify(str(victim))
        row.survived += lost == doubled == 0 and verdict.ok
        row.lost, row.doubled = row.lost + lost, row.doubled + doubled
        if not verdict.ok:
            failures.append([verdict.message])
    row.note = ("a one-deck shoe; SQLite drops a torn transaction, the resume redoes it"
                + (f"; failed: {'; '.join(f[0] for f in failures)}" if failures else ""))
    return row


def _verifies(journal: Path) -> bool:
    """No journal (nothing was written), or one whose chain and replay hold."""
    from controller.errors import SabotError

    try:
        return not journal.exists() or verify(str(journal)).ok
    except SabotError:  # not even openable: certainly not intact
        return False


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def _simulate(script: Path, seed: int, journal: Path) -> tuple:
    """`sabot simulate` of a one-deck shoe: the service path (camera, emulated shoe, the
    table thread, the journal)."""
    return ("simulate", "--json", "--shoe", script, "--decks", "1", "--seed", seed,
            "--journal", journal)


def _dealt_both_ways(stem: Path, observations: list, seed: int) -> tuple:
    """A one-deck shoe's script (`stem`.txt) dealt by `sabot deal` (the rules' own outcome,
    into `stem`-ref.db) and through the service path (`sabot simulate`, into `stem`.db):
    (reference, victim, the deal's process, the service's, the service's errors)."""
    script = stem.with_suffix(".txt")
    script.write_text(format_script(observations))
    reference, victim = Path(f"{stem}-ref.db"), stem.with_suffix(".db")
    deal = sabot(*_deal(script, reference))
    deal.communicate(timeout=300)
    service = sabot(*_simulate(script, seed, victim))
    _, err = service.communicate(timeout=600)
    return reference, victim, deal, service, err


def _deal_or_simulate(run: int, script: Path, seed: int, journal: Path) -> tuple:
    """The storage faults alternate: `sabot deal` in even runs, the service path in odd."""
    return _deal(script, journal) if run % 2 == 0 else _simulate(script, seed, journal)


def _storage_fault(row: Row, command: tuple, victim: Path, expected: list,
                   faulted: Callable[[], tuple[bool, int, str]], failures: list[str],
                   unread: list[int], label: int, says: tuple[str, ...] = ()) -> None:
    """One storage fault under `command` writing `victim`. `faulted()` runs the command
    under the fault and gives the storage back: (whether the fault was injected, the exit
    status, the errors). Survived: it stopped with a last line naming the journal (and
    saying one of `says`, when given), no traceback; the journal verifies; a restart
    resumes to exactly `expected`, the events `sabot deal` makes of the shoe."""
    injected, status, message = faulted()
    if not injected:
        return
    row.injected += 1
    last = _last_line(message)
    clear = (status != 0 and "Traceback" not in message and str(victim) in last
             and (not says or any(word in last for word in says)))
    intact = _verifies(victim)
    again = sabot(*command)
    _, err = again.communicate(timeout=300)
    if command[0] == "simulate" and _unread(victim):
        unread.append(label)  # the camera path's, not the journal's: nothing to compare
        return
    resumed = again.returncode == 0
    lost, doubled = _multiset_diff(expected, events_of(victim)) if resumed else (
        len(expected), 0)
    ok = clear and intact and resumed and lost == doubled == 0
    row.survived += ok
    if not ok:
        why = ((message or f"exit {status}, nothing said") if not clear
               else err.decode(errors="replace") if not resumed
               else "the chain" if not intact else f"{lost} lost, {doubled} doubled")
        failures.append(f"{command[0]}: {_last_line(why) or '?'}")
    row.lost, row.doubled = row.lost + lost, row.doubled + doubled


def _failed_note(failures: list[str], unread: list[int], unit: str = "run") -> str:
    return (f"; failed: {'; '.join(failures)}" if failures else "") + _unread_note(unread, unit)


def disk_full(runs: int, folder: Path) -> Row:
    """The disk full in the middle of a shoe (no file may grow past a random size), for
    `sabot deal --journal` and for the service path (`sabot simulate`): it stops with one
    line naming the journal, nothing half-written, and resumes when there is room again."""
    row = Row("storage: the disk full mid-shoe, then room again")
    failures: list[str] = []
    unread: list[int] = []
    rng = random.Random(5)
    script, _, expected = _reference(folder, 77, "full")
    for run in range(runs):
        victim = folder / f"full-{run}.db"
        command = _deal_or_simulate(run, script, 77, victim)
        limit = rng.randrange(40_000, 600_000)

        def faulted(command=command, limit=limit):
            process = sabot(*command, file_limit=limit)
            _, err = process.communicate(timeout=300)
            return process.returncode != 0, process.returncode, err.decode(errors="replace")

        _storage_fault(row, command, victim, expected, faulted, failures, unread, run)
    row.note = ("`deal` and `simulate` under a file-size limit (EFBIG, as a full disk gives "
                "ENOSPC): one line naming the journal, the chain intact, resumed to the same "
                "events" + _failed_note(failures, unread))
    return row


READ_ONLY = ("read-only", "not writable")  # what the last line must say, besides the journal


def read_only_journal(runs: int, folder: Path) -> list[Row]:
    """A journal that cannot be written, for `sabot deal --journal` and the service path
    (`sabot simulate`), each then run again on the storage made writable: (a) its storage
    read-only before the start (a new journal, or one a power cut left), (b) the storage
    turning read-only under the writer in the middle of a shoe, as an SD card does when it
    fails. Needs root to mount; otherwise (a) uses file permissions and (b) is not
    injected, the reason said."""
    shoe = _reference(folder, 78, "read-only")
    rng = random.Random(12)
    return [_read_only_at_start(runs, folder, shoe, rng),
            _read_only_midway(runs, folder, shoe, rng)]


def _read_only_at_start(runs: int, folder: Path, shoe: tuple, rng: random.Random) -> Row:
    from bench.mounts import Unavailable, read_only_folder

    script, reference, expected = shoe
    total = records_in(reference)
    before = Row("read-only journal: its storage read-only at the start, then writable")
    failures: list[str] = []
    unread: list[int] = []
    try:
        with read_only_folder(folder / "read-only") as storage:
            for run in range(runs):
                victim = storage.path / f"before-{run}.db"
                command = _deal_or_simulate(run, script, 78, victim)
                # Runs 1, 2, 5, 6...: a journal a power cut left, found read-only at boot
                # (`deal` and `simulate` each both ways in four runs).
                cut = rng.randrange(3, total) if (run + run // 2) % 2 else None

                def faulted(command=command, victim=victim, cut=cut, storage=storage):
                    if cut is not None:
                        try:
                            wait_then_kill(sabot(*command), victim, cut)
                        except FinishedFirst as error:  # a failure, not an injection
                            return True, 0, f"before the fault: {_last_line(str(error))}"
                    storage.read_only()
                    try:
                        process = sabot(*command)
                        _, err = process.communicate(timeout=300)
                    finally:
                        storage.writable()
                    return True, process.returncode, err.decode(errors="replace")

                _storage_fault(before, command, victim, expected, faulted, failures, unread,
                               run, says=READ_ONLY)
            before.note = (f"`deal` and `simulate`, a new journal or one a SIGKILL left, on "
                           f"{storage.how}, then writable again: one line naming the journal "
                           "and saying it is read-only, the chain intact, resumed to the "
                           "events `sabot deal` makes of the shoe"
                           + _failed_note(failures, unread))
    except Unavailable as why:
        before.note = f"not injected: {why}"
    return before


def _read_only_midway(runs: int, folder: Path, shoe: tuple, rng: random.Random) -> Row:
    from bench.mounts import Unavailable, failing_card

    script, reference, expected = shoe
    total = records_in(reference)
    midway = Row("read-only journal: the storage turning read-only mid-shoe (a failing SD "
                 "card), then repaired")
    failures: list[str] = []
    unread: list[int] = []
    try:
        with failing_card(folder / "card") as card:
            for run in range(runs):
                victim = card.path / f"midway-{run}.db"
                command = _deal_or_simulate(run, script, 78, victim)
                target = rng.randrange(5, total)

                def faulted(command=command, victim=victim, target=target, card=card):
                    process = sabot(*command)
                    failed = False
                    try:
                        while process.poll() is None and not failed:
                            if records_in(victim) >= target:
                                card.fail()
                                failed = True
                            time.sleep(0.001)
                        _, err = process.communicate(timeout=300)
                    finally:
                        if failed:
                            card.repair()
                    return failed, process.returncode, err.decode(errors="replace")

                _storage_fault(midway, command, victim, expected, faulted, failures, unread,
                               run, says=READ_ONLY)
        midway.note = ("`deal` and `simulate` on ext4 on a loop device mounted "
                       "errors=remount-ro, a file-system error raised at a random record "
                       "(ext4's trigger_fs_error: the kernel turns it read-only under the "
                       "writer, as it does a failing SD card), then unmounted, e2fsck, "
                       "mounted again: one line naming the journal and saying its storage is "
                       "read-only, the chain intact, resumed to the events `sabot deal` makes "
                       "of the shoe" + _failed_note(failures, unread))
    except Unavailable as why:
        midway.note = f"not injected: {why}"
    return midway


# ---- the dealer's errors ---------------------------------------------------------------

IRREGULARITIES_PER_SHOE = 5


def _names(event: dict, rule: str) -> bool:
    """The event says the rule: an irregularity of it, or a notice citing it."""
    if event.get("event") == "irregularity":
        return event.get("rule") == rule
    return event.get("event") == "notice" and rule in event.get("message", "")


def dealer_errors(shoes: int, folder: Path) -> list[Row]:
    """Every irregularity of rules 12.1-12.4 and excess cards after every phase of a round
    (`bench.irregular`), injected at random moments of random one-deck shoes (fixed seeds),
    each shoe dealt through the service path (`sabot simulate`: the camera reads the cards,
    face up ones too, the emulated shoe's buttons call "No more bets" and disclose) and by
    `sabot deal` (the rules' own outcome). Survived: the two give the same events, and each
    injected irregularity is an event naming its rule, caused by the card or button that
    made it. Lost: events of the shoe missing from the service's, and irregularities no
    event names; doubled: events the service gave more."""
    from bench.irregular import IRREGULARITIES, IrregularDealer

    rows = {kind: Row(f"dealer errors: {what}") for kind, (what, _) in IRREGULARITIES.items()}
    dealer = IrregularDealer()
    turn = itertools.cycle(IRREGULARITIES)  # each in its turn, so each gets its share
    pending: list[str] = []
    failures: dict[str, list[str]] = {kind: [] for kind in rows}
    unread: dict[str, list[int]] = {kind: [] for kind in rows}
    per_shoe: list[int] = []
    for seed in range(300, 300 + shoes):
        wanted = list(pending)  # those that found no moment in the last shoe first
        while len(wanted) < IRREGULARITIES_PER_SHOE:
            kind = next(turn)
            if kind not in wanted:
                wanted.append(kind)
        observations, injected, pending = dealer.shoe(seed, wanted)
        per_shoe.append(len(injected))
        reference, victim, deal, service, err = _dealt_both_ways(
            folder / f"irregular-{seed}", observations, seed)
        for done in injected:
            rows[done.kind].injected += 1
        if _unread(victim):
            for done in injected:  # the table halted for a card: nothing to compare after it
                unread[done.kind].append(seed)
            continue
        expected, got = events_of(reference), events_of(victim)
        missing, extra = _multiset_diff(expected, got)
        same = (missing == extra == 0 and service.returncode == deal.returncode
                and _verifies(victim))
        for done in injected:
            row = rows[done.kind]
            unnamed = [rule for nth, rule in done.named
                       if not any(_names(event, rule) for at, event in expected if at == nth)]
            row.survived += same and not unnamed
            # The shoe's differences are charged to each irregularity it held.
            row.lost += missing + len(unnamed)
            row.doubled += extra
            if unnamed:
                failures[done.kind].append(f"shoe {seed}: no event named {', '.join(unnamed)}")
            elif not same:
                failures[done.kind].append(
                    f"shoe {seed}: {missing} missing, {extra} extra events, exit "
                    f"{service.returncode} ({_last_line(err.decode(errors='replace'))})")
    for kind, row in rows.items():
        row.note = ("the same events from `sabot simulate` and `sabot deal`, the rule named "
                    "by the event of the card or button that made it"
                    + _failed_note(failures[kind], unread[kind], "shoe"))
    first = rows[next(iter(rows))]
    first.note = (f"{shoes} one-deck shoes with \"No more bets\" calls and {min(per_shoe)}-"
                  f"{max(per_shoe)} irregularities each at random moments (fixed seeds); "
                  + first.note + "; lost and doubled: a shoe's differences, charged to each "
                  "irregularity in it; rule 12.1(a) (the player's unauthorised third card "
                  "given to the banker who must draw) is not injected: in the order of the "
                  "cards, all the shoe sees, that card simply is the banker's")
    return list(rows.values())


def soak(shoes: int, folder: Path) -> Row:
    """`shoes` one-deck shoes through one `sabot simulate` process with 5% of the serial
    frames damaged each way. Every step of the input must be journaled once, in order (a
    card the camera path could not read as unreadable, which halts the table: the reader's,
    issue 8), the journal must replay to its own events, and the process's memory after
    the first tenth of the run must not grow by a tenth by its end."""
    import subprocess

    from controller.game.observations import Card, Unreadable, observation_from_dict
    from controller.journal.replay import input_steps
    from controller.journal.store import Journal

    row = Row(f"soak: {shoes} shoes through one `sabot simulate`, 5% serial damage")
    # ACK closes each shoe, so a table halted for an unreadable card goes on.
    text = "NEWSHOE\n".join(
        format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=500 + n), 1)) + "ACK\n"
        for n in range(shoes))
    script, journal = folder / "soak.txt", folder / "soak.db"
    script.write_text(text)
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "simulate", "--json", "--shoe", str(script),
         "--decks", "1", "--seed", "8", "--damage", "0.05", "--journal", str(journal)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    samples: list[tuple[float, int]] = []
    began = time.monotonic()
    while process.poll() is None:
        samples.append((time.monotonic() - began, _rss_kib(process.pid)))
        time.sleep(0.5)
    process.stderr.read()
    planned = [step.observation for step in parse_script(text)]
    with Journal(str(journal), create=False) as opened:
        journaled = input_steps([observation_from_dict(r.body) for r in opened.records()
                                 if r.kind == "observation"])
    unread = misread = 0
    for got, want in zip(journaled, planned, strict=False):
        if got == want:
            continue
        if isinstance(got, Unreadable) and isinstance(want, Card):
            unread += 1
        elif not (isinstance(got, Unreadable) and isinstance(want, Unreadable)):
            misread += 1
    samples = [(t, kib) for t, kib in samples if kib]
    total = samples[-1][0] if samples else 0.0
    # After a tenth of the run (warmed up: the profile loaded, the first shoe dealt).
    early = statistics.median([kib for t, kib in samples if t >= total / 10][:5] or [0])
    end = samples[-1][1] if samples else 0
    growth = (end - early) / early if early else float("inf")
    row.injected = shoes
    row.lost = max(0, len(planned) - len(journaled))
    row.doubled = max(0, len(journaled) - len(planned)) + misread
    intact = verify(str(journal)).ok
    row.survived = shoes if row.lost == row.doubled == 0 and intact and growth < 0.10 else 0
    row.note = (f"{len(planned)} steps in {total:.0f} s, each journaled once in order; memory "
                f"{early / 1024:.0f} MiB after a tenth of the run, {end / 1024:.0f} MiB at the "
                f"end: {growth:+.1%} (must stay under +10%); cards the camera path could not "
                f"read (the table halted; issue 8): {unread}")
    return row


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


# ---- the camera ----------------------------------------------------------------------------

def _hand(window, rng: random.Random):
    """A hand over the window: a dark skin-coloured blob over most of it."""
    import cv2
    import numpy as np

    covered = window.copy()
    h, w = covered.shape[:2]
    centre = (rng.randrange(w // 4, 3 * w // 4), rng.randrange(h // 4, 3 * h // 4))
    cv2.ellipse(covered, centre, (w // 2, h // 3), rng.randrange(180), 0, 360,
                (rng.randrange(60, 120), rng.randrange(90, 150), rng.randrange(140, 200)), -1)
    return cv2.GaussianBlur(covered, (0, 0), 3).astype(np.uint8)


CAMERA_FAULTS = {
    "frozen": "the camera repeats one frame for the whole card",
    "frozen on the card before": "the camera repeats the previous card's best frame while "
                                 "the next card passes",
    "black": "the camera gives black frames while the card passes",
    "gone and back": "the camera drops most of the card's frames",
    "hand over the window": "a hand covers most of the window while the card passes",
}


def camera_faults(runs: int) -> list[Row]:
    """One card of a dealt sequence seen through a camera fault, the card sensor working:
    the faulted card must be read right or reported unreadable (never read as another),
    and every other card read once, in order. Through the reader and the Tracker of the
    service, on the built-in design."""
    import numpy as np

    from controller.game.cards import ALL_CARDS
    from controller.sim.setup import enrolled_reader
    from vision.decks import synthetic_deck
    from vision.events import CardSeen
    from vision.synth import card_frames, render_window
    from vision.tracker import Tracker

    deck = synthetic_deck()
    reader = enrolled_reader(deck)
    empty = render_window(deck, "EMPTY", rng=np.random.default_rng(0))
    rows = []
    for fault, what in CAMERA_FAULTS.items():
        row = Row(f"camera: {fault}", note=what + "; read right or unreadable, never another")
        rng = random.Random(zlib.crc32(fault.encode()))
        right = alarms = 0
        for _ in range(runs):
            codes = rng.sample(ALL_CARDS, 8)
            victim = rng.randrange(len(codes))
            tracker = Tracker(reader)
            events = []
            previous: list = []  # the frames of the card before that show its face
            for n, code in enumerate(codes):
                seed = rng.randrange(1 << 30)
                frames = list(card_frames(deck, code, np.random.default_rng(seed)))
                if n == victim:
                    frames = _camera_fault(fault, frames, rng, previous)
                previous = [w for w, present in frames if present and reader.read(w).card]
                for window, present in frames + [(empty, False)] * 2:
                    events += tracker.feed(window, card_present=present)
            events += tracker.flush()
            read = [e.card if isinstance(e, CardSeen) else None for e in events]
            got = [card for card in read if card is not None]
            # A card read as another would be both missing and extra: never allowed. The
            # faulted card may be unreadable (one unreadable event stands for it).
            missing, extra = _multiset_diff(codes, got)
            unread = read.count(None)  # each one halts the table: a card not read is no loss
            row.injected += 1
            row.survived += (missing == unread <= int(codes[victim] not in got) and extra == 0
                             and len(read) == len(codes))
            row.lost, row.doubled = row.lost + max(0, missing - unread), row.doubled + extra
            right += codes[victim] in got
            alarms += max(0, unread - int(codes[victim] not in got))
        row.note += (f"; the faulted card read right {right} times of {runs}; other cards "
                     f"unreadable (the table halts for them): {alarms}")
        rows.append(row)
    return rows


def cards_pushed_back(runs: int) -> list[Row]:
    """One card of a dealt sequence drawn half way and pushed back into the shoe (frames as
    `emulate-shoe --camera`'s `pullback`: the first half of its passage, then backwards),
    then drawn for good; or pushed back a little and drawn out in the same passage (the
    sensor covered throughout); or drawn only until its index is about wholly in view, then
    pushed back and drawn for good. Through the tracker and a table: the first and the last
    must halt the table (SlidBack, or for the last an unreadable passage: its index read in
    one frame only) and the card be counted once; the second is one card, read once, with
    no halt (stop 48's review: it halted, then took the next card for it). Four times the
    runs of the other camera rows: 25 missed a rule that let one pullback in ten through
    (a review, stop 49)."""
    return [_pushed_back(runs, "for good"), _pushed_back(runs, "a little"),
            _pushed_back(runs, "shallow")]


# How far a shallow pull draws the card (`synth.pulled_a_little`'s travel: about 40-60
# shows its index just wholly in view) and how fast (rows a frame: a slow hand, a quick one).
SHALLOW_REACH = (30.0, 65.0)
SHALLOW_STEPS = (10.0, 28.0)
# Each way of pushing a card back: its row's title, its runs' seed, and what the row's
# note says survived ({halted_unread}: shallow pulls whose passage halted unreadable).
_PUSHED_BACK = {
    "for good": ("camera: a card that slides back into the shoe", b"slides back",
                 "frames as `emulate-shoe --camera`'s `pullback`, then the card drawn for "
                 "good; survived: the card read, the table halted naming it (it went back "
                 "into the shoe), its next reading not counted, every card counted once"),
    "a little": ("camera: a card pushed back a little, then drawn out", b"wiggles",
                 "drawn half way, pushed back most of the way with the sensor covered, then "
                 "drawn out in the same passage; survived: every card read and counted once, "
                 "no halt"),
    "shallow": ("camera: a card drawn until its index shows, then pushed back", b"shallow",
                f"drawn until its travel was {SHALLOW_REACH[0]:.0f}-{SHALLOW_REACH[1]:.0f} "
                f"rows (its index about wholly in view) at {SHALLOW_STEPS[0]:.0f} or "
                f"{SHALLOW_STEPS[1]:.0f} rows a frame, pushed back, then drawn for good; "
                "survived: the table halted (the card slid back, or its passage unreadable), "
                "every card counted once; halted unreadable: {halted_unread}"),
}


def _pushed_back(runs: int, how: str) -> Row:
    import numpy as np

    from controller.game.cards import ALL_CARDS
    from controller.game.table import Table
    from controller.service.runtime import observation_of
    from controller.sim.setup import enrolled_reader
    from vision.decks import synthetic_deck
    from vision.events import CardSeen, SlidBack
    from vision.synth import (
        card_frames,
        drawn_half_way,
        pulled_a_little,
        pushed_back_a_little,
        render_window,
    )
    from vision.tracker import Tracker

    deck = synthetic_deck()
    reader = enrolled_reader(deck)
    empty = [(render_window(deck, "EMPTY", rng=np.random.default_rng(0)), False)] * 2
    title, seed, note = _PUSHED_BACK[how]
    row = Row(title)
    rng = random.Random(zlib.crc32(seed))
    unread = halted_unread = 0
    for _ in range(runs):
        codes = rng.sample(ALL_CARDS, 8)
        victim = rng.randrange(len(codes))
        tracker = Tracker(reader)
        table = Table(decks=1, require_no_more_bets=False)
        events = []
        for n, code in enumerate(codes):
            frame_rng = np.random.default_rng(rng.randrange(1 << 30))
            frames = list(card_frames(deck, code, frame_rng))
            if n == victim and how == "for good":
                frames = drawn_half_way(frames) + empty + frames
            elif n == victim and how == "a little":
                frames = pushed_back_a_little(frames)
            elif n == victim:
                pull = pulled_a_little(deck, code, frame_rng, reach=rng.uniform(*SHALLOW_REACH),
                                       step=rng.choice(SHALLOW_STEPS))
                frames = pull + empty + frames
            for window, present in frames + empty:
                events += tracker.feed(window, card_present=present)
        for event in events:
            table.apply(observation_of(event))
        said = [e.card if isinstance(e, CardSeen) else f"slid:{e.card}"
                if isinstance(e, SlidBack) else None for e in events]
        slid = codes[:victim + 1] + [f"slid:{codes[victim]}"] + codes[victim:]
        pull_unread = codes[:victim] + [None] + codes[victim:]  # its pull halted unreadable
        expected = ([slid] if how == "for good" else [codes] if how == "a little" else
                    [slid, pull_unread, codes])
        row.injected += 1
        counted = sum(table.state.counts.values())
        row.survived += said in expected and counted == len(codes)
        halted_unread += how == "shallow" and said == pull_unread
        unread += said.count(None)
        row.lost += max(0, len(set(codes) - set(table.state.counts)) - said.count(None))
        row.doubled += max(0, counted - len(codes))
    row.note = note.format(halted_unread=halted_unread)
    others = unread - halted_unread
    row.note += f"; other cards unreadable (the table halts for them): {others}" if others else ""
    return row


STUCK_TAIL = 0.5  # the share of the hidden card's passage that shows: its tail, no index


def stuck_cards(shoes: int, folder: Path) -> Row:
    """Two cards drawn stuck together: the second card's face lies on the first's back, so
    the camera under them sees the first card's face and then, in the same sensor pulse, the
    tail of the second (the last STUCK_TAIL of its passage: its lower body, no index). The
    tracker must read the first card and nothing else; the table, one card. Only the count of
    the shoe at its end shows the second (rule 11.1): each one-deck shoe is dealt without it
    through the service path (`sabot simulate`), then `COUNT`, the cards left through the
    camera and `NEWSHOE`, and by `sabot deal`. Survived: the pulse read as the first card
    alone, the two give the same events, and the count is one card short naming the hidden
    one, with a fault; lost: a shoe whose count does not name it (or events missing);
    doubled: the hidden card read in the pulse, or events the service gave more."""
    import numpy as np

    from controller.sim.setup import enrolled_reader
    from vision.decks import synthetic_deck
    from vision.events import CardSeen

    deck = synthetic_deck()
    reader = enrolled_reader(deck)
    row = Row("stuck cards: two cards drawn stuck together, the second never read")
    failures: list[str] = []
    unread: list[int] = []
    for seed in range(500, 500 + shoes):
        rng = random.Random(seed)
        stack = shuffled_shoe(1, seed=seed)
        dealt = dealt_until_shoe_end(stack, 1)
        # The hidden card: one drawn before the shoe's end, stuck behind a card (not the
        # cutting card).
        at = rng.choice([n for n, o in enumerate(dealt) if n > 0 and isinstance(o, obs.Card)
                         and isinstance(dealt[n - 1], obs.Card)])
        first, hidden = dealt[at - 1], dealt[at]
        pulse = _stuck_pulse(deck, reader, first, hidden, np.random.default_rng(seed))
        without = stack[:at] + stack[at + 1:]
        shoe = dealt_until_shoe_end(without, 1)
        rest = [o for o in without[len(shoe):] if isinstance(o, obs.Card)]
        reference, victim, deal, service, err = _dealt_both_ways(
            folder / f"stuck-{seed}", [*shoe, obs.CountOut(), *rest, obs.NewShoe()], seed)
        row.injected += 1
        row.doubled += sum(isinstance(e, CardSeen) and e.card == hidden.card for e in pulse)
        if _unread(victim):
            unread.append(seed)
            continue
        expected, got = events_of(reference), events_of(victim)
        missing, extra = _multiset_diff(expected, got)
        counts = [e for _, e in got if e["event"] == "count"]
        named = (len(counts) == 1 and counts[0]["short"] == 1
                 and counts[0]["missing"] == [hidden.card]
                 and any(e["event"] == "fault" and hidden.card in e["reason"]
                         and "count-out" in e["reason"] for _, e in got))
        read_alone = [(type(e), getattr(e, "card", None)) for e in pulse] == [
            (CardSeen, first.card)]
        row.survived += (named and read_alone and missing == extra == 0
                         and service.returncode == deal.returncode and _verifies(victim))
        row.lost += missing + (not named)
        row.doubled += extra
        if not (named and read_alone) or missing or extra:
            failures.append(f"shoe {seed}: pulse read as {pulse}, count {counts}, {missing} "
                            f"missing, {extra} extra events, exit {service.returncode} "
                            f"({_last_line(err.decode(errors='replace'))})")
    row.note = (f"{shoes} one-deck shoes, one card hidden behind the card before it (fixed "
                "seeds): the pair's pulse through the tracker (the first card's passage, then "
                f"the last {STUCK_TAIL:.0%} of the hidden one's: its tail, no index) read as the "
                "first card alone; the shoe without the hidden card through `sabot simulate`, "
                "counted out at its end (`COUNT`, rule 11.1): the same events as `sabot deal`, "
                "the count one card short naming it, the table halted with `fault`"
                + _failed_note(failures, unread, "shoe"))
    return row


def _stuck_pulse(deck, reader, first: obs.Card, hidden: obs.Card, rng) -> list:
    """What the tracker makes of one sensor pulse that shows `first` and then the tail of
    `hidden` stuck behind it."""
    from vision.synth import card_frames
    from vision.tracker import Tracker

    frames = [window for window, present in card_frames(deck, first.card, rng) if present]
    tail = [window for window, present in card_frames(deck, hidden.card, rng) if present]
    frames += tail[round(len(tail) * (1 - STUCK_TAIL)):]
    tracker = Tracker(reader)
    events = [e for window in frames for e in tracker.feed(window, card_present=True)]
    return events + tracker.feed(frames[-1], card_present=False)


def _camera_fault(fault: str, frames: list, rng: random.Random, previous: list) -> list:
    import numpy as np

    if fault == "frozen on the card before" and previous:
        stuck = rng.choice(previous)  # a frame the reader read the card in
        return [(stuck, present) for _, present in frames]
    if fault.startswith("frozen"):
        stuck = frames[rng.randrange(len(frames))][0]
        return [(stuck, present) for _, present in frames]
    if fault == "black":
        return [(np.zeros_like(window), present) for window, present in frames]
    if fault == "gone and back":
        keep = set(rng.sample(range(len(frames)), max(1, len(frames) // 4)))
        return [frame for n, frame in enumerate(frames) if n in keep or not frame[1]]
    return [(_hand(window, rng), present) for window, present in frames]


# ---- the serial link -----------------------------------------------------------------------

def _link_run(rng: random.Random, fault: str):
    """One run of the in-memory link (`firmware_bridge.loopback`) with `fault`; returns the
    messages sent, those delivered, and how many of each kind the host was told were lost
    (None: an unknown number)."""
    from firmware_bridge.faults import Faults
    from firmware_bridge.link import Link
    from firmware_bridge.loopback import TIMING, Loopback
    from firmware_bridge.messages import (
        BUTTONS,
        ButtonPressed,
        CardPresent,
        CardsMissed,
        EventsLost,
        LidChanged,
    )

    damage = {"damage 5%": 0.05, "damage 20%": 0.2, "damage past the CRC": 0.05}.get(fault, 0.0)
    line = Faults.damaged(damage)
    if fault == "damage past the CRC":
        line = dataclasses.replace(line, past_crc=0.02)
    bench = Loopback(faults=line, seed=rng.randrange(1 << 16), queue_limit=32)
    bench.run_until(lambda: bench.host.up and bench.mcu.up)
    sent: list = []

    def act():
        choice = rng.random()
        if choice < 0.7:
            sent.append(("card", bench.mcu.deal_card(bench.now)))
        elif choice < 0.9:
            button = rng.choice(BUTTONS)
            bench.mcu.press(button, bench.now)
            sent.append(("button", button))
        else:
            is_open = rng.random() < 0.5
            bench.mcu.set_lid(is_open, bench.now)
            sent.append(("lid", is_open))

    for step in range(300):
        act()
        bench.run(0.002)
        if fault == "cable out" and step == 100:
            bench.connected = False
            for _ in range(80):
                act()
            bench.connected = True
        if fault == "host restart" and step == 150:
            # The host dies with messages in flight; its journal kept a random prefix.
            bench.to_mcu.faults = Faults(drop=1.0)
            for _ in range(4):
                act()
            bench.run(0.02)
            delivered = [e for e in bench.events if hasattr(e, "mcu_event")]
            keep = delivered[: len(delivered) - rng.randrange(0, 5)]
            last = keep[-1].mcu_event if keep else 0
            cards = [e.counter for e in keep if isinstance(e, CardPresent)]
            bench.events = [e for e in bench.events if not hasattr(e, "mcu_event")] + keep
            bench.host = Link(timing=TIMING, boot_id=rng.randrange(1, 1 << 32),
                              resume=(bench.mcu.session.boot_id, max(cards, default=0), last))
            bench.to_mcu.faults = Faults.damaged(damage)
    bench.run(2.0)
    got = []
    for event in bench.events:
        if isinstance(event, CardPresent):
            got.append(("card", event.counter))
        elif isinstance(event, ButtonPressed):
            got.append(("button", event.name))
        elif isinstance(event, LidChanged):
            got.append(("lid", event.open))
    def total(values):
        return None if None in values else sum(values)

    lost = bench.of(EventsLost)
    reported = {"card": sum(e.count for e in bench.of(CardsMissed)),
                "button": total([e.buttons for e in lost]),
                "lid": total([e.lids for e in lost])}
    return sent, got, reported


def serial_link(runs: int) -> list[Row]:
    rows = []
    faults = {"damage 5%": "garbage, bit flips, truncated, lost and doubled frames (5%)",
              "damage 20%": "the same at 20%",
              "damage past the CRC": "5% damage as above, and 2% of the frames damaged so "
                                     "that the CRC still passes (a payload a byte short, "
                                     "re-checksummed: one damaged frame in 65,536 does so on "
                                     "a real line); dropped unacknowledged and sent again",
              "cable out": "the cable out while 80 messages are made, the queue too small",
              "host restart": "the host killed with messages in flight, resumed from what "
                              "its journal kept"}
    for fault, what in faults.items():
        row = Row(f"serial link: {fault}", note=what)
        rng = random.Random(zlib.crc32(fault.encode()))
        for _ in range(runs):
            sent, got, reported = _link_run(rng, fault)
            # What a full queue dropped must be reported, kind by kind, exactly; the rest
            # must come exactly once.
            unreported = extra = 0
            for kind, told in reported.items():
                missing, more = _multiset_diff([m for m in sent if m[0] == kind],
                                               [m for m in got if m[0] == kind])
                extra += more
                if told is not None:
                    unreported += abs(missing - told)
            row.injected += 1
            row.survived += unreported == 0 and extra == 0
            row.lost, row.doubled = row.lost + unreported, row.doubled + extra
        rows.append(row)
    return rows


# ---- the broker ----------------------------------------------------------------------------

def broker_outages(runs: int, folder: Path) -> Row:
    """The surveillance broker down at random moments of a shoe, and the publisher restarted:
    every event reaches the room (at least once; the room drops a seq it has seen)."""
    from controller.journal.store import Journal
    from controller.service.table_service import TableService
    from controller.surveillance import messages
    from controller.surveillance.broker import MemoryBroker
    from controller.surveillance.publisher import Publisher

    row = Row("broker: down at random moments, the publisher restarted")
    rng = random.Random(11)
    settings = {"decks": 1, "style": "A", "require_no_more_bets": False}
    duplicates = 0
    for run in range(runs):
        broker = MemoryBroker()
        seen: list[int] = []
        room = broker.client("room")
        room.subscribe("sabot/+/event", lambda topic, payload, seen=seen: seen.append(
            messages.decode(topic, payload)[2]["seq"]))
        room.start()
        path = folder / f"broker-{run}.db"
        service = TableService(Journal(str(path)), settings, table_id="t1")
        service.recover()
        publisher = Publisher(str(path), "t1", broker.client("t1"), poll=0.005).start()
        service._sinks.append(publisher.sink)
        shoe = dealt_until_shoe_end(shuffled_shoe(1, seed=run + 40), 1)
        for n, observation in enumerate(shoe):
            service.handle(observation)
            if rng.random() < 0.05:
                broker.go_down()
                row.injected += 1
            elif rng.random() < 0.2:
                broker.come_up()
            if n == len(shoe) // 2:  # the publisher restarted (the service's restart)
                broker.come_up()
                publisher.stop()
                publisher = Publisher(str(path), "t1", broker.client("t1b"), poll=0.005)
                service._sinks.append(publisher.start().sink)
                row.injected += 1
        broker.come_up()
        publisher.flush(20)
        publisher.stop()
        service.journal.close()
        time.sleep(0.05)
        with Journal(str(path), create=False) as journal:
            expected = [r.seq for r in journal.records() if r.kind == "event"]
        lost = len(set(expected) - set(seen))
        duplicates += len(seen) - len(set(seen))
        row.lost += lost
        row.survived += row.injected if lost == 0 else 0
        room.close()
    row.survived = min(row.survived, row.injected)
    row.note = (f"{runs} one-deck shoes; {duplicates} events delivered twice by QoS 1 and "
                "dropped by seq, as the contract says (none doubled after that)")
    return row


# ---- tampering -----------------------------------------------------------------------------

def tampering(folder: Path) -> list[Row]:
    """Forgeries of a signed journal, each checked three ways: the chain and the replay
    alone, with the table's public key, and with the key and an anchor taken before."""
    from controller.journal.signing import load_or_create_signer
    from controller.journal.store import GENESIS, Journal, record_hash
    from controller.journal.verify import latest_anchor
    from controller.service.table_service import TableService

    signer = load_or_create_signer(folder / "table.key")
    original = folder / "signed.db"
    with Journal(str(original), signer=signer) as journal:
        service = TableService(journal, {"decks": 8, "style": "A",
                                         "require_no_more_bets": False})
        service.recover()
        for step in parse_script("AS 2C 9H 3D 4H 5D KH KD 7S 8C 6H 9S"):
            service.handle(step.observation)
    anchor = latest_anchor(str(original))

    def rechain(db, start=1):
        rows = db.execute("SELECT seq, ts_us, kind, cause, body FROM records ORDER BY seq")
        previous = GENESIS
        for seq, ts_us, kind, cause, body in rows.fetchall():
            digest = record_hash(seq, ts_us, kind, cause, body, previous)
            if seq >= start:
                db.execute("UPDATE records SET prev_hash = ?, hash = ? WHERE seq = ?",
                           (previous, digest, seq))
            previous = digest

    def last_heads(db, n):
        return [s for (s,) in db.execute("SELECT seq FROM signatures ORDER BY seq DESC "
                                         "LIMIT ?", (n,))][-1]

    forgeries: dict[str, Callable] = {
        "a card changed, nothing else": lambda db: db.execute(
            "UPDATE records SET body = replace(body, '9H', '9D') WHERE kind = 'observation'"),
        "a card and its events changed, the chain recomputed": lambda db: (
            db.execute("UPDATE records SET body = replace(body, '9H', '9D')"), rechain(db)),
        "a record deleted in the middle": lambda db: db.execute(
            "DELETE FROM records WHERE seq = 5"),
        "a link record inserted, renumbered, re-chained": lambda db: (
            db.execute("UPDATE records SET seq = seq + 1000"),
            db.execute("UPDATE records SET seq = seq - 1000 + (seq - 1000 > 4)"),
            db.execute("INSERT INTO records VALUES (5, 1, 'link', NULL, "
                       "'{\"boot_id\":1,\"card_counter\":0}', '', '')"),
            rechain(db)),
        "timestamps rewritten, re-chained": lambda db: (
            db.execute("UPDATE records SET ts_us = ts_us - 3600000000 WHERE seq > 6"),
            rechain(db)),
        "a meta key added, re-chained": lambda db: (
            db.execute("UPDATE records SET body = replace(body, '{', '{\"x\":1,') "
                       "WHERE seq = 1"), rechain(db)),
        "false rewritten as 0 in an event, re-chained": lambda db: (
            db.execute("UPDATE records SET body = replace(body, 'false', '0') "
                       "WHERE kind = 'event'"), rechain(db)),
        "a record appended without the key": lambda db: (
            db.execute("INSERT INTO records VALUES ((SELECT max(seq) + 1 FROM records), 1, "
                       "'link', NULL, '{\"boot_id\":1,\"card_counter\":0}', '', '')"),
            rechain(db)),
        "the signatures deleted, a card changed, re-chained": lambda db: (
            db.execute("DELETE FROM signatures"),
            db.execute("UPDATE records SET body = replace(body, '9H', '9D')"), rechain(db)),
        "the newest records cut off, with their signatures": lambda db: (
            db.execute("DELETE FROM records WHERE seq > ?", (last_heads(db, 3),)),
            db.execute("DELETE FROM signatures WHERE seq > ?", (last_heads(db, 3),))),
        "re-signed with another key after a change": lambda db: _resign(db, folder),
    }
    levels = {"by the chain and the replay": {},
              "with the table's key too": {"key": signer.public},
              "with the key and an anchor": {"key": signer.public, "anchor": anchor}}
    rows = {level: Row(f"tampering, checked {level}") for level in levels}
    missed: dict[str, list[str]] = {level: [] for level in levels}
    for number, (name, forge) in enumerate(forgeries.items()):
        copy = folder / f"forged-{number}.db"
        shutil.copy(original, copy)
        with contextlib.closing(sqlite3.connect(copy)) as db, db:
            forge(db)
        for level, options in levels.items():
            caught = not verify(str(copy), **options).ok
            rows[level].injected += 1
            rows[level].survived += caught
            if not caught:
                missed[level].append(name)
    for level, row in rows.items():
        row.note = (("not caught: " + "; ".join(missed[level])) if missed[level]
                    else "every forgery caught")
    return list(rows.values())


def _resign(db, folder: Path) -> None:
    """A forger's own key signing the changed journal's head."""
    from controller.journal.signing import load_or_create_signer
    from controller.journal.store import GENESIS, record_hash

    db.execute("UPDATE records SET body = replace(body, '9H', '9D')")
    previous = GENESIS
    for seq, ts_us, kind, cause, body in db.execute(
            "SELECT seq, ts_us, kind, cause, body FROM records ORDER BY seq").fetchall():
        digest = record_hash(seq, ts_us, kind, cause, body, previous)
        db.execute("UPDATE records SET prev_hash = ?, hash = ? WHERE seq = ?",
                   (previous, digest, seq))
        previous = digest
    forger = load_or_create_signer(folder / "forger.key")
    db.execute("DELETE FROM signatures")
    (last,) = db.execute("SELECT max(seq) FROM records").fetchone()
    head = forger.sign(last, previous)
    db.execute("INSERT INTO signatures VALUES (?, ?, ?, ?)",
               (head.seq, head.hash, head.key, head.signature))


# ---- fuzzing -------------------------------------------------------------------------------

def fuzzing(examples: int) -> list[Row]:
    """Every parser of outside input fed what hypothesis makes: the only exceptions allowed
    are the clear ones each promises (an error naming what is wrong), never a crash."""
    from hypothesis import strategies as st

    from controller.errors import SabotError
    from controller.game import observations as obs
    from controller.game.table import Table
    from controller.service.config import validate
    from controller.surveillance import messages
    from firmware_bridge.emulator import ShoeEmulator
    from firmware_bridge.framing import FrameReader
    from firmware_bridge.link import Link

    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8),
                                                                    inner, max_size=4),
        max_leaves=12)
    link, emulator = Link(), ShoeEmulator(seed=1)
    observation_kinds = [k.kind for k in obs.ALL_KINDS]

    def feed_link(data):
        link.feed(data, 0.0)

    def feed_emulator(data):
        emulator.feed(data, 0.0)

    def table_run(kinds):
        table = Table(decks=1)
        for kind, card in kinds:
            body = ({"kind": kind, "card": card} if kind in ("card", "slid_back")
                    else {"kind": kind})
            try:
                observation = obs.observation_from_dict(body)
            except SabotError:
                continue
            table.apply(observation)
        if table.state.cards_left < 0:
            raise AssertionError("cards_left went below 0")

    cards = st.sampled_from(["AS", "9H", "KD", "JOKER", "XX", "10C"])
    targets = [
        ("frame reader (serial bytes)", st.binary(max_size=200),
         lambda data: FrameReader().push(data), ()),
        ("host link (serial bytes)", st.binary(max_size=200), feed_link, ()),
        ("emulated MCU (serial bytes)", st.binary(max_size=200), feed_emulator, ()),
        ("deal script", st.text(max_size=120), parse_script, (SabotError,)),
        ("config", st.dictionaries(st.sampled_from(["table", "journal", "camera", "serial",
                                                    "gpio", "surveillance", "x"]),
                                   json_values, max_size=4), validate, (SabotError,)),
        ("observation record", json_values, obs.observation_from_dict, (SabotError,)),
        ("MQTT message", st.tuples(st.sampled_from(["sabot/t1/event", "sabot/t1/state",
                                                    "sabot/t1/status", "x/y"]),
                                   st.binary(max_size=200)),
         lambda pair: messages.decode(*pair), (SabotError,)),
        ("observations into Table.apply", st.lists(st.tuples(
            st.sampled_from(observation_kinds), cards), max_size=60), table_run, ()),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as folder, contextlib.ExitStack() as stack:
        for name, strategy, target, allowed in targets + _file_and_web_targets(
                Path(folder), stack):
            row = Row(f"fuzzing: {name}")
            crashes: list[str] = []
            _fuzzer(strategy, target, allowed, row, crashes, examples)()
            row.survived = row.injected - len(crashes)
            row.note = "inputs tried; crashes: " + (crashes[0] if crashes else "0")
            rows.append(row)
    return rows


# How a profile's arrays are damaged (`_file_and_web_targets`): each keeps the file a
# loadable .npz, so the damage reaches the profile's own checks and the reader.
PROFILE_DAMAGE = ("nan", "inf", "huge", "negative", "empty", "flat", "transposed", "text",
                  "integers", "missing", "a byte of the file")


def _damaged_profile(arrays: dict, name: str, damage: str, at: int, raw: bytes) -> bytes:
    import io

    import numpy as np

    if damage == "a byte of the file":
        flipped = bytearray(raw)
        flipped[at % len(flipped)] ^= 1 << (at % 8)
        return bytes(flipped)
    arrays = dict(arrays)
    value = arrays[name]
    if damage == "missing":
        del arrays[name]
    elif damage in ("nan", "inf", "huge", "negative") and value.dtype.kind != "U":
        value = np.array(value, np.float64) if value.size else np.zeros(1)
        flat = value.reshape(-1)
        flat[at % flat.size] = {"nan": np.nan, "inf": np.inf, "huge": 1e300,
                                "negative": -abs(flat[at % flat.size]) - 1}[damage]
        arrays[name] = value
    elif damage == "empty":
        arrays[name] = value[:0] if value.ndim else np.zeros(0)
    elif damage == "flat":
        arrays[name] = value.reshape(-1)
    elif damage == "transposed":
        arrays[name] = value.T
    elif damage == "text":
        arrays[name] = np.array(["x"] * max(1, min(value.size, 3)))
    elif damage == "integers":
        arrays[name] = np.full(value.shape, at % 7, np.int64)
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _file_and_web_targets(folder: Path, stack: contextlib.ExitStack) -> list[tuple]:
    """The profile, image and web-request fuzzers: a damaged profile loaded and read with,
    a damaged image file read and its window read, and any request to the monitor's web
    application (called in process, as uvicorn would call it). Their files go in `folder`;
    the monitor stops with `stack`."""
    import asyncio

    import cv2
    import numpy as np
    from hypothesis import strategies as st

    from controller.monitor.app import create_app
    from controller.monitor.service import MonitorService
    from controller.monitor.store import MonitorStore
    from controller.sim.setup import enrolled_reader
    from controller.surveillance.broker import MemoryBroker
    from vision.decks import synthetic_deck
    from vision.errors import ImageReadError, ProfileError
    from vision.imageio import read_image
    from vision.profile import load_profile, save_profile
    from vision.reader import Reader
    from vision.synth import render_window

    deck = synthetic_deck()
    reader = enrolled_reader(deck)
    window = render_window(deck, "7H")
    base = save_profile(reader.profile, folder / "base.npz")
    raw = base.read_bytes()
    with np.load(base, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}

    def profile_run(damage):
        name, how, at = damage
        path = folder / "damaged.npz"
        path.write_bytes(_damaged_profile(arrays, name, how, at, raw))
        Reader(load_profile(path)).read(window)

    images = {"png": cv2.imencode(".png", window)[1].tobytes(),
              "jpeg": cv2.imencode(".jpg", window)[1].tobytes()}

    def image_run(damage):
        kind, flips, cut = damage
        data = bytearray(images[kind]) if kind in images else bytearray(kind.encode())
        for at, value in flips:
            if data:
                data[at % len(data)] = value
        path = folder / "damaged.img"
        path.write_bytes(bytes(data[:cut]) if cut is not None else bytes(data))
        reader.read(read_image(path))

    broker = MemoryBroker()
    monitor = MonitorService(broker.client("monitor"),
                             MonitorStore(str(folder / "monitor.sqlite"))).start()
    stack.callback(monitor.stop)
    _seed_room(broker)
    app = create_app(monitor)

    def request_run(request):
        method, path, query = request
        if path.rstrip("/") == "/api/stream":
            return  # an event stream never ends: its start is in the tests
        status = asyncio.run(asgi_status(app, method, path, query))
        if status >= 500:
            raise AssertionError(f"{method} {path!r}?{query!r}: {status}")

    segment = st.text(max_size=12)
    paths = st.one_of(
        st.sampled_from(["/", "/api/tables", "/tables/table-1", "/api/tables/table-1",
                         "/api/tables/table-1/anchor", "/api/tables/table-1/shoes/1",
                         "/api/tables/table-1/shoes/1.csv", "/static/room.js"]),
        st.builds(lambda a: f"/tables/{a}", segment),
        st.builds(lambda a: f"/static/{a}", segment),
        st.builds(lambda a: f"/api/tables/{a}", segment),
        st.builds(lambda a: f"/api/tables/{a}/anchor", segment),
        st.builds(lambda a, b: f"/api/tables/{a}/shoes/{b}", segment, segment),
        st.builds(lambda a: "/" + a, st.text(max_size=40)))
    return [
        ("profile (damaged arrays and bytes)",
         st.tuples(st.sampled_from(sorted(arrays)), st.sampled_from(PROFILE_DAMAGE),
                   st.integers(0, 1 << 30)), profile_run, (ProfileError,)),
        ("image file (damaged PNG and JPEG, any bytes)",
         st.tuples(st.sampled_from(["png", "jpeg", "GIF89a", "\x89PNG", ""]),
                   st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)),
                            max_size=6),
                   st.none() | st.integers(0, 4000)), image_run, (ImageReadError,)),
        ("monitor web request",
         st.tuples(st.sampled_from(["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS"]),
                   paths, st.binary(max_size=30)), request_run, ()),
    ]


def _seed_room(broker) -> None:
    """One table's shoe in the monitor's room, so that requests about it reach its data."""
    from controller.game.table import Table
    from controller.surveillance import messages

    table, seq = Table(decks=1, require_no_more_bets=False), 0
    for observation in dealt_until_shoe_end(shuffled_shoe(1, seed=5), 1)[:40]:
        for event in table.apply(observation):
            seq += 1
            broker.client("table-1").publish(
                messages.topic("table-1", "event"),
                messages.encode({"table": "table-1", "seq": seq, "ts": float(seq),
                                 "cause": seq, **event}))


async def asgi_status(app, method: str, path: str, query: bytes) -> int:
    """The status an ASGI `app` answers a request with (an exception propagates)."""
    sent: list[dict] = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path,
             "raw_path": path.encode("utf-8", "surrogateescape"), "query_string": query,
             "root_path": "", "headers": [(b"host", b"localhost")],
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80)}
    await app(scope, receive, send)
    return next(m["status"] for m in sent if m["type"] == "http.response.start")


def _fuzzer(strategy, target, allowed, row: Row, crashes: list[str], examples: int):
    from hypothesis import HealthCheck, given, settings

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(value):
        row.injected += 1
        try:
            target(value)
        except allowed:
            pass
        except Exception as error:  # noqa: BLE001 - what the campaign counts
            crashes.append(f"{type(error).__name__}: {error}"[:120])

    return run


# ---- the report ----------------------------------------------------------------------------

# Fault classes of issue 12 the campaign does not inject (each with why): none now.
NOT_YET: list[str] = []


def report(rows: list[Row], seconds: float, quick: bool, only: list[str] | None = None,
           not_yet: list[str] = NOT_YET) -> str:
    lines = ["# Reliability: the fault campaign", "",
             "Produced by `make faults` (`python -m bench.faults`): every fault class below "
             "injected with fixed seeds into the real code paths. *Survived*: the table went "
             "on as it should (every event exactly once, a fault naming what was really "
             "lost); *lost*: events lost without a word; *doubled*: events journaled or "
             "delivered twice (or a card read as another). Both must be 0: `make faults` "
             "fails otherwise.", "",
             f"Run on {platform.node() or 'this machine'} ({platform.machine()}, Python "
             f"{platform.python_version()}) in {seconds:.0f} s"
             + (" with `--quick` counts" if quick else "")
             + (f"; this run redid only: {', '.join(only)} (`--only`), the other rows come "
                "from earlier runs" if only else "") + ".", "",
             "| fault | injected | survived | lost | doubled | note |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    for row in rows:
        note = row.note.replace("|", "/")
        lines.append(f"| {row.fault} | {row.injected} | {row.survived} | {row.lost} | "
                     f"{row.doubled} | {note} |")
    if not_yet:
        lines += ["", "Not injected by this campaign yet:", ""]
        lines += [f"- {item}" for item in not_yet]
    return "\n".join(lines) + "\n"


def _merged(text: str, fresh: list[Row]) -> list[Row]:
    """The rows of an earlier report, those of the classes run again replaced by `fresh`."""
    def group(fault: str) -> str:
        return fault.split(":")[0].split(",")[0]

    by_group: dict[str, list[Row]] = {}
    for row in fresh:
        by_group.setdefault(group(row.fault), []).append(row)
    rerun, merged = set(by_group), []
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 6 or not cells[1].isdigit():
            continue
        if group(cells[0]) not in rerun:
            merged.append(Row(cells[0], *map(int, cells[1:5]), cells[5]))
        else:  # a class run again: its new rows where its old ones were
            merged += by_group.pop(group(cells[0]), [])
    return merged + [row for rows in by_group.values() for row in rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few of each (minutes, not "
                        "tens of minutes)")
    parser.add_argument("--out", type=Path, default=Path("RELIABILITY.md"))
    parser.add_argument("--only", nargs="+", metavar="CLASS", help="run only these classes "
                        "(power-loss torn-journal disk-full read-only-journal camera "
                        "serial-link broker tampering fuzzing dealer-errors stuck-cards soak); "
                        "their "
                        "rows replace theirs in --out")
    args = parser.parse_args()
    counts = (dict(shoes=1, kills=3, torn=3, full=2, read_only=2, camera=2, link=2, broker=1,
                   fuzz=100, dealer=3, stuck=2, soak=3) if args.quick else
              dict(shoes=10, kills=10, torn=30, full=10, read_only=8, camera=25, link=25,
                   broker=10, fuzz=3000, dealer=20, stuck=10, soak=100))
    console = Console(stderr=True)
    # The faults are the point: the warnings each one logs would bury the figures.
    logging.disable(logging.CRITICAL)
    start = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        steps = [
            ("power loss", lambda: [power_loss_service(counts["shoes"], counts["kills"],
                                                       folder)]),
            ("torn journal", lambda: [torn_journal(counts["torn"], folder)]),
            ("disk full", lambda: [disk_full(counts["full"], folder)]),
            ("read only journal", lambda: read_only_journal(counts["read_only"], folder)),
            ("camera", lambda: [*camera_faults(counts["camera"]),
                                *cards_pushed_back(4 * counts["camera"])]),
            ("serial link", lambda: serial_link(counts["link"])),
            ("broker", lambda: [broker_outages(counts["broker"], folder)]),
            ("tampering", lambda: tampering(folder)),
            ("fuzzing", lambda: fuzzing(counts["fuzz"])),
            ("dealer errors", lambda: dealer_errors(counts["dealer"], folder)),
            ("stuck cards", lambda: [stuck_cards(counts["stuck"], folder)]),
            ("soak", lambda: [soak(counts["soak"], folder)]),
        ]
        chosen = {name.replace("-", " ") for name in args.only or []}
        unknown = chosen - {name for name, _ in steps}
        if unknown:
            parser.error(f"--only: no fault class {', '.join(sorted(unknown))}")
        for name, step in steps:
            if chosen and name not in chosen:
                continue
            with console.status(f"injecting: {name}"):
                began = time.perf_counter()
                made = step()
            rows += made
            console.print(f"{name}: {sum(r.injected for r in made)} injected, "
                          f"{sum(r.survived for r in made)} survived "
                          f"({time.perf_counter() - began:.0f} s)")
    seconds = time.perf_counter() - start
    if chosen and args.out.exists():
        rows = _merged(args.out.read_text(), rows)
    args.out.write_text(report(rows, seconds, args.quick, sorted(chosen) or None))
    table = RichTable(*asdict(rows[0]).keys(), title=f"fault campaign ({seconds:.0f} s)")
    for row in rows:
        table.add_row(*map(str, asdict(row).values()))
    Console().print(table)
    print(f"wrote {args.out}")
    # Exit 1 when anything was lost or doubled (must be 0); a row that did not survive every
    # injection (a card the camera path could not read halts the table: safe, issue 8) is
    # in the report for everyone to read.
    return 1 if any(r.lost or r.doubled for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
