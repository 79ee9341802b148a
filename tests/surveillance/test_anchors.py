"""Issue 12: the journal's signed heads published with every state, kept by the monitor, and
what a journal is then checked against (docs/security.md)."""

from __future__ import annotations

import sqlite3
from dataclasses import asdict

import pytest

from controller.journal.signing import Anchor, load_or_create_signer, load_public_key
from controller.journal.verify import verify
from controller.monitor.journals import Evidence
from controller.monitor.room import Room
from controller.surveillance import messages
from controller.surveillance.broker import MemoryBroker
from tests.surveillance.monitor_rig import MonitorServer, Table
from tests.surveillance.test_monitor import shoe


@pytest.fixture
def signed_room(tmp_path):
    broker = MemoryBroker()
    signer = load_or_create_signer(tmp_path / "t1.key")
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "monitor.sqlite",
                            keys={"t1": signer.key})
    table = Table(tmp_path, "t1", broker.client("t1"), signer=signer)
    yield monitor, table, signer
    table.close()
    monitor.close()


def test_the_monitor_keeps_the_tables_signed_head_and_it_pins_the_journal(signed_room, tmp_path):
    monitor, table, _ = signed_room
    table.deal(shoe(3)[:60])
    table.flush()
    last = table.service.journal.last_seq
    assert monitor.wait_for(lambda: monitor.get("/api/tables/t1")["journal"]["signed_up_to"]
                            == last)
    assert monitor.get("/api/tables/t1")["journal"]["state"] == "signed"
    anchor_file = tmp_path / "t1.anchor"
    anchor_file.write_text(messages.encode(monitor.get("/api/tables/t1/anchor")).decode())
    anchor = Anchor.load(anchor_file)
    assert (anchor.table, anchor.journal) == ("t1", table.service.journal.identity())
    public = load_public_key(tmp_path / "t1.key.pub")
    assert anchor.seq == last and verify(str(table.path), key=public, anchor=anchor).ok
    table.close()
    with sqlite3.connect(table.path) as db:  # the technician cuts the last round off
        cut = db.execute("SELECT max(seq) FROM signatures WHERE seq < ?", (last - 5,)).fetchone()[0]
        db.execute("DELETE FROM records WHERE seq > ?", (cut,))
        db.execute("DELETE FROM signatures WHERE seq > ?", (cut,))
    assert verify(str(table.path), key=public).ok  # consistent in itself
    verdict = verify(str(table.path), key=public, anchor=anchor)
    assert not verdict.ok and "records were cut off" in verdict.message


def test_an_unsigned_table_has_no_anchor(tmp_path):
    broker = MemoryBroker()
    monitor = MonitorServer(broker.client("monitor"), tmp_path / "monitor.sqlite")
    table = Table(tmp_path, "plain", broker.client("plain"))
    try:
        table.deal(shoe(4)[:10])
        table.flush()
        assert monitor.wait_for(lambda: any(t["table"] == "plain"
                                            for t in monitor.get("/api/tables")))
        assert monitor.get("/api/tables/plain")["journal"]["state"] == "unsigned"
        assert monitor.status_of("/api/tables/plain/anchor") == 404
    finally:
        table.close()
        monitor.close()


def heads(tmp_path, name="k.key"):
    signer = load_or_create_signer(tmp_path / name)

    def head(seq, digest="ab" * 32):
        return asdict(signer.sign(seq, digest))

    return signer, head


def test_the_evidence_breaks_on_a_head_that_goes_back_or_changes_and_stays_broken(tmp_path):
    signer, head = heads(tmp_path)
    evidence = Evidence()
    evidence.check(head(10), signer.key)
    evidence.check(head(12), signer.key)
    assert evidence.summary() == {"state": "signed", "signed_up_to": 12, "problem": ""}
    evidence.check(head(11), signer.key)
    assert evidence.state == "broken" and "went back from record 12 to 11" in evidence.problem
    evidence.check(head(20), signer.key)  # a journal cut short does not heal
    assert evidence.state == "broken" and evidence.anchor["seq"] == 12


@pytest.mark.parametrize("change, expected", [
    (lambda h, other: {**h, "signature": "00" * 64}, "is not validly signed"),
    (lambda h, other: other(13), "the signing key changed at record 13"),
    (lambda h, other: {**h, "hash": "cd" * 32, "signature": h["signature"]},
     "is not validly signed"),
    (lambda h, other: None, "stopped signing its journal after record 12"),
])
def test_the_evidence_names_what_is_wrong_with_a_head(tmp_path, change, expected):
    signer, head = heads(tmp_path)
    _, other = heads(tmp_path, "other.key")
    evidence = Evidence()
    evidence.check(head(12), None)
    evidence.check(change(head(13), other), None)
    assert evidence.state == "broken" and expected in evidence.problem


def test_a_head_by_another_key_than_the_tables_is_broken_from_the_first(tmp_path):
    signer, _ = heads(tmp_path)
    _, stranger = heads(tmp_path, "stranger.key")
    room = Room({"t1": signer.key})
    room.set_state("t1", {"table": "t1", "seq": 5, "anchor": stranger(5)})
    assert room.tables["t1"].summary()["journal"]["state"] == "broken"
    assert "not the table's" in room.tables["t1"].evidence.problem


def test_a_state_with_a_malformed_anchor_is_not_a_shoes(tmp_path):
    _, head = heads(tmp_path)
    good = {"table": "t1", "seq": 5, "anchor": head(5)}
    assert messages.decode("sabot/t1/state", messages.encode(good))[2] == good
    bad = {**good, "anchor": {"seq": "5"}}
    with pytest.raises(messages.MessageError, match="anchor"):
        messages.decode("sabot/t1/state", messages.encode(bad))
