"""The monitor's plumbing: broker messages in, one room thread, live updates out.

    broker (paho's network thread) --queue--> room thread: decode and check each message,
    apply it to the `Room` and store what it took (SQLite; repeats, by journal and seq, are
    dropped), then tell the
    web clients which tables changed (`Updates`, read by the server's event loop):
    {"table", "received" (monitor's clock), "ts" (the newest event's journal time)}, and
    the monitor's own broker connection when it changes: {"broker": `MonitorService.broker`}

Only the room thread touches the `Room` and the store; the web handlers ask it for a
snapshot through `query`, which runs a function on the room thread and waits for the result,
so no lock is needed anywhere and a page is always a consistent picture.
"""

from __future__ import annotations

import logging
import queue
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from controller.monitor.room import Room
from controller.monitor.store import MonitorStore
from controller.surveillance import messages
from controller.surveillance.broker import BrokerClient, Reachability

log = logging.getLogger(__name__)

TOPICS = ("sabot/+/event", "sabot/+/state", "sabot/+/status")
SWITCH_INTERVAL = 0.0005  # seconds
_STOP = object()


@dataclass(frozen=True)
class _BrokerChange:
    """The monitor's broker connection came or went (from the client's thread)."""

    connected: bool
    reason: str
    at: float


class Updates:
    """Fan-out of "table T changed" to every connected page: each page has a queue the
    room thread puts into through its event loop (`call_soon_threadsafe`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[tuple[object, object]] = []  # (loop, asyncio.Queue)

    def listen(self, loop, inbox) -> None:
        with self._lock:
            self._listeners.append((loop, inbox))

    def forget(self, inbox) -> None:
        with self._lock:
            self._listeners = [(lp, q) for lp, q in self._listeners if q is not inbox]

    def publish(self, item: dict) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for loop, inbox in listeners:
            try:
                loop.call_soon_threadsafe(_offer, inbox, item)
            except RuntimeError:  # that page's loop is closed
                self.forget(inbox)


def _offer(inbox, item) -> None:
    if inbox.full():  # a page that does not read: it gets the newest, not a backlog
        inbox.get_nowait()
    inbox.put_nowait(item)


class MonitorService:
    def __init__(self, client: BrokerClient, store: MonitorStore, *, group: str | None = None,
                 clock: Callable[[], float] = time.time,
                 keys: dict[str, str] | None = None) -> None:
        """`keys`: table id -> the table's trusted public key (hex), to check its heads."""
        self.client = client
        self.store = store
        self.room = Room(keys)
        self.updates = Updates()
        self.clock = clock
        self.rejected = 0  # messages that were not a shoe's
        self.received = 0
        self._inbox: queue.Queue = queue.Queue(maxsize=100_000)
        self._thread: threading.Thread | None = None
        self._group = group
        reach = Reachability(client, log, "the monitor keeps trying, and its pages show only "
                             "the history it has kept until then")
        # Whether the tables can be heard at all, for the pages' header (the room thread's):
        # with the broker away every tile stands as it was last heard, and a page whose own
        # stream to the monitor is up said "live".
        self.broker = {"connected": False, "since": None, "reason": "not connected yet",
                       "address": str(client.address)}
        client.on_connect = lambda: (reach.connected(), self._broker_changed(True, ""))
        client.on_connect_fail = lambda reason: (reach.failed(reason),
                                                 self._broker_changed(False, reason))
        client.on_disconnect = lambda reason: self._broker_changed(False, reason)
        self._load()

    def _load(self) -> None:
        """The history: what earlier runs of the monitor stored. The events first, as they
        were applied, then each journal's last retained state, as they came after them
        (the journal a table follows is told by its messages' times, not their order)."""
        for table, status in self.store.statuses():
            self.room.set_status(table, status)
        states = self.store.states()
        for table, state in states:  # each journal's decks, for its events' tally
            self.room.table(table).know_decks(state.get("journal"), state.get("decks"))
        for table, message in self.store.events():
            self.room.add_event(table, message)
        for table, state in states:
            self.room.set_state(table, state)

    def start(self) -> MonitorService:
        # The broker's network thread reads one packet per turn of the GIL: with the room
        # thread busy, Python's default 5 ms turn would cap it at a few hundred messages a
        # second. (Process-wide: the monitor is a process of its own.)
        sys.setswitchinterval(SWITCH_INTERVAL)
        self._thread = threading.Thread(target=self._run, name="room", daemon=True)
        self._thread.start()
        for topic in TOPICS:
            # Shared subscriptions (MQTT 5) spread events over several monitors; the state
            # and status are retained and every monitor wants them all.
            wanted = f"$share/{self._group}/{topic}" if self._group and \
                topic.endswith("event") else topic
            self.client.subscribe(wanted, self._message)
        self.client.start()
        return self

    def stop(self) -> None:
        self.client.close()
        self._inbox.put(_STOP)
        if self._thread is not None:
            self._thread.join(5)
        self.store.close()

    def query(self, function: Callable[[Room], object], timeout: float = 5.0):
        """`function(room)` run on the room thread; its result."""
        future: Future = Future()
        self._inbox.put((function, future))
        return future.result(timeout)

    # -- the broker's thread -----------------------------------------------------------------

    def _broker_changed(self, connected: bool, reason: str) -> None:
        self._inbox.put(_BrokerChange(connected, reason, self.clock()))

    def _message(self, topic: str, payload: bytes) -> None:
        try:
            self._inbox.put_nowait((topic, payload, self.clock()))
        except queue.Full:
            self.rejected += 1

    # -- the room thread ---------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            item = self._inbox.get()
            if item is _STOP:
                return
            changed: dict[str, dict] = {}
            batch = [item]
            while len(batch) < 500:  # what came meanwhile, in one transaction
                try:
                    batch.append(self._inbox.get_nowait())
                except queue.Empty:
                    break
            self.store.begin()
            try:
                for entry in batch:
                    if entry is _STOP:
                        self._inbox.put(_STOP)
                        continue
                    if isinstance(entry, _BrokerChange):
                        self._take_broker_change(entry)
                        continue
                    if len(entry) == 2:
                        function, future = entry
                        try:
                            future.set_result(function(self.room))
                        except Exception as error:  # noqa: BLE001 - the asker gets it
                            future.set_exception(error)
                        continue
                    self._apply(*entry, changed)
            finally:
                self.store.commit()
            for table, item in changed.items():
                self.updates.publish({"table": table, **item})

    def _take_broker_change(self, change: _BrokerChange) -> None:
        if change.connected == self.broker["connected"] and self.broker["since"] is not None:
            return  # the client's every failed attempt says so again
        self.broker = {**self.broker, "connected": change.connected, "since": change.at,
                       "reason": change.reason}
        self.updates.publish({"broker": self.broker})

    def _apply(self, topic: str, payload: bytes, received_at: float,
               changed: dict[str, dict]) -> None:
        self.received += 1
        try:
            table, kind, body = messages.decode(topic, payload)
            if kind == "event":
                if not self.room.add_event(table, body):
                    return  # applied already: a repeat, or an older number of its journal
                self.store.add_event(table, body.get("journal"), body["seq"], payload)
            elif kind == "state":
                self.room.set_state(table, body)
                self.store.set_state(table, body)
            else:
                self.room.set_status(table, body)
                self.store.set_status(table, body)
        except (messages.MessageError, KeyError, TypeError, ValueError) as error:
            self.rejected += 1
            log.warning("dropped a message on %.80s: %s", topic, error)
            return
        except Exception:  # noqa: BLE001 - a bug of ours must not stop the room thread
            self.rejected += 1
            log.exception("could not take a message on %.80s", topic)
            return
        # What the pages hear: the table, when its news reached the monitor, and the journal
        # time of its newest event (so a client can tell the delay from table to page).
        item = changed.setdefault(table, {"received": received_at, "ts": None})
        if kind == "event":
            item["ts"] = body["ts"]
