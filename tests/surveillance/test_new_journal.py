"""A table restarted with a new journal numbers its events from 1 again. Every message names
its journal (`Journal.identity`), so the monitor follows the new one from its first event
instead of dropping its events as repeats of the old one's (found at stop 46: the room
showed the old journal's shoe until the new journal's numbers passed it)."""

from __future__ import annotations

import itertools
import sqlite3

import pytest

from controller.journal.signing import load_or_create_signer
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


def restarted_with_a_new_journal(tmp_path, broker, *, signer=None):
    """Table t1 deals two rounds and a half into one journal (one deck), stops, and starts
    again with a new journal (another folder, eight decks) where it deals one round: its
    events are numbered 1 on again, fewer than the old journal's."""
    (tmp_path / "before").mkdir()
    (tmp_path / "after").mkdir()
    old = Table(tmp_path / "before", "t1", broker.client("t1"), signer=signer)
    old.deal(scripted("AS 2C 9H 8D 9C 8S 3H 4D 5C 6S 7H KD 2H"))
    old.flush()
    old.close()
    new = Table(tmp_path / "after", "t1", broker.client("t1"), decks=8, signer=signer)
    new.deal(scripted("AS 2C 9H 8D 9C 8S"))
    new.flush()
    return old, new


def journal_of(table: Table) -> tuple[str, int]:
    with Journal(str(table.path), create=False) as journal:
        return journal.identity(), journal.last_seq


def test_a_table_restarted_with_a_new_journal_is_followed_from_its_first_event(
        monitor, tmp_path):
    broker, server = monitor
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
        assert detail["shoes"][0]["ended"] is not None and detail["shoes"][1]["ended"] is None
        assert [r["player"] for r in detail["current"]["round_list"]] == [["9H", "9C"]]
        assert detail["current"]["rounds"] == 1 and not detail["partial"]
        assert detail["hands"]["player"] == ["9H", "9C"]  # not the old journal's half round
        replaced = detail["journal"]["replaced"]
        assert [(r["journal"], r["last_seq"]) for r in replaced] == [(old_name, old_last)]
        assert replaced[0]["left"] == detail["shoes"][0]["ended"]
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


def test_a_restarted_monitor_shows_both_journals_as_before_with_their_anchors(tmp_path):
    """Each journal's last state is kept: the old journal's signed head (for `sabot verify
    --anchor` of it) and its decks (its shoe's cards left) survive a restart of the
    monitor."""
    broker = MemoryBroker()
    signer = load_or_create_signer(tmp_path / "t1.key")
    server = MonitorServer(broker.client("monitor"), tmp_path / "m.sqlite")
    old, new = restarted_with_a_new_journal(tmp_path, broker, signer=signer)
    (old_name, old_last), (new_name, new_last) = journal_of(old), journal_of(new)
    assert server.wait_for(lambda: server.get("/api/tables/t1")["journal"]["signed_up_to"]
                           == new_last
                           and server.get("/api/tables/t1")["journal"]["id"] == new_name)
    before = server.get("/api/tables/t1")
    old_anchor = server.get(f"/api/tables/t1/anchor?journal={old_name}")
    assert old_anchor["seq"] == old_last
    assert before["journal"]["replaced"][0]["signed_up_to"] == old_last
    old_shoe = server.get(f"/api/tables/t1/shoes/1?journal={old_name}")
    assert dict(old_shoe["tally"]["cards_left_by_rank"])["9"] == 4 - 2  # one deck
    server.close()
    new.close()
    again = MonitorServer(MemoryBroker().client("monitor"), tmp_path / "m.sqlite")
    try:
        after = again.get("/api/tables/t1")
        assert again.get(f"/api/tables/t1/anchor?journal={old_name}") == old_anchor
        assert again.get(f"/api/tables/t1/shoes/1?journal={old_name}") == old_shoe
    finally:
        again.close()
    for key in ("seconds_since_event",):
        before.pop(key), after.pop(key)
    assert after == before


def event(journal: str | None, seq: int, ts: float, **body) -> dict:
    message = {"table": "t1", "seq": seq, "ts": ts, "event": "burn", "cards": ["AS"],
               **body}
    return message if journal is None else {**message, "journal": journal}


ONE, TWO = "1" * 16, "2" * 16


def test_a_late_message_of_the_journal_left_goes_to_its_own_shoe():
    """MQTT keeps no order across topics or shared subscriptions: a late event of the
    journal the table left is that journal's, told by its time, and does not take the
    table back."""
    room = Room()
    assert all(room.add_event("t1", event(ONE, seq, 100.0 + seq)) for seq in (1, 2, 3))
    room.add_event("t1", event(ONE, 4, 104.0, event="lamps", on=["fault"]))
    assert room.add_event("t1", event(TWO, 1, 200.0))
    view = room.tables["t1"]
    assert view.journal == TWO and view.lamps == []  # the old table's lamps are not lit
    assert room.add_event("t1", event(ONE, 5, 105.0, event="fault", reason="late"))
    assert not room.add_event("t1", event(ONE, 5, 105.0))  # a repeat
    assert view.journal == TWO and view.open_faults == []
    old = view.tracks[ONE]
    assert old.last_seq == 5 and old.left == 200.0
    assert [(s.journal, len(s.notes)) for s in view.shoes] == [(ONE, 1), (TWO, 0)]
    assert view.shoes[0].ended == 200.0
    room.set_state("t1", {"table": "t1", "journal": ONE, "seq": 5, "ts": 106.0})
    assert view.journal == TWO  # an old state, stored for its journal only
    assert view.tracks[ONE].state["seq"] == 5 and view.state is None
    # A journal heard of only late: its first shoe goes before the followed journal's.
    room.add_event("t1", event(TWO, 2, 201.0, event="new_shoe", shoe=2))
    room.add_event("t1", event(TWO, 3, 202.0))
    assert room.add_event("t1", event("3" * 16, 1, 150.0))
    assert [(s.journal, s.number) for s in view.shoes] == [
        (ONE, 1), ("3" * 16, 1), (TWO, 1), (TWO, 2)]
    assert view.journal == TWO


def test_a_table_back_on_its_old_journal_is_followed_there():
    room = Room()
    for seq in (1, 2, 3):
        room.add_event("t1", event(ONE, seq, 100.0 + seq))
    room.add_event("t1", event(TWO, 1, 200.0))
    assert room.add_event("t1", event(ONE, 4, 300.0))
    view = room.tables["t1"]
    assert view.journal == ONE and view.last_seq == 4
    assert [s.journal for s in view.shoes] == [TWO, ONE]  # its shoe goes on, in play
    assert view.shoe.ended is None and view.shoes[0].ended == 300.0


def test_an_old_number_with_a_later_time_says_the_journal_was_cut_back():
    """A repeat carries its message's own time; a journal cut back and written on sends
    new records under old numbers, signed or not."""
    room = Room()
    for seq in range(1, 6):
        room.add_event("t1", event(ONE, seq, 100.0 + seq))
    assert not room.add_event("t1", event(ONE, 3, 103.0))  # a repeat: nothing said
    assert room.tables["t1"].summary()["journal"]["state"] == "unsigned"
    assert not room.add_event("t1", event(ONE, 3, 300.0))
    journal = room.tables["t1"].summary()["journal"]
    assert journal["state"] == "broken"
    assert "record 3 came again with a later time, after record 5" in journal["problem"]


def test_a_table_that_names_no_journal_yet_is_followed_as_before():
    """A table before stop 47, then upgraded: its journal, named from then on, is the one
    whose events were seen, not a new one; its repeats, now named, are still repeats."""
    room = Room()
    assert room.add_event("t1", event(None, 1, 1.0)) and room.add_event("t1", event(None, 2, 2.0))
    assert not room.add_event("t1", event(ONE, 2, 2.0))
    assert room.add_event("t1", event(ONE, 3, 3.0))
    view = room.tables["t1"]
    assert view.journal == ONE and list(view.tracks) == [ONE]
    assert [s.journal for s in view.shoes] == [ONE]


def test_a_table_upgraded_with_a_new_journal_at_once_is_followed_on_it():
    room = Room()
    for seq in range(1, 11):
        room.add_event("t1", event(None, seq, float(seq)))
    assert room.add_event("t1", event(TWO, 1, 50.0))  # seq 1 again, later: a new journal
    view = room.tables["t1"]
    assert view.journal == TWO and view.last_seq == 1
    assert [(r["journal"], r["last_seq"]) for r in view.summary()["journal"]["replaced"]] == [
        (None, 10)]


def test_a_signed_journal_replaced_keeps_its_anchor_and_the_new_one_is_not_a_rollback(
        tmp_path):
    signer, head = heads(tmp_path)
    room = Room({"t1": signer.key})
    room.set_state("t1", {"table": "t1", "journal": ONE, "seq": 40, "ts": 100.0,
                          "anchor": head(40)})
    room.set_state("t1", {"table": "t1", "journal": TWO, "seq": 3, "ts": 200.0,
                          "anchor": head(3)})
    view = room.tables["t1"]
    summary = view.summary()["journal"]
    assert summary["state"] == "signed" and summary["signed_up_to"] == 3
    assert [(r["journal"], r["state"], r["signed_up_to"]) for r in summary["replaced"]] == [
        (ONE, "signed", 40)]
    assert view.anchor(ONE)["seq"] == 40 and view.anchor()["seq"] == 3
    # Within one journal, a head that goes back is still a rollback.
    room.set_state("t1", {"table": "t1", "journal": TWO, "seq": 2, "ts": 201.0,
                          "anchor": head(2)})
    assert view.summary()["journal"]["state"] == "broken"


def test_a_new_journal_signed_by_another_key_is_broken_without_the_tables_key(tmp_path):
    """Without `--keys`, a journal switch was a way to change signing keys unseen."""
    _, head = heads(tmp_path)
    _, other = heads(tmp_path, "other.key")
    room = Room()
    room.set_state("t1", {"table": "t1", "journal": ONE, "seq": 40, "ts": 100.0,
                          "anchor": head(40)})
    room.set_state("t1", {"table": "t1", "journal": TWO, "seq": 3, "ts": 200.0,
                          "anchor": other(3)})
    journal = room.tables["t1"].summary()["journal"]
    assert journal["state"] == "broken"
    assert "not the key of the journal it replaced" in journal["problem"]


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
                       ("t1", seq, messages.encode(event(None, seq, float(seq))).decode()))
    store = MonitorStore(str(path))
    try:
        assert [m["seq"] for _, m in store.events()] == [1, 2]
        assert not store.add_event("t1", None, 2, messages.encode(event(None, 2, 2.0)))
        assert store.add_event("t1", ONE, 1, messages.encode(event(ONE, 1, 3.0)))
        assert [(m["seq"], m.get("journal")) for _, m in store.events()] == [
            (1, None), (2, None), (1, ONE)]
    finally:
        store.close()
