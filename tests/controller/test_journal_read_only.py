"""A journal that cannot be written (issue 12, storage): its folder or file read-only before
the start, or its storage turning read-only in the middle of a shoe, as an SD card does when
it fails (the kernel remounts it read-only). The table halts with one line naming the journal
and saying why, no traceback, a non-zero exit; nothing is half-written; once the storage is
writable again a restart resumes to exactly the events of an uninterrupted run.

No mounting here (the fault campaign, `bench.faults --only read-only-journal`, remounts real
file systems): the folder is made read-only by its permissions, for a child they bind (the
suite may run as root, whom permissions do not stop), and the storage's failure mid-shoe is
SQLite's own error injected into the journal's writes."""

import errno
import functools
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench.kills import events_of
from controller.cli import main
from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.store import Journal
from controller.journal.verify import verify

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]


def one_deck_shoe(folder: Path) -> Path:
    script = folder / "shoe.txt"
    script.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=3), 1)))
    return script


@functools.cache
def _user_namespaces() -> bool:
    try:
        return subprocess.run(["unshare", "--user", "true"], timeout=10).returncode == 0
    except OSError:
        return False


def _permissions_bind() -> tuple[list[str], int | None]:
    """How to run a child that file permissions bind, and who must own its files. Root in
    a user namespace of its own keeps its uid but loses its power over files (the owner's
    bits then apply); where there are none, `nobody` (whose python must be reachable)."""
    if os.geteuid() != 0:
        return [], None
    if _user_namespaces():
        return ["unshare", "--user"], None
    return [], NOBODY


def deal_as_another_user(*args) -> subprocess.CompletedProcess:
    """`sabot deal` as a user that file permissions bind."""
    return sabot_as_another_user("deal", *args)


def sabot_as_another_user(command: str, *args) -> subprocess.CompletedProcess:
    """`sabot COMMAND` as a user that file permissions bind."""
    prefix, owner = _permissions_bind()

    def drop() -> None:
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    return subprocess.run([*prefix, sys.executable, "-m", "controller.cli", command,
                           *map(str, args)], capture_output=True, text=True, cwd=REPO,
                          timeout=60, preexec_fn=drop if owner is not None else None)


@pytest.fixture
def open_folder():
    """A folder that `nobody` can reach too (pytest's tmp_path is owner-only)."""
    folder = Path(tempfile.mkdtemp(prefix="sabot-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder)


def hand_over(path: Path) -> None:
    """`path` to the user `deal_as_another_user` runs as, when that is another uid."""
    _, owner = _permissions_bind()
    if owner is not None:
        os.chown(path, owner, owner)


def test_a_new_journal_in_a_read_only_folder_is_refused_in_one_line_naming_it(open_folder):
    script = one_deck_shoe(open_folder)
    script.chmod(0o644)
    folder = open_folder / "journal"
    folder.mkdir()
    folder.chmod(0o555)  # root's, not writable by the other user
    journal = folder / "table.db"
    run = deal_as_another_user(script, "--decks", "1", "--journal", journal)
    assert run.returncode != 0
    # It used to be "[Errno 13] Permission denied: '.../table.db.lock'": the lock file, not
    # the journal, and nothing saying whose folder it is.
    assert run.stderr.splitlines() == [
        f"sabot deal: {journal}: cannot open the journal for writing: its folder is not "
        "writable by this user (Permission denied)"], run.stderr
    assert not journal.exists()


def test_a_journal_made_read_only_between_two_runs_is_refused_then_resumed(open_folder):
    script = one_deck_shoe(open_folder)
    script.chmod(0o644)
    full = script.read_text()
    script.write_text(" ".join(full.split()[:20]) + "\n")  # the start of the shoe, stopped
    folder = open_folder / "journal"
    folder.mkdir()
    hand_over(folder)
    journal = folder / "table.db"
    # Exit 3: the start of the shoe ends in the middle of a round.
    assert deal_as_another_user(script, "--decks", "1", "--journal", journal).returncode == 3
    script.write_text(full)
    folder.chmod(0o555)
    for file in folder.iterdir():
        file.chmod(0o444)

    run = deal_as_another_user(script, "--decks", "1", "--journal", journal)
    assert run.returncode != 0
    # It used to give SQLite's words alone ("attempt to write a readonly database" from a
    # reader: SQLite cannot make a WAL journal's companion files beside it). The journal is
    # read now (a closed one opens without them), and the write is what is refused.
    (line,) = run.stderr.splitlines()
    assert line == (f"sabot deal: {journal}: cannot open the journal for writing: its folder "
                    "is not writable by this user (Permission denied)"), line
    folder.chmod(0o755)
    for file in folder.iterdir():
        file.chmod(0o644)
    assert verify(str(journal)).ok

    resumed = deal_as_another_user(script, "--decks", "1", "--journal", journal)
    assert resumed.returncode == 0, resumed.stderr
    reference = open_folder / "reference.db"
    assert main(["deal", str(script), "--decks", "1", "--journal", str(reference)]) == 0
    assert events_of(journal) == events_of(reference)


@pytest.mark.parametrize("sqlite_says", ["disk I/O error",
                                         "attempt to write a readonly database"])
def test_storage_turning_read_only_mid_shoe_halts_in_one_line_and_resumes(
        tmp_path, capsys, mocker, sqlite_says):
    """An SD card failing: the kernel remounts it read-only; SQLite's next write fails (EIO
    from the file system, or SQLite's own read-only error)."""
    script, journal = one_deck_shoe(tmp_path), tmp_path / "table.db"
    writable = Journal._transaction

    def storage_gone_after_twenty_commits(self):
        if self.commits >= 20:
            raise sqlite3.OperationalError(sqlite_says)
        return writable(self)

    mocker.patch.object(Journal, "_transaction", storage_gone_after_twenty_commits)
    # What any write beside the journal now gets from the kernel.
    probe = mocker.patch("tempfile.TemporaryFile",
                         side_effect=OSError(errno.EROFS, "Read-only file system"))
    status = main(["deal", str(script), "--decks", "1", "--journal", str(journal)])
    err = capsys.readouterr().err
    mocker.stopall()
    assert status != 0
    # It used to end at "cannot write the journal (disk I/O error)": nothing said the card
    # had gone read-only rather than bad.
    assert err.splitlines() == [f"sabot deal: {journal}: cannot write the journal: its "
                                f"storage is read-only ({sqlite_says})"], err
    assert probe.called  # the cause was asked of the file system, not guessed
    verdict = verify(str(journal))
    assert verdict.ok, verdict.message  # nothing half-written

    assert main(["deal", str(script), "--decks", "1", "--journal", str(journal)]) == 0
    reference = tmp_path / "reference.db"
    assert main(["deal", str(script), "--decks", "1", "--journal", str(reference)]) == 0
    assert events_of(journal) == events_of(reference)


def _journal_in_a_folder_only_its_owner_writes(open_folder: Path) -> Path:
    folder = open_folder / "journal"
    folder.mkdir()
    journal = folder / "table.db"
    assert main(["deal", str(one_deck_shoe(open_folder)), "--decks", "1", "--journal",
                 str(journal)]) == 0
    for file in folder.iterdir():
        file.chmod(0o644)  # readable by all, as a surveillance user's group would be
    folder.chmod(0o555)
    return journal


def test_a_reader_without_write_access_verifies_replays_and_reports_a_closed_journal(
        open_folder):
    """Issue 12: `verify`, `replay` and `report` needed write access to the journal's folder
    (SQLite makes a WAL journal's index beside it), so a surveillance user could not verify a
    stopped service's journal, nor anyone a copy on read-only media."""
    journal = _journal_in_a_folder_only_its_owner_writes(open_folder)
    verified = sabot_as_another_user("verify", journal)
    assert verified.returncode == 0, verified.stderr
    assert "chain intact, replay matches" in verified.stdout
    replayed = sabot_as_another_user("replay", journal)
    assert replayed.returncode == 0, replayed.stderr
    page = open_folder / "report.html"
    reported = sabot_as_another_user("report", journal, "--html", page)
    assert reported.returncode == 0 and page.stat().st_size > 0, reported.stderr
    assert sorted(f.name for f in journal.parent.iterdir()) == ["table.db", "table.db.lock"]


def test_a_journal_with_records_left_in_its_log_is_refused_saying_how_to_read_it(
        open_folder):
    """A copy of a journal a power cut left (its newest records still in PATH-wal, no index)
    cannot be read without write access beside it: one line that says so, not SQLite's."""
    journal = _journal_in_a_folder_only_its_owner_writes(open_folder)
    journal.parent.chmod(0o755)
    writer = Journal(str(journal))  # a service that has not closed it: records in the log
    writer.append("meta", {"note": "newest"})
    log = Path(f"{journal}-wal")
    copy = open_folder / "copy"
    copy.mkdir()
    for file in (journal, log):
        shutil.copy(file, copy / file.name)
    writer.close()
    for file in copy.iterdir():
        file.chmod(0o644)
    copy.chmod(0o555)
    run = sabot_as_another_user("verify", copy / "table.db")
    assert run.returncode != 0
    (line,) = run.stderr.splitlines()
    assert line == (f"sabot verify: {copy / 'table.db'}: cannot read the journal here (its "
                    "folder is not writable by this user): its newest records are still in "
                    f"{copy / 'table.db'}-wal, which SQLite reads only with write access "
                    "beside it; copy the journal with its -wal file to a writable folder, or "
                    "read it as the service's user"), line
