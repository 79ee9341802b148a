"""Surveillance benchmark: what `sabot monitor` sustains, how late a page hears of an event,
and what publishing costs a table.

A real mosquitto on loopback (the tests' helper starts it), the monitor in this process (its
room thread, SQLite history and web server, as `sabot monitor` runs them) and:
1. latency: 200 tables at a steady 10 events/s each, broker-to-page as a browser's
   EventSource would hear it (`/api/stream`, the time it reads the news minus the event's
   publish time), p50 and p99;
2. throughput: the same 200 tables at rising rates (1,000 to 10,000 events/s in all, QoS 1,
   from eight connections in a process of their own, as tables are machines of their own;
   a plain-socket writer, `RawPublisher`, so the load does not take the monitor's core):
   the highest rate the monitor keeps up with (99% stored within a second of the end);
3. the table side: one 8-deck shoe journaled by the table thread with a publisher attached
   (the table thread's cost per event: the sink; the publisher thread's: catching up a
   journal, per event).
Run: .venv/bin/python -m bench.monitor [--tables N] [--seconds S]
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import socket
import struct
import tempfile
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import uvicorn

from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.journal.store import Journal
from controller.monitor.app import create_app
from controller.monitor.service import MonitorService
from controller.monitor.store import MonitorStore
from controller.service.table_service import TableService
from controller.surveillance.broker import open_client
from controller.surveillance.messages import encode
from controller.surveillance.publisher import Publisher
from tests.surveillance.mosquitto import Mosquitto, free_port
from tests.surveillance.waiting import wait_until

CONNECTIONS = 8


def round_event(table: str, seq: int) -> dict:
    """A round event as a table since stop 47 sends it: naming its journal (one a table)."""
    journal = f"{zlib.crc32(table.encode()):08x}" * 2
    return {"table": table, "journal": journal, "seq": seq, "ts": time.time(),
            "cause": seq - 1, "event": "round",
            "round": seq % 100_000, "player": ["9H", "KD"], "banker": ["7C", "AS", "3D"],
            "player_total": 9, "banker_total": 1, "natural": True, "player_pair": False,
            "banker_pair": False, "result": "player", "void": False}


def throughput(port: int, service: MonitorService, tables: int, seconds: float) -> tuple:
    """The highest offered rate (events/s, spread over the tables) the monitor keeps up
    with: everything offered stored within a second of the end of the offer."""
    kept, report = 0, []
    for rate in (1000, 2000, 3000, 4000, 5000, 6000, 8000, 10000):
        before = service.received
        load = multiprocessing.Process(target=steady, args=(port, tables, seconds,
                                                             rate / tables, f"r{rate}-"))
        started = time.monotonic()
        load.start()
        load.join()
        offered = int(rate * seconds)
        wait_until(lambda n=offered, b=before: service.received - b >= n, 1.0)
        got = service.received - before
        report.append((rate, got / max(1, offered), time.monotonic() - started))
        if got < 0.99 * offered:
            break
        kept = rate
    return kept, report


class RawPublisher:
    """The tables' load: MQTT 3.1.1 PUBLISH packets at QoS 1 written in batches on a plain
    socket, the broker's PUBACKs read and counted. A load generator this cheap leaves the
    second core to the broker and the monitor being measured (paho needs a whole core to
    send 5,000 messages a second). The wire is the same as a table's publisher's."""

    def __init__(self, port: int, client_id: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        name = client_id.encode()
        body = b"\x00\x04MQTT\x04\x02\x00\x3c" + struct.pack(">H", len(name)) + name
        self.sock.sendall(b"\x10" + _length(len(body)) + body)
        assert self.sock.recv(4)[:2] == b"\x20\x02", "no CONNACK"
        self.sock.setblocking(False)
        self.packet_id = 0
        self.acks = 0

    def publish(self, messages: list[tuple[str, bytes]]) -> None:
        packets = []
        for topic, payload in messages:
            self.packet_id = self.packet_id % 65535 + 1
            name = topic.encode()
            body = struct.pack(">H", len(name)) + name + struct.pack(">H", self.packet_id) \
                + payload
            packets.append(b"\x32" + _length(len(body)) + body)
        self.sock.setblocking(True)
        self.sock.sendall(b"".join(packets))
        self.sock.setblocking(False)
        self.drain()

    def drain(self) -> None:
        try:
            while data := self.sock.recv(65536):
                self.acks += len(data) // 4  # PUBACK: 40 02 id id
        except BlockingIOError:
            pass

    def close(self) -> None:
        self.sock.sendall(b"\xe0\x00")  # DISCONNECT
        self.sock.close()


def _length(n: int) -> bytes:
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (128 if n else 0))
        if not n:
            return bytes(out)


def steady(port: int, tables: int, seconds: float, rate: float, prefix: str = "lt") -> None:
    """`tables` tables publishing `rate` round events a second each, in 5 ms batches."""
    links = [RawPublisher(port, f"bench-{prefix}{k}") for k in range(CONNECTIONS)]
    tick, seq, n = 0.005, 0, 0
    per_tick = rate * tables * tick
    owed, next_at = 0.0, time.monotonic()
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        owed += per_tick
        batches: list[list] = [[] for _ in links]
        while owed >= 1:
            owed -= 1
            n = (n + 1) % tables
            seq += 1
            table = f"{prefix}{n}"
            batches[n % CONNECTIONS].append((f"sabot/{table}/event",
                                             encode(round_event(table, seq))))
        for link, batch in zip(links, batches, strict=True):
            if batch:
                link.publish(batch)
        next_at += tick
        time.sleep(max(0.0, next_at - time.monotonic()))
    time.sleep(0.5)
    for link in links:
        link.drain()
        link.close()


def latency(broker_port: int, web: str, tables: int, seconds: float,
            rate: float) -> list[float]:
    heard: list[float] = []
    host, port = web.split(":")
    ready = threading.Event()
    done = threading.Event()

    def listen() -> None:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.request("GET", "/api/stream")
        response = connection.getresponse()
        ready.set()
        while not done.is_set():
            line = response.readline()
            if line.startswith(b"data: "):
                item = json.loads(line[6:])
                if item.get("ts") and item["table"].startswith("lt"):
                    heard.append(time.time() - item["ts"])
        connection.close()

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    ready.wait(10)
    load = multiprocessing.Process(target=steady, args=(broker_port, tables, seconds, rate))
    load.start()
    load.join()
    done.set()
    return heard


def table_side(url: str, folder: Path) -> tuple[float, float, int]:
    path = folder / "table.sqlite"
    service = TableService(Journal(str(path)), {"decks": 8, "style": "A",
                                                "require_no_more_bets": False}, table_id="t1")
    service.recover()
    for observation in dealt_until_shoe_end(shuffled_shoe(8, seed=1), 8):
        service.handle(observation)
    events = sum(1 for r in service.journal.records() if r.kind == "event")
    publisher = Publisher(str(path), "t1", open_client(url, client_id="bench-table"))
    runs = 100_000
    started = time.perf_counter()
    for _ in range(runs):
        publisher.sink([])
    sink_us = (time.perf_counter() - started) / runs * 1e6
    started = time.monotonic()
    publisher.start()
    assert publisher.flush(60)
    per_event_us = (time.monotonic() - started) / events * 1e6
    publisher.stop()
    service.journal.close()
    return sink_us, per_event_us, events


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--latency-only", action="store_true", help="skip the throughput steps")
    args = parser.parse_args()
    multiprocessing.set_start_method("spawn")  # no fork of a process with threads
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        broker = Mosquitto(root).start()
        try:
            client = open_client(broker.url, client_id="bench-monitor", session=False)
            service = MonitorService(client, MonitorStore(str(root / "monitor.sqlite"))).start()
            wait_until(lambda: client.connected, 10)
            port = free_port()
            server = uvicorn.Server(uvicorn.Config(create_app(service), host="127.0.0.1",
                                                   port=port, log_level="warning",
                                                   lifespan="off"))
            threading.Thread(target=server.run, daemon=True).start()
            wait_until(lambda: server.started, 10)
            # Latency first: the throughput steps end with the broker's queue full.
            heard = np.array(latency(broker.port, f"127.0.0.1:{port}", args.tables,
                                     args.seconds, 10.0)) * 1000
            rate, steps = (0, []) if args.latency_only else throughput(
                broker.port, service, args.tables, args.seconds / 2)
            server.should_exit = True
            service.stop()
            sink_us, per_event_us, events = table_side(broker.url, root)
        finally:
            broker.stop()
    print(f"monitor: {args.tables} tables into one mosquitto on loopback, this 2-core machine")
    print(f"  sustained: {rate:,.0f} events/s stored and shown ({CONNECTIONS} publishing "
          "connections, QoS 1, round events, 5 ms batches); offered -> kept: " + ", ".join(
              f"{r:,}/s {share:.0%}" for r, share, _ in steps))
    print(f"  broker to page at {args.tables} tables x 10 events/s: p50 "
          f"{np.percentile(heard, 50):.1f} ms, p99 {np.percentile(heard, 99):.1f} ms "
          f"({len(heard)} updates heard)")
    print(f"  table side: the table thread's sink {sink_us:.2f} us per commit; the publisher "
          f"thread {per_event_us:.0f} us per event ({events} events of an 8-deck shoe, "
          "caught up from the journal)")


if __name__ == "__main__":
    main()
