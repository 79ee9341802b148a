"""A broker that cannot be reached is said once, on stderr, with what becomes of the events,
by the table (`sabot run`, `sabot simulate --mqtt`) and by `sabot monitor`; and a table's
stop does not wait for a broker no attempt has reached. They used to say nothing, and
`simulate --mqtt` to a dead broker stalled 5 s at its end."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time

from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.store import Journal
from controller.monitor.service import MonitorService
from controller.monitor.store import MonitorStore
from controller.service.table_service import TableService
from controller.surveillance.broker import MemoryBroker, Reachability, open_client
from controller.surveillance.publisher import Publisher
from tests.shared_profiles import suite_reader
from tests.surveillance.monitor_rig import Subscriber
from tests.surveillance.mosquitto import Mosquitto, free_port
from tests.surveillance.waiting import wait_until
from vision.decks import synthetic_deck


def warnings_of(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_a_table_says_once_its_broker_cannot_be_reached_and_does_not_wait_for_it(
        tmp_path, caplog):
    broker = MemoryBroker()
    broker.go_down()
    path = tmp_path / "j.sqlite"
    service = TableService(Journal(str(path)), {"decks": 1, "style": "A",
                                                "require_no_more_bets": False}, table_id="t1")
    service.recover()
    client = broker.client("t1")
    publisher = Publisher(str(path), "t1", client, poll=0.01).start()
    service._sinks.append(publisher.sink)
    for observation in dealt_until_shoe_end(shuffled_shoe(1, seed=4), 1)[:20]:
        service.handle(observation)
    client.try_connect()  # the client's next attempt, which is not said again
    started = time.monotonic()
    publisher.stop()
    assert time.monotonic() - started < 2.5  # not the 5 s a broker once reached is given
    assert warnings_of(caplog) == [
        "the broker at memory:// cannot be reached (broker down); the table deals on, and its "
        "events wait in the journal until the broker takes them (this run keeps trying; the "
        "next start on this journal sends what is left)"]
    # Nothing is lost: the next start sends it all.
    broker.come_up()
    room = Subscriber(broker.client("room"))
    again = Publisher(str(path), "t1", broker.client("t1"), poll=0.01).start()
    assert again.flush(10)
    again.stop()
    with Journal(str(path), create=False) as journal:
        events = [r.seq for r in journal.records() if r.kind == "event"]
    service.journal.close()
    assert events and room.seqs("t1") == events


def test_the_monitor_says_once_its_broker_cannot_be_reached(tmp_path, caplog):
    broker = MemoryBroker()
    broker.go_down()
    client = broker.client("monitor")
    monitor = MonitorService(client, MonitorStore(str(tmp_path / "m.sqlite"))).start()
    try:
        client.try_connect()
        assert warnings_of(caplog) == [
            "the broker at memory:// cannot be reached (broker down); the monitor keeps "
            "trying, and its pages show only the history it has kept until then"]
        broker.come_up()
        client.try_connect()  # the client's next attempt
        assert client.connected
        broker.go_down()
        client.try_connect()  # lost again after it was reached: said again, once
        assert len(warnings_of(caplog)) == 2
    finally:
        monitor.stop()


def test_the_paho_client_says_why_it_cannot_connect():
    client = open_client(f"mqtt://127.0.0.1:{free_port()}", client_id="sabot-test-refused")
    reasons: list[str] = []
    client.on_connect_fail = reasons.append
    client.start()
    try:
        assert wait_until(lambda: reasons, 10)
    finally:
        client.close()
    assert reasons[0] == "Connection refused"


def test_a_broker_that_refuses_the_login_is_said_once_not_at_each_retry(tmp_path, caplog):
    """A refused login (a wrong password) was a warning at every retry of the client."""
    broker = Mosquitto(tmp_path, anonymous=False).start()
    client = open_client(broker.url, client_id="sabot-test-login")
    reach = Reachability(client, logging.getLogger("test"), "what becomes of the events")
    client.on_connect = reach.connected
    caplog.set_level(logging.WARNING)
    client.start()
    try:
        assert wait_until(lambda: reach.unreachable, 10)
        time.sleep(3)  # the client tries again after 1 s, then 2 s
    finally:
        client.close()
        broker.stop()
    said = warnings_of(caplog)
    assert len(said) == 1 and "it refused the connection: Not authorized" in said[0]
    assert not reach.reached


def test_simulate_to_a_dead_broker_warns_once_and_its_json_is_unchanged(tmp_path):
    suite_reader(synthetic_deck())  # the design learned before, not inside the timed run
    url = f"mqtt://127.0.0.1:{free_port()}"
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "simulate", "--decks", "1", "--seed", "5",
         "--json", "--mqtt", url, "--journal", str(tmp_path / "j.sqlite")],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        f"the broker at {url} cannot be reached (Connection refused); the table deals on, and "
        "its events wait in the journal until the broker takes them (this run keeps trying; "
        "the next start on this journal sends what is left)"]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["event"] == "new_shoe" and lines[-1]["event"] == "stats"
