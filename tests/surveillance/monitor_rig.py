"""A monitor and tables in one process for the tests: an in-process broker (or a real one),
tables that journal and publish, and the monitor's web server on a free loopback port."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import uvicorn

from controller.journal.store import Journal
from controller.monitor.app import create_app
from controller.monitor.service import MonitorService
from controller.monitor.store import MonitorStore
from controller.service.table_service import TableService
from controller.surveillance import messages
from controller.surveillance.publisher import Publisher
from tests.surveillance.mosquitto import free_port
from tests.surveillance.waiting import wait_until

SETTINGS = {"decks": 1, "style": "A", "require_no_more_bets": False}


class Subscriber:
    """A surveillance room's plain subscriber: every message kept by table, duplicates too."""

    def __init__(self, client, topic_filter: str = "sabot/#"):
        self.messages: dict[str, list[dict]] = {}
        self.state: dict[str, dict] = {}
        self.status: dict[str, str] = {}
        self._lock = threading.Lock()
        self.client = client
        client.subscribe(topic_filter, self._message)
        client.start()
        assert wait_until(lambda: client.connected, 10), "the subscriber did not connect"

    def _message(self, topic: str, payload: bytes) -> None:
        table, kind, body = messages.decode(topic, payload)
        with self._lock:
            if kind == "event":
                self.messages.setdefault(table, []).append(body)
            elif kind == "state":
                self.state[table] = body
            else:
                self.status[table] = body

    def seqs(self, table: str) -> list[int]:
        with self._lock:
            return [m["seq"] for m in self.messages.get(table, [])]

    def by_seq(self, table: str) -> dict[int, dict]:
        """One message per seq; a duplicate must be the same message."""
        out: dict[int, dict] = {}
        with self._lock:
            for message in self.messages.get(table, []):
                seen = out.setdefault(message["seq"], message)
                assert seen == message, f"seq {message['seq']} arrived as two messages"
        return out

    def close(self) -> None:
        self.client.close()


class Table:
    """A table that journals observations and publishes them."""

    def __init__(self, folder, name: str, client, decks: int = 1, signer=None):
        self.name = name
        self.path = folder / f"{name}.sqlite"
        self.service = TableService(Journal(str(self.path), signer=signer),
                                    {**SETTINGS, "decks": decks}, table_id=name)
        self.service.recover()
        self.publisher = Publisher(str(self.path), name, client, poll=0.01).start()
        self.service._sinks.append(self.publisher.sink)

    def deal(self, observations) -> None:
        for observation in observations:
            self.service.handle(observation)

    def flush(self) -> None:
        assert self.publisher.flush(10), f"{self.name}: the broker did not take everything"

    def close(self) -> None:
        self.publisher.stop()
        self.service.journal.close()

    def events(self) -> list[dict]:
        with Journal(str(self.path), create=False) as journal:
            return [r.body for r in journal.records() if r.kind == "event"]


class MonitorServer:
    def __init__(self, client, db_path, keys: dict[str, str] | None = None) -> None:
        self.service = MonitorService(client, MonitorStore(str(db_path)), keys=keys).start()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(create_app(self.service), host="127.0.0.1", port=self.port,
                                log_level="warning", access_log=False, lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        assert wait_until(lambda: self.server.started, 10), "the web server did not start"

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            body = response.read()
            kind = response.headers.get("Content-Type", "")
            return json.loads(body) if "json" in kind else body.decode()

    def status_of(self, path: str) -> int:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def wait_for(self, predicate, timeout: float = 10) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.05)
        return False

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.service.stop()
