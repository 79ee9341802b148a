"""Where `sabot simulate` and `sabot playback` journal without --journal: a new temporary
folder, removed if nothing was journaled, kept and named if a run that journaled fails."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from controller.cli._journal_path import journal_path


@pytest.fixture
def temp(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_given_journal_is_used_as_it_is_and_nothing_is_made(temp, tmp_path):
    given = str(tmp_path / "j.sqlite")
    with journal_path(given, "sabot-", "simulate.sqlite") as path:
        assert path == given
    assert list(temp.iterdir()) == []


def test_a_given_journal_in_no_folder_is_refused_before_anything_starts(temp):
    """The user's mistake, exit 2 (`InputError`): the journal's own error is for storage
    that fails under a running table."""
    from controller.errors import InputError

    with pytest.raises(InputError, match="--journal /somewhere/j.sqlite: no such directory "
                                         "/somewhere"), \
            journal_path("/somewhere/j.sqlite", "sabot-", "simulate.sqlite"):
        pass
    assert list(temp.iterdir()) == []


def test_a_folder_with_nothing_journaled_is_removed_even_when_the_run_fails(temp, capsys):
    with journal_path(None, "sabot-", "simulate.sqlite") as path:
        assert path.startswith(str(temp / "sabot-")) and path.endswith("/simulate.sqlite")
    assert list(temp.iterdir()) == []
    with pytest.raises(ValueError), journal_path(None, "sabot-", "simulate.sqlite"):
        raise ValueError("refused")
    assert list(temp.iterdir()) == []
    assert capsys.readouterr().err == ""


def test_a_journal_is_kept_and_named_when_the_run_that_wrote_it_fails(temp, capsys):
    with pytest.raises(KeyboardInterrupt), \
            journal_path(None, "sabot-playback-", "playback.sqlite") as path:
        Path(path).write_bytes(b"records")
        raise KeyboardInterrupt
    assert Path(path).read_bytes() == b"records"
    assert capsys.readouterr().err == f"sabot: what was journaled is kept in {path}\n"
    with journal_path(None, "sabot-", "simulate.sqlite") as done:
        Path(done).write_bytes(b"")
    assert Path(done).is_file() and capsys.readouterr().err == ""  # the run names it
