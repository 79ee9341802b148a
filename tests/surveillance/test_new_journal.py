"""A table restarted with a new journal numbers its events from 1 again. Every message names
its journal (`Journal.identity`), so the monitor follows the new one from its first event
instead of dropping its events as repeats of the old one's (found at stop 46: the room
showed the old journal's shoe until the new journal's numbers passed it)."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from controller.journal.store import Journal
from controller.monitor.room import Room
from controller.monitor.store import MonitorStore
from controller.surveillance import messages
from controller.surveillance.broker import MemoryBroker
from tests.surveillance.monitor_rig import MonitorServer, Subscriber, Table
from tests.surveillance.test_anchors import heads
from tests.surveillance.test_monitor import scripted, shoe


def test_a_journal_is_named_by_the_start_of_its_first_records_hash(tmp_path):
    ticks = itertools.count(1_700_000_000)
    with Journal(str(tmp_path / "a.sqlite"), clock=lambda: next(ticks)) as journal:
        assert journal.identity() is None  # nothing written yet
        first = journal.append("meta", {"decks": 1})
        journal.append("event", {"event": "burn", "cards": []})
        assert journal.identity() == first.hash[:16]
        assert messages.JOURNAL_ID.match(journal.identity())
        name = journal.identity()
    with Journal(str(tmp_path / "b.sqlite"), clock=lambda: next(ticks)) as other:
        other.append("meta", {"decks": 1})  # the same settings a second later
        assert other.identity() != name
    with Journal(str(tmp_path / "a.sqlite"), create=False) as again:
        assert again.identity() == name  # read back, as the publisher does


def test_every_message_of_a_table_names_its_journal(tmp_path):
    broker = MemoryBroker()
    room = Subscriber(broker.client("room"))
    table = Table(tmp_path, "t1", broker.client("t1"))
    try:
        table.deal(shoe(5)[:20])
        table.flush()
        with Journal(str(table.path), create=False) as journal:
            name, last = journal.identity(), journal.last_seq
        assert name is not None
        assert {m["journal"] for m in room.messages["t1"]} == {name}
        assert room.state["t1"]["journal"] == name and room.state["t1"]["seq"] == last
    finally:
        table.close()
        room.close()


@pytest.fixture
def monitor(tmp_path):
    broker = MemoryBroker()
    server = MonitorServer(broker.client("monitor"), tmp_path / "monitor.sqlite")
    yield broker, server
    server.close()


def restarted_with_a_new_journal(tmp_path, broker):
    """Table t1 deals two rounds and a half into one journal, stops, and starts again with a
    new journal (another folder) where it deals one round: its events are numbered 1 on
    again, fewer than the old journal's."""
    old = Table(tmp_path / "before", "t1", broker.client("t1"))
    old.deal(scripted("AS 2C 9H 8D 9C 8S 3H 4D 5C 6S 7H KD 2H"))
    old.flush()
    old.close()
    new = Table(tmp_path / "after", "t1", broker.client("t1"))
    new.deal(scripted("AS 2C 9H 8D 9C 8S"))
    new.flush()
    return old, new


def journal_of(table: Table) -> tuple[str, int]:
    with Journal(str(table.path), create=False) as journal:
        return journal.identity(), journal.last_seq


def test_a_table_restarted_with_a_new_journal_is_followed_from_its_first_event(
        monitor, tmp_path):
    broker, server = monitor
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    old, new = restarted_with_a_new_journal(tmp_path, broker)
    (old_name, old_last), (new_name, new_last) = journal_of(old), journal_of(new)
    assert new_last < old_last  # before, every new event was dropped as a repeat
    try:
        assert server.wait_for(lambda: server.get("/api/tables/t1")["journal"]["id"]
                               == new_name
                               and server.get("/api/tables/t1")["last_seq"] == new_last)
        detail = server.get("/api/tables/t1")
        assert [(s["shoe"], s["journal"]) for s in detail["shoes"]] == [
            (1, old_name), (1, new_name)]
        assert [r["player"] for r in detail["current"]["round_list"]] == [["9H", "9C"]]
        assert detail["current"]["rounds"] == 1 and not detail["partial"]
        assert detail["hands"]["player"] == ["9H", "9C"]  # not the old journal's half round
        replaced = detail["journal"]["replaced"]
        assert [(r["journal"], r["last_seq"]) for r in replaced] == [(old_name, old_last)]
        # Each journal's shoe 1 by its journal's name; unnamed, the newest.
        earlier = server.get(f"/api/tables/t1/shoes/1?journal={old_name}")
        assert [r["player"] for r in earlier["round_list"]] == [["9H", "9C"], ["3H", "5C"]]
        assert server.get("/api/tables/t1/shoes/1")["journal"] == new_name
        csv_name = server.get(f"/api/tables/t1/shoes/1.csv?journal={old_name}")
        assert csv_name.count("\n") == 3  # a header and two rounds
        assert server.status_of("/api/tables/t1/shoes/1?journal=nothex") == 400
        assert server.status_of("/api/tables/t1/shoes/1?journal=" + "0" * 16) == 404
    finally:
        new.close()


def test_a_restarted_monitor_shows_both_journals_as_before(tmp_path):
    broker = MemoryBroker()
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    server = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    old, new = restarted_with_a_new_journal(tmp_path, broker)
    new_name, new_last = journal_of(new)
    assert server.wait_for(lambda: server.get("/api/tables/t1")["last_seq"] == new_last
                           and server.get("/api/tables/t1")["journal"]["id"] == new_name)
    before = server.get("/api/tables/t1")
    server.close()
    new.close()
    again = MonitorServer(MemoryBroker().client("monitor"), tmp_path / "m.sqlite")
    try:
        after = again.get("/api/tables/t1")
    finally:
        again.close()
    for key in ("seconds_since_event",):
        before.pop(key), after.pop(key)
    assert after == before


def event(journal: str | None, seq: int, **body) -> dict:
    message = {"table": "t1", "seq": seq, "ts": float(seq), "event": "burn", "cards": [],
               **body}
    return message if journal is None else {**message, "journal": journal}


def test_late_messages_of_a_journal_replaced_are_dropped():
    room = Room()
    one, two = "1" * 16, "2" * 16
    assert all(room.add_event("t1", event(one, seq)) for seq in (1, 2, 3))
    assert room.add_event("t1", event(two, 1))
    assert not room.add_event("t1", event(one, 4))  # late, from the old journal's publisher
    assert not room.set_state("t1", {"table": "t1", "journal": one, "seq": 4})
    assert room.add_event("t1", event(two, 2)) and not room.add_event("t1", event(two, 2))
    view = room.tables["t1"]
    assert view.journal == two and view.last_seq == 2
    assert [e["journal"] for e in view.earlier_journals] == [one]


def test_a_table_that_names_no_journal_yet_is_followed_as_before():
    """A table before stop 47, then upgraded: its journal, named from then on, is the one
    whose events were seen, not a new one."""
    room = Room()
    assert room.add_event("t1", event(None, 1)) and room.add_event("t1", event(None, 2))
    assert not room.add_event("t1", event("1" * 16, 2))  # the same journal: a repeat
    assert room.add_event("t1", event("1" * 16, 3))
    view = room.tables["t1"]
    assert view.earlier_journals == [] and [s.journal for s in view.shoes] == ["1" * 16]


def test_a_signed_journal_replaced_keeps_its_anchor_and_the_new_one_is_not_a_rollback(
        tmp_path):
    signer, head = heads(tmp_path)
    room = Room({"t1": signer.key})
    one, two = "1" * 16, "2" * 16
    room.set_state("t1", {"table": "t1", "journal": one, "seq": 40, "anchor": head(40)})
    room.set_state("t1", {"table": "t1", "journal": two, "seq": 3, "anchor": head(3)})
    view = room.tables["t1"]
    summary = view.summary()["journal"]
    assert summary["state"] == "signed" and summary["signed_up_to"] == 3
    assert [(r["journal"], r["state"], r["signed_up_to"]) for r in summary["replaced"]] == [
        (one, "signed", 40)]
    assert view.anchor(one)["seq"] == 40 and view.anchor()["seq"] == 3
    # Within one journal, a head that goes back is still a rollback.
    room.set_state("t1", {"table": "t1", "journal": two, "seq": 2, "anchor": head(2)})
    assert view.summary()["journal"]["state"] == "broken"


def test_a_history_file_of_a_monitor_before_journals_is_kept(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE events (table_id TEXT NOT NULL, seq INTEGER NOT NULL,
                                 body TEXT NOT NULL, PRIMARY KEY (table_id, seq));
            CREATE TABLE tables (table_id TEXT PRIMARY KEY, status TEXT, state TEXT);
        """)
        for seq in (2, 1):
            db.execute("INSERT INTO events VALUES (?, ?, ?)",
                       ("t1", seq, messages.encode(event(None, seq)).decode()))
    store = MonitorStore(str(path))
    try:
        assert [m["seq"] for _, m in store.events()] == [1, 2]
        assert not store.add_event("t1", None, 2, messages.encode(event(None, 2)))
        assert store.add_event("t1", "1" * 16, 1, messages.encode(event("1" * 16, 1)))
        assert [(m["seq"], m.get("journal")) for _, m in store.events()] == [
            (1, None), (2, None), (1, "1" * 16)]
    finally:
        store.close()
