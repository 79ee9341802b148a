"""One assembly for `sabot run` and `sabot simulate` (issue 9): what it builds, and that a
failed start leaves nothing running and nothing open."""

from __future__ import annotations

import threading

import pytest

from controller.errors import JournalError
from controller.game import observations as obs
from controller.journal.store import Journal
from controller.service.assembly import Drivers, TableAssembly
from controller.service.config import DEFAULT_BUTTON_PINS, DEFAULT_LAMP_PINS
from hardware.panel import open_panel

SETTINGS = {"decks": 8, "style": "A", "require_no_more_bets": False}


class EndedCamera:
    """A recording that has ended: the camera loop flushes the tracker and returns."""

    status = "ok"

    def __init__(self):
        self.closed = False

    def read(self):
        return None

    def close(self):
        self.closed = True


class NoReader:
    def read(self, image):
        raise AssertionError("no frame is read in these tests")


@pytest.fixture
def panel():
    panel = open_panel({"backend": "fake", "lamps": DEFAULT_LAMP_PINS,
                        "buttons": DEFAULT_BUTTON_PINS})
    yield panel
    panel.close()


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def test_the_table_journals_applies_and_lights_through_one_pipeline(tmp_path, panel):
    camera = EndedCamera()
    drivers = Drivers(panel=panel, camera=camera, reader=NoReader())
    with TableAssembly(SETTINGS, str(tmp_path / "j.db"), drivers) as table:
        for code in ("AS", "2C", "2H", "3D", "4H", "5D"):  # a burn of one, then a round
            ticket = table.pipeline.submit(obs.Card(code))
        assert table.pipeline.wait_for(ticket)
        assert table.lamps.shown == {"player_stand", "banker_stand", "banker_win"}
    assert camera.closed and table.threads_alive == []
    with Journal(str(tmp_path / "j.db")) as journal:
        kinds = [r.kind for r in journal.records()]
    assert kinds.count("observation") == 6


def test_a_start_that_fails_stops_what_had_started_and_closes_the_journal(tmp_path, panel,
                                                                          mocker):
    camera = EndedCamera()
    before = _threads()
    table = TableAssembly(SETTINGS, str(tmp_path / "j.db"),
                          Drivers(panel=panel, camera=camera, reader=NoReader()))
    mocker.patch.object(table.runtime, "start", side_effect=OSError("camera gone"))
    with pytest.raises(OSError, match="camera gone"):
        table.start()
    assert table.threads_alive == [] and _threads() <= before
    assert camera.closed
    Journal(str(tmp_path / "j.db")).close()  # the lock was released: it opens again


def test_a_journal_that_refuses_closes_the_camera_and_starts_nothing(tmp_path, panel):
    path = str(tmp_path / "j.db")
    TableAssembly({**SETTINGS, "decks": 6}, path,
                  Drivers(panel=panel, camera=EndedCamera(), reader=NoReader())).close()
    camera = EndedCamera()
    before = _threads()
    with pytest.raises(JournalError, match="decks=6"):
        TableAssembly(SETTINGS, path, Drivers(panel=panel, camera=camera, reader=NoReader()))
    assert camera.closed and _threads() <= before
