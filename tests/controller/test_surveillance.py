"""Surveillance publishing (issue 10) against the in-process broker: the journal is the outbox,
every event arrives (exactly once without outages, at least once and complete across them),
the retained state is the table's, the table id is journaled and carried."""

from __future__ import annotations

import json

import pytest

from controller.errors import ConfigError, InputError, JournalError
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.replay import table_id
from controller.journal.store import Journal
from controller.service.config import validate
from controller.service.table_service import TableService
from controller.surveillance import messages
from controller.surveillance.broker import (
    MemoryBroker,
    parse_broker_url,
    topic_matches,
)
from controller.surveillance.publisher import Publisher
from tests.surveillance.monitor_rig import Subscriber
from tests.surveillance.waiting import wait_until

SETTINGS = {"decks": 1, "style": "A", "require_no_more_bets": False}


def Room(broker: MemoryBroker) -> Subscriber:
    return Subscriber(broker.client("room"))


def journal_events(path) -> list[tuple[int, dict]]:
    with Journal(str(path), create=False) as journal:
        return [(r.seq, r.body) for r in journal.records() if r.kind == "event"]


def one_deck_shoe(seed: int = 4):
    return dealt_until_shoe_end(shuffled_shoe(1, seed=seed), 1)


def service_for(path, table: str = "t1") -> TableService:
    service = TableService(Journal(str(path)), SETTINGS, table_id=table)
    service.recover()
    return service


def test_every_event_is_published_once_in_journal_order_with_seq_ts_and_table(tmp_path):
    broker = MemoryBroker()
    room = Room(broker)
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    publisher = Publisher(str(path), "t1", broker.client("t1"), poll=0.01)
    service._sinks.append(publisher.sink)
    publisher.start()
    for observation in one_deck_shoe():
        service.handle(observation)
    assert publisher.flush(10)
    publisher.stop()
    service.journal.close()
    expected = journal_events(path)
    assert room.seqs("t1") == [seq for seq, _ in expected]  # once each, in order
    for message, (seq, body) in zip(room.messages["t1"], expected, strict=True):
        assert message["seq"] == seq and message["table"] == "t1"
        assert {k: v for k, v in message.items() if k not in messages.ENVELOPE} == body
        assert message["ts"] > 1e9
    assert room.status["t1"] == "offline"  # a clean stop says so


def test_retained_state_is_the_tables_own(tmp_path):
    broker = MemoryBroker()
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    publisher = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    service._sinks.append(publisher.sink)
    for observation in one_deck_shoe()[:40]:
        service.handle(observation)
    assert publisher.flush(10)
    assert wait_until(lambda: json.loads(broker.retained["sabot/t1/state"])["seq"]
                      == service.journal.last_seq, 5)
    state = json.loads(broker.retained["sabot/t1/state"])
    snapshot = service.table.state.snapshot()
    assert {k: state[k] for k in snapshot} == json.loads(json.dumps(snapshot))
    assert state["lamps"] == sorted(service.table.lamps())
    rounds = [b for _, b in journal_events(path) if b["event"] == "round"]
    tally = state["tally"]
    assert tally["banker"] + tally["player"] + tally["tie"] + tally["void"] == len(rounds)
    assert tally["results"] == "".join({"banker": "B", "player": "P", "tie": "T"}[r["result"]]
                                       for r in rounds if not r["void"])
    assert broker.retained["sabot/t1/status"] == b"online"
    publisher.stop()
    service.journal.close()


def test_a_broker_outage_loses_nothing_and_the_table_keeps_dealing(tmp_path):
    broker = MemoryBroker()
    room = Room(broker)
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    publisher = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    service._sinks.append(publisher.sink)
    shoe = one_deck_shoe()
    for observation in shoe[:15]:
        service.handle(observation)
    assert publisher.flush(10)
    broker.go_down()
    for observation in shoe[15:30]:  # the table does not wait for the broker
        service.handle(observation)
    broker.come_up()
    for observation in shoe[30:]:
        service.handle(observation)
    assert publisher.flush(10)
    publisher.stop()
    service.journal.close()
    assert sorted(set(room.seqs("t1"))) == [seq for seq, _ in journal_events(path)]


def test_a_restarted_publisher_resumes_where_the_broker_acknowledged(tmp_path):
    broker = MemoryBroker()
    room = Room(broker)
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    shoe = one_deck_shoe()
    first = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    service._sinks.append(first.sink)
    for observation in shoe[:20]:
        service.handle(observation)
    assert first.flush(10)
    first.stop()
    sent_before = len(room.seqs("t1"))
    for observation in shoe[20:30]:  # journaled while no publisher runs
        service.handle(observation)
    second = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    service._sinks[-1] = second.sink
    for observation in shoe[30:]:
        service.handle(observation)
    assert second.flush(10)
    second.stop()
    service.journal.close()
    seqs = room.seqs("t1")
    assert seqs == [seq for seq, _ in journal_events(path)]  # nothing twice, nothing lost
    assert sent_before < len(seqs)


def test_a_position_file_of_another_journal_is_not_trusted(tmp_path):
    broker = MemoryBroker()
    room = Room(broker)
    path = tmp_path / "j.sqlite"
    (tmp_path / "j.sqlite.published").write_text(json.dumps({"acked": 3, "hash": "f" * 64}))
    service = service_for(path)
    for observation in one_deck_shoe()[:10]:
        service.handle(observation)
    publisher = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    assert publisher.flush(10)
    publisher.stop()
    service.journal.close()
    assert room.seqs("t1") == [seq for seq, _ in journal_events(path)]


def test_a_crashed_table_is_offline_by_its_last_will(tmp_path):
    broker = MemoryBroker()
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    client = broker.client("t1", will=("sabot/t1/status", messages.OFFLINE))
    publisher = Publisher(str(path), "t1", client, poll=0.01).start()
    assert wait_until(lambda: broker.retained.get("sabot/t1/status") == b"online", 5)
    client.crash()
    assert broker.retained["sabot/t1/status"] == b"offline"
    publisher._stop.set()
    service.journal.close()


def test_the_table_id_is_journaled_and_a_journal_of_another_table_is_refused(tmp_path):
    path = tmp_path / "j.sqlite"
    service_for(path, "table-7").journal.close()
    with Journal(str(path), create=False) as journal:
        assert table_id(journal) == "table-7"
    with pytest.raises(JournalError, match="the journal of table 'table-7', not of 'table-8'"):
        service_for(path, "table-8")


def test_no_event_uses_an_envelope_key():
    from tests.controller.conftest import run_script
    _, events = run_script("NMB 9H 8D 2C 3S\nCUT\n^5D\n" * 3 + "JOKER ACK")
    for event in events:
        assert not set(event) & set(messages.ENVELOPE), event


@pytest.mark.parametrize("url, expected", [
    ("mqtt://broker.local", ("broker.local", 1883, False, None)),
    ("mqtts://broker.local", ("broker.local", 8883, True, None)),
    ("mqtt://sabot:s3cret@10.0.0.5:1884", ("10.0.0.5", 1884, False, "sabot")),
])
def test_broker_urls(url, expected):
    address = parse_broker_url(url)
    assert (address.host, address.port, address.tls, address.username) == expected
    assert "s3cret" not in str(address) and "s3cret" not in repr(address)


@pytest.mark.parametrize("url, words", [
    ("http://x", "is not an mqtt:// or mqtts:// URL"),
    ("mqtt://x:99999", "port that is not a number"),
    ("mqtt://", "names no host"),
    ("mqtt://x/topic", "only scheme://host:port"),
])
def test_wrong_broker_urls_are_named(url, words):
    with pytest.raises(ConfigError, match=words):
        parse_broker_url(url)


def test_a_wrong_url_never_shows_its_password():
    with pytest.raises(ConfigError) as caught:
        parse_broker_url("http://u:hunter2@x")
    assert "hunter2" not in str(caught.value) and "***" in str(caught.value)


def test_password_file_and_tls_files(tmp_path):
    secret = tmp_path / "password"
    secret.write_text("hunter2\n")
    address = parse_broker_url("mqtt://u@x", password_file=str(secret))
    assert address.password == "hunter2" and "hunter2" not in repr(address)
    with pytest.raises(ConfigError, match="is not mqtts://"):
        parse_broker_url("mqtt://x", ca_file=str(secret))
    with pytest.raises(ConfigError, match="does not exist"):
        parse_broker_url("mqtts://x", ca_file=str(tmp_path / "nope.pem"))
    with pytest.raises(ConfigError, match="both its certificate and key"):
        parse_broker_url("mqtts://x", cert_file=str(secret))
    with pytest.raises(ConfigError, match="cannot read the password file"):
        parse_broker_url("mqtt://x", password_file=str(tmp_path / "missing"))


def test_config_surveillance_section_is_checked_once():
    config = validate({"surveillance": {"mqtt": "mqtt://127.0.0.1:1883"},
                       "table": {"id": "baccarat-3"}})
    assert config["surveillance"]["mqtt"] == "mqtt://127.0.0.1:1883"
    with pytest.raises(ConfigError, match=r"\[surveillance\] mqtt: .* not an mqtt://"):
        validate({"surveillance": {"mqtt": "tcp://x"}})
    with pytest.raises(ConfigError, match=r"\[table\] id must be 1-64 letters"):
        validate({"table": {"id": "table/7"}})


def test_topic_filters():
    assert topic_matches("sabot/+/event", "sabot/t1/event")
    assert topic_matches("sabot/#", "sabot/t1/state")
    assert topic_matches("$share/monitors/sabot/+/event", "sabot/t1/event")
    assert not topic_matches("sabot/+/event", "sabot/t1/state")
    assert not topic_matches("sabot/+", "sabot/t1/event")


@pytest.mark.parametrize("topic, payload, words", [
    ("other/t1/event", b"{}", "is not sabot/<table>"),
    ("sabot/t1/event", b"not json", "not JSON"),
    ("sabot/t1/event", b"[1, 2]", "a list, not an object"),
    ("sabot/t1/event", b'{"table": "t2", "seq": 1, "ts": 1, "event": "x"}', "from table 't2'"),
    ("sabot/t1/event", b'{"table": "t1", "seq": -1, "ts": 1, "event": "x"}', "seq is not"),
    ("sabot/t1/event", b'{"table": "t1", "seq": 1, "ts": NaN, "event": "x"}', "not JSON"),
    ("sabot/t1/event", b'{"table": "t1", "seq": 1, "ts": 1, "event": "<b>"}', "no event"),
    ("sabot/t1/event", b'{"table": "t1", "journal": "<b>", "seq": 1, "ts": 1, "event": "x"}',
     "journal '<b>' is not 16 hex"),
    ("sabot/t1/state", b'{"table": "t1", "journal": 7, "seq": 1}', "journal '7' is not 16 hex"),
    ("sabot/t1/status", b"maybe", "neither online nor offline"),
    ("sabot/t1/event", b"x" * (messages.MAX_PAYLOAD + 1), "more than a shoe sends"),
])
def test_messages_from_anything_but_a_shoe_are_refused_by_name(topic, payload, words):
    with pytest.raises(messages.MessageError, match=words):
        messages.decode(topic, payload)


def test_a_table_id_must_be_one_topic_level():
    for bad in ("", "a/b", "a+b", "#", "a b", "x" * 65):
        with pytest.raises(InputError):
            messages.check_table_id(bad)
    assert messages.check_table_id("Table_7.main-room") == "Table_7.main-room"


def test_round_events_mark_pairs():
    from tests.controller.conftest import run_script
    _, events = run_script("9H 3C 9D 3S")
    round_event = next(e for e in events if e["event"] == "round")
    assert round_event["player_pair"] is True and round_event["banker_pair"] is True
    _, events = run_script("9H 3C 8D 3S")
    round_event = next(e for e in events if e["event"] == "round")
    assert round_event["player_pair"] is False and round_event["banker_pair"] is True
    _, events = run_script("10H 8C JD KS")  # ten and jack are both worth 0: not a pair
    round_event = next(e for e in events if e["event"] == "round")
    assert round_event["player_pair"] is False


def test_a_journal_written_before_round_events_had_pairs_still_replays(tmp_path):
    """Upgrading mid-shoe: the old journal's round events lack player_pair/banker_pair."""
    import sqlite3

    from controller.game.script import parse_script
    from controller.journal.replay import replay
    from controller.journal.store import canonical, record_hash
    path = tmp_path / "j.sqlite"
    service = service_for(path)
    for step in parse_script("AS 2C 9H 8D 9C 8S 9D 8C 9S 8H"):  # two naturals: two rounds
        service.handle(step.observation)
    service.journal.close()
    db = sqlite3.connect(path)
    rows = db.execute("SELECT seq, ts_us, kind, cause, body FROM records ORDER BY seq").fetchall()
    prev, rounds = "0" * 64, 0
    for seq, ts_us, kind, cause, body in rows:  # as an earlier version wrote them
        parsed = json.loads(body)
        if parsed.get("event") == "round":
            parsed.pop("player_pair"), parsed.pop("banker_pair")
            rounds += 1
        text = canonical(parsed)
        digest = record_hash(seq, ts_us, kind, cause, text, prev)
        db.execute("UPDATE records SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                   (text, prev, digest, seq))
        prev = digest
    db.commit()
    db.close()
    assert rounds >= 1
    with Journal(str(path), create=False) as journal:
        assert replay(journal).first_mismatch() is None
    service_for(path).journal.close()  # and the service resumes it


def test_a_password_in_the_config_reaches_the_broker_and_nowhere_else(tmp_path):
    from controller.service.config import broker_address
    config = validate({"surveillance": {"mqtt": "mqtt://broker.lan", "username": "t7",
                                        "password": "hunter2"}})
    address = broker_address(config)
    assert (address.username, address.password) == ("t7", "hunter2")
    assert "hunter2" not in str(address) and "hunter2" not in repr(address)
    path = tmp_path / "j.sqlite"
    service_for(path).journal.close()
    assert b"hunter2" not in path.read_bytes()
