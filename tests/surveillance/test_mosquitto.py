"""Publishing against a real mosquitto (issue 10): three simulated tables, a broker stopped and
started mid-shoe, a service killed and restarted mid-shoe; every event arrives, none is
lost, and what arrived twice is the same message with the same seq."""

from __future__ import annotations

import getpass
import json
import subprocess
import sys
import time
import urllib.request

import pytest

from controller.game.script import format_script
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.store import Journal
from controller.surveillance import messages
from controller.surveillance.broker import open_client, parse_broker_url
from tests.shared_profiles import suite_reader
from tests.surveillance.monitor_rig import Subscriber
from tests.surveillance.mosquitto import Mosquitto, free_port
from tests.surveillance.waiting import wait_until
from vision.decks import synthetic_deck


@pytest.fixture
def broker(tmp_path):
    # The simulations' design learned once for the test run (under the workers' lock) before
    # any starts: three simulations would each learn it again, at once, on two cores.
    suite_reader(synthetic_deck())
    folder = tmp_path / "broker"
    folder.mkdir()
    server = Mosquitto(folder).start()
    yield server
    server.stop()


def Room(url: str, name: str = "room") -> Subscriber:
    """A surveillance room's subscriber with a persistent session, as a monitor keeps."""
    return Subscriber(open_client(url, client_id=f"test-{name}", session=True))


def journal_events(path) -> dict[int, dict]:
    with Journal(str(path), create=False) as journal:
        return {r.seq: r.body for r in journal.records() if r.kind == "event"}


def simulate(url: str, table: str, journal, shoe, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "simulate", "--json", "--speed", "0",
         "--decks", "1", "--shoe", str(shoe), "--journal", str(journal), "--mqtt", url,
         "--table", table, "--seed", "3", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def write_shoe(tmp_path, seed: int) -> object:
    shoe = tmp_path / f"shoe-{seed}.txt"
    shoe.write_text(format_script(dealt_until_shoe_end(shuffled_shoe(1, seed=seed), 1)))
    return shoe


def same_events(room: Room, table: str, journal) -> None:
    received = room.by_seq(table)
    expected = journal_events(journal)
    assert sorted(received) == sorted(expected), \
        f"{table}: lost {sorted(set(expected) - set(received))[:5]}"
    for seq, body in expected.items():
        assert {k: v for k, v in received[seq].items() if k not in messages.ENVELOPE} == body


def start_monitor(url: str, tmp_path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "monitor", "--mqtt", url, "--http",
         f"127.0.0.1:{port}", "--db", str(tmp_path / "monitor.sqlite")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    assert wait_until(lambda: _answers(base), 20), "sabot monitor did not serve"
    return process, base


def _answers(base: str) -> bool:
    try:
        with urllib.request.urlopen(base + "/api/tables", timeout=1):
            return True
    except OSError:
        return False


def api(base: str, path: str):
    with urllib.request.urlopen(base + path, timeout=10) as response:
        return json.loads(response.read())


def test_three_simulated_tables_publish_whole_shoes_each_event_exactly_once(broker, tmp_path):
    room = Room(broker.url)
    monitor, base = start_monitor(broker.url, tmp_path)
    tables = {f"table-{n}": (tmp_path / f"t{n}.sqlite", write_shoe(tmp_path, n))
              for n in (1, 2, 3)}
    runs = {t: simulate(broker.url, t, j, s) for t, (j, s) in tables.items()}
    for table, run in runs.items():
        _, err = run.communicate(timeout=240)
        assert run.returncode in (0, 4), f"{table}: {err}"
    for table, (journal, _) in tables.items():
        assert wait_until(lambda t=table, j=journal: len(set(room.seqs(t)))
                          == len(journal_events(j)), 10)
        seqs = room.seqs(table)
        assert len(seqs) == len(set(seqs)), f"{table}: an event arrived twice"
        assert seqs == sorted(seqs)  # in journal order
        same_events(room, table, journal)
        with Journal(str(journal), create=False) as j:
            last_seq = j.last_seq
        # The offline status and the last state are published after the last event.
        assert wait_until(lambda t=table, s=last_seq: room.status.get(t) == "offline"
                          and room.state.get(t, {}).get("seq") == s, 10)  # stopped cleanly
        # The monitor's API shows the same: every event, the rounds, the state.
        events = journal_events(journal)
        last = max(events)
        assert wait_until(lambda t=table, seq=last: api(base, f"/api/tables/{t}")
                          ["last_seq"] == seq, 10)
        detail = api(base, f"/api/tables/{table}")
        scored = [e for e in events.values() if e["event"] == "round" and not e["void"]]
        assert detail["banker"] + detail["player"] + detail["tie"] == len(scored)
        assert detail["status"] == "offline" and detail["state"]["seq"] == room.state[table]["seq"]
    room.close()
    monitor.terminate()
    _, err = monitor.communicate(timeout=15)
    assert monitor.returncode == 143, err  # the CLI's convention for a SIGTERM stop
    assert "stopped by SIGTERM" in err and "Traceback" not in err


def test_the_broker_stopped_and_started_mid_shoe_loses_nothing(broker, tmp_path):
    before = Room(broker.url)
    journal, shoe = tmp_path / "t.sqlite", write_shoe(tmp_path, 7)
    run = simulate(broker.url, "table-9", journal, shoe, "--speed", "10")
    # (a first simulation in a test run learns the synthetic design first: half a minute)
    assert wait_until(lambda: len(before.seqs("table-9")) >= 20, 240), "no events came"
    before.close()  # the room's session waits on the broker, as a monitor's does
    broker.stop()
    time.sleep(1.5)  # the table deals on while the broker is away
    broker.start()
    after = Room(broker.url)  # the same session again
    _, err = run.communicate(timeout=240)
    assert run.returncode in (0, 4), err
    expected = journal_events(journal)

    def received() -> dict[int, dict]:
        return before.by_seq("table-9") | after.by_seq("table-9")

    assert wait_until(lambda: len(received()) == len(expected), 15), \
        f"lost {sorted(set(expected) - set(received()))[:5]}"
    for seq, message in received().items():
        assert {k: v for k, v in message.items() if k not in messages.ENVELOPE} == expected[seq]
    after.close()


def test_a_service_killed_mid_shoe_and_restarted_loses_and_doubles_nothing(broker, tmp_path):
    room = Room(broker.url)
    journal, shoe = tmp_path / "t.sqlite", write_shoe(tmp_path, 11)
    run = simulate(broker.url, "table-5", journal, shoe)
    assert wait_until(lambda: len(room.seqs("table-5")) >= 30, 240), "no events came"
    run.kill()
    run.wait()
    assert wait_until(lambda: room.status.get("table-5") == "offline", 30)  # its Last Will
    again = simulate(broker.url, "table-5", journal, shoe)
    _, err = again.communicate(timeout=240)
    assert again.returncode in (0, 4), err
    assert wait_until(lambda: len(room.by_seq("table-5")) == len(journal_events(journal)), 15)
    same_events(room, "table-5", journal)  # duplicates (re-sent after the kill) are identical
    with Journal(str(journal), create=False) as j:
        bodies = [json.dumps(r.body, sort_keys=True) for r in j.records() if r.kind == "event"]
    rounds = [b for b in bodies if '"event": "round"' in b]
    assert len(rounds) == len(set(rounds))  # the journal itself holds no round twice
    room.close()


def test_sabot_run_publishes_its_table_to_the_configured_broker(broker, tmp_path):
    """The live service with `[surveillance] mqtt`: the recorded camera's cards and the shoe's
    button arrive as events of the config's table id; a SIGTERM stop says `offline`."""
    import signal

    from firmware_bridge.emulator import ShoeEmulator
    from firmware_bridge.pty_shoe import PtyShoe
    from tests.controller.test_run_service import CARDS, write_rig

    room = Room(broker.url)
    with PtyShoe(ShoeEmulator(seed=1)) as shoe:
        config = write_rig(tmp_path, shoe.device, tail_frames=3000)  # still running at SIGTERM
        config.write_text(config.read_text() + f'[surveillance]\nmqtt = "{broker.url}"\n')
        service = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                                    str(config)], stderr=subprocess.PIPE, text=True)
        try:
            assert wait_until(lambda: any(m["event"] == "round" for m in
                                          room.messages.get("test-table", [])), 60), \
                "no round was published"
            assert room.status.get("test-table") == "online"
            service.send_signal(signal.SIGTERM)
            assert service.wait(timeout=30) == 0, service.stderr.read()
        finally:
            if service.poll() is None:
                service.kill()
    journal = tmp_path / "journal" / "shoe.sqlite"
    same_events(room, "test-table", journal)
    cards = [m["card"] for m in room.messages["test-table"] if m["event"] == "card"]
    burn = next(m for m in room.messages["test-table"] if m["event"] == "burn")
    assert burn["cards"] + cards == CARDS
    assert wait_until(lambda: room.status.get("test-table") == "offline", 10)
    room.close()


def make_certificates(folder) -> dict[str, str]:
    """A CA, a broker certificate for 127.0.0.1 and a table's client certificate (openssl)."""
    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=folder)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=room-ca",
        "-keyout", "ca.key", "-out", "ca.pem")
    for name, subject in (("broker", "/CN=127.0.0.1"), ("table", "/CN=table-7")):
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout",
            f"{name}.key", "-out", f"{name}.csr")
        (folder / f"{name}.ext").write_text("subjectAltName=IP:127.0.0.1\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-out", f"{name}.pem", "-extfile", f"{name}.ext")
    return {n: str(folder / n) for n in ("ca.pem", "broker.pem", "broker.key", "table.pem",
                                         "table.key")}


def test_mqtts_with_a_client_certificate(tmp_path):
    """`mqtts://` as docs/surveillance.md sets it up: the broker's CA, a client certificate
    the broker requires; a table without one is not let in."""
    from controller.service.config import broker_address, validate
    from tests.surveillance.monitor_rig import Table

    folder = tmp_path / "tls"
    folder.mkdir()
    files = make_certificates(folder)
    server = Mosquitto(folder)
    server.config.write_text(
        f"user {getpass.getuser()}\nlistener {server.port} 127.0.0.1\n"
        f"cafile {files['ca.pem']}\ncertfile {files['broker.pem']}\n"
        f"keyfile {files['broker.key']}\nrequire_certificate true\n"
        "use_identity_as_username true\nallow_anonymous false\n"
        f"log_dest file {folder}/mosquitto.log\n")
    server.start()
    try:
        url = f"mqtts://127.0.0.1:{server.port}"
        config = validate({"table": {"id": "table-7"}, "surveillance": {
            "mqtt": url, "ca_file": files["ca.pem"], "cert_file": files["table.pem"],
            "key_file": files["table.key"]}})
        address = broker_address(config)
        room_client = open_client(address, client_id="room")  # the room, with the same cert
        got: list[bytes] = []
        room_client.subscribe("sabot/table-7/event", lambda topic, payload: got.append(payload))
        room_client.start()
        assert wait_until(lambda: room_client.connected, 15), (folder / "mosquitto.log").read_text()
        table = Table(tmp_path, "table-7", open_client(address, client_id="table-7"))
        table.deal(scripted_burn())
        table.flush()
        assert wait_until(lambda: len(got) == len(table.events()), 10)
        table.close()
        room_client.close()
        # Without a client certificate the broker refuses the connection.
        bare = open_client(parse_broker_url(url, ca_file=files["ca.pem"]), client_id="bare")
        bare.start()
        time.sleep(2)
        assert not bare.connected
        bare.close()
    finally:
        server.stop()


def scripted_burn():
    from controller.game.script import parse_script
    return [step.observation for step in parse_script("AS 2C 9H 8D 9C 8S")]


def test_monitors_of_one_group_share_the_events_between_them(broker, tmp_path):
    """`sabot monitor --group`: an MQTT 5 shared subscription hands each event to one monitor
    of the group; together they hold every event once, and each has every table's state."""
    from controller.monitor.service import MonitorService
    from controller.monitor.store import MonitorStore
    from tests.surveillance.monitor_rig import Table

    monitors = [MonitorService(open_client(broker.url, client_id=f"m{k}", session=True),
                               MonitorStore(str(tmp_path / f"m{k}.sqlite")), group="room").start()
                for k in (1, 2)]
    assert all(wait_until(lambda m=m: m.client.connected, 10) for m in monitors)
    time.sleep(0.5)  # both subscriptions in place before the table starts
    table = Table(tmp_path, "t1", open_client(broker.url, client_id="t1"))
    table.deal(dealt_until_shoe_end(shuffled_shoe(1, seed=3), 1))
    table.flush()
    expected = {seq for seq in journal_events(table.path)}

    def seqs(monitor) -> set[int]:
        reader = MonitorStore(monitor.store.path)  # a second connection: the file as kept
        try:
            return {message["seq"] for _, message in reader.events()}
        finally:
            reader.close()

    assert wait_until(lambda: set().union(*map(seqs, monitors)) == expected, 15)
    first, second = map(seqs, monitors)
    assert first and second and not first & second  # shared, not copied
    last_seq = table.service.journal.last_seq
    for monitor in monitors:  # the retained state reaches every member (after the events)
        assert wait_until(lambda m=monitor: m.query(
            lambda room: (room.tables["t1"].state or {}).get("seq")) == last_seq, 10)
    table.close()
    for monitor in monitors:
        monitor.stop()


def test_a_monitor_told_to_stop_stops_while_a_page_keeps_its_stream_open(broker, tmp_path):
    """A surveillance officer's trial (stop 53): with a room page open (its event stream),
    SIGTERM left the monitor running until the page was closed, its API silent and its
    history locked against a restart, while the page still showed "live"."""
    import http.client
    import time

    monitor, base = start_monitor(broker.url, tmp_path)
    port = int(base.rsplit(":", 1)[1])
    page = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    page.request("GET", "/api/stream")
    stream = page.getresponse()
    assert stream.status == 200 and stream.readline() == b"retry: 2000\n"
    started = time.monotonic()
    monitor.terminate()
    _, err = monitor.communicate(timeout=15)
    assert monitor.returncode == 143, err
    assert time.monotonic() - started < 5
    with pytest.raises(http.client.IncompleteRead):  # the stream is cut: the page reconnects
        stream.read()
    page.close()
    again, _ = start_monitor(broker.url, tmp_path)  # the history is free again
    again.terminate()
    again.communicate(timeout=15)
