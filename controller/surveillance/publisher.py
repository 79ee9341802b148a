"""The table's surveillance feed: the journal is the outbox.

The publisher thread reads the journal (its own read-only connection, never the writer's)
and sends every event record to the broker, QoS 1, in journal order, then a retained state.
It remembers the last sequence number up to which the broker acknowledged everything, in
`<journal>.published`, and always sends again from there: after a broker outage, a network
cut or a restart of the service nothing is lost, and what was sent twice carries the same
`seq`, which consumers drop. The table thread only sets an event after each commit
(`sink`), so publishing never blocks the table, and the table keeps dealing while the
broker is away.

The retained state is built on the publisher's own thread from the same journal: a replica
`Table` replays the observations (the rules are a pure function, so it is the table's state
exactly) and a `ShoeTally` counts the shoe's events.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from controller.errors import JournalError
from controller.game import observations as obs
from controller.game.table import Table
from controller.journal.replay import settings_of_meta
from controller.journal.store import GENESIS, Journal, Record
from controller.surveillance import messages
from controller.surveillance.broker import BrokerClient, Reachability
from controller.surveillance.tally import ShoeTally

log = logging.getLogger(__name__)

WINDOW = 64  # messages sent and not yet acknowledged, at most
SAVE_EVERY = 0.5  # seconds between writes of the acknowledged position


class Publisher:
    def __init__(self, journal_path: str, table: str, client: BrokerClient, *,
                 poll: float = 0.2, clock: Callable[[], float] = time.time) -> None:
        self.journal_path = journal_path
        self.table = messages.check_table_id(table)
        self.client = client
        self.position_path = Path(f"{journal_path}.published")
        self.wake = threading.Event()
        self._poll = poll
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._acks: queue.SimpleQueue = queue.SimpleQueue()
        self._connects: queue.SimpleQueue = queue.SimpleQueue()
        client.on_ack = self._acks.put
        client.on_connect = self._connected
        client.on_disconnect = lambda reason: self._connects.put("down")
        self.reach = Reachability(
            client, log, "the table deals on, and its events wait in the journal until the "
            "broker takes them (this run keeps trying; the next start on this journal sends what "
            "is left)",
            back=": publishing from the journal")
        # Owned by the publisher thread:
        self.acked = 0  # every event up to this seq is acknowledged by the broker
        self._cursor = 0  # the last record sent (or skipped: not an event)
        self._inflight: OrderedDict[int, tuple[int, bool]] = OrderedDict()  # seq -> mid, acked
        self._by_mid: dict[int, int] = {}
        self._saved_at = 0.0
        self._saved = -1
        self._replica: Table | None = None
        self._settings: dict = {}
        self._replica_seq = 0
        self._anchor = None  # the newest signed head at or before the replica (signing.Anchor)
        self._replica_hash = GENESIS
        self._tally = ShoeTally()
        self._state_seq = -1
        self._journal_id: str | None = None  # `Journal.identity`, in every message

    # -- the interface, from any thread ------------------------------------------------------

    def sink(self, events: list[dict]) -> None:
        """A TableService sink: called on the table thread after each commit."""
        self.wake.set()

    def start(self) -> Publisher:
        self.acked = self._load_position()
        self._cursor = self.acked
        self._thread = threading.Thread(target=self._run, name="publisher", daemon=True)
        self._thread.start()
        self.client.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Send what is journaled (for up to `timeout`, also waiting that long for a broker
        that is away, but not for one no attempt of this run has reached), publish `offline`,
        and close. What could not be sent stays in the journal: the next start sends it."""
        deadline = time.monotonic() + timeout
        if self.reach.reached or not self.reach.unreachable:
            self.flush(max(0.0, deadline - time.monotonic()))
        self._stop.set()
        self.wake.set()
        if self._thread is not None:
            self._thread.join(max(0.1, deadline - time.monotonic()))
            if self._thread.is_alive():
                log.warning("the publisher thread did not stop within %.1f s", timeout)
        if self.client.connected:
            self.client.publish(messages.topic(self.table, "status"), messages.OFFLINE,
                                qos=1, retain=True)
        self.client.close()
        self._save_position(force=True)

    def flush(self, timeout: float) -> bool:
        """Wait until everything journaled so far is acknowledged, also for a broker that is
        away to come back, for up to `timeout` (False: not all of it was)."""
        deadline = time.monotonic() + timeout
        with Journal(self.journal_path, create=False) as journal:
            last = journal.last_seq
        while time.monotonic() < deadline:
            if self.acked >= last:
                return True
            self.wake.set()
            time.sleep(0.02)
        return False

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- the client's thread -----------------------------------------------------------------

    def _connected(self) -> None:
        self.reach.connected()
        self._connects.put("up")

    # -- the publisher thread ----------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with Journal(self.journal_path, create=False) as journal:
                    self._serve(journal)
            except JournalError as error:  # not written yet, or being replaced
                log.warning("publisher: %s; trying again in 1 s", error)
                self._stop.wait(1.0)
            except Exception:  # noqa: BLE001 - surveillance must not stop the table
                log.exception("publisher failed; starting again in 1 s")
                self._stop.wait(1.0)

    def _serve(self, journal: Journal) -> None:
        while not self._stop.is_set():
            self.wake.clear()
            self._take_connection_changes()
            self._take_acks()
            if self.client.connected:
                self._send(journal)
            else:
                self._advance_replica(journal)
            self._save_position()
            if not self._inflight or not self.client.connected:
                self.wake.wait(self._poll)
            else:
                self.wake.wait(0.005)  # acks are coming: look again soon

    def _take_connection_changes(self) -> None:
        while True:
            try:
                change = self._connects.get_nowait()
            except queue.Empty:
                return
            # Up or down, what was not acknowledged is sent again from the journal.
            self._inflight.clear()
            self._by_mid.clear()
            self._cursor = self.acked
            self._state_seq = -1
            if change == "up":
                self.client.publish(messages.topic(self.table, "status"), messages.ONLINE,
                                    qos=1, retain=True)

    def _take_acks(self) -> None:
        while True:
            try:
                mid = self._acks.get_nowait()
            except queue.Empty:
                break
            seq = self._by_mid.pop(mid, None)
            if seq is not None and seq in self._inflight:
                self._inflight[seq] = (mid, True)
        while self._inflight:
            seq, (_, done) = next(iter(self._inflight.items()))
            if not done:
                break
            self._inflight.popitem(last=False)
            self.acked = seq
        if not self._inflight and self._cursor > self.acked:
            self.acked = self._cursor  # the records after the last event were not events

    def _send(self, journal: Journal) -> None:
        if self._journal_id is None:
            self._journal_id = journal.identity()
        for record in journal.records(after=self._cursor):
            if len(self._inflight) >= WINDOW or self._stop.is_set():
                break
            self._model(record)
            if record.kind == "event":
                message = messages.event_message(self.table, self._journal_id, record)
                payload = messages.encode(message)
                mid = self.client.publish(messages.topic(self.table, "event"), payload, qos=1)
                if mid is None:  # the connection went: sent again when it is back
                    return
                self._inflight[record.seq] = (mid, False)
                self._by_mid[mid] = record.seq
                self._take_acks()
            self._cursor = record.seq
        if self._replica_seq != self._state_seq:
            self._anchor = journal.signed_head(self._replica_seq)
            state = messages.encode(self.state())
            if self.client.publish(messages.topic(self.table, "state"), state, qos=1,
                                   retain=True) is not None:
                self._state_seq = self._replica_seq

    def _advance_replica(self, journal: Journal) -> None:
        for record in journal.records(after=self._replica_seq):
            self._model(record)
        self._anchor = journal.signed_head(self._replica_seq)

    def _model(self, record: Record) -> None:
        """The replica table and the tally, advanced once per record."""
        if record.seq <= self._replica_seq:
            return
        if record.kind == "meta":
            self._settings = settings_of_meta(record, self.journal_path)
            self._replica = Table(**self._settings)
            self._tally = ShoeTally(decks=self._settings["decks"])
        elif record.kind == "observation" and self._replica is not None:
            self._replica.apply(obs.observation_from_dict(record.body))
        elif record.kind == "event":
            if record.body.get("event") == "new_shoe":
                self._tally = ShoeTally()
            self._tally.add({**record.body, "ts": record.ts_us / 1e6})
        self._replica_seq, self._replica_hash = record.seq, record.hash

    def state(self) -> dict:
        """The retained state: the table as it stands after the last record read."""
        table = self._replica
        snapshot = table.state.snapshot() if table is not None else {}
        lamps = sorted(table.lamps()) if table is not None else []
        anchor = self._anchor.head() if self._anchor is not None else None
        return {"table": self.table, "journal": self._journal_id,
                "seq": self._replica_seq, "hash": self._replica_hash,
                "ts": self._clock(), "decks": self._settings.get("decks"),
                "style": self._settings.get("style"), **snapshot, "lamps": lamps,
                "tally": self._tally.summary(), "anchor": anchor}

    # -- the acknowledged position -----------------------------------------------------------

    def _load_position(self) -> int:
        """Where the last run left off; 0 (everything again) if unknown or if the journal
        is not the one it was about (its record at that seq has another hash)."""
        try:
            saved = json.loads(self.position_path.read_text())
            seq, digest = int(saved["acked"]), str(saved["hash"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0
        try:
            found = self._hash_at(seq)
        except JournalError:
            return 0
        if found != digest:
            log.warning("%s does not match the journal: publishing it all again",
                        self.position_path)
            return 0
        return seq

    def _save_position(self, force: bool = False) -> None:
        if self.acked == self._saved:
            return
        now = time.monotonic()
        if not force and now - self._saved_at < SAVE_EVERY:
            return
        try:
            digest = self._hash_at(self.acked)
        except JournalError as error:
            log.warning("cannot save the published position: %s", error)
            return
        partial = self.position_path.with_suffix(".published.tmp")
        try:
            partial.write_text(json.dumps({"acked": self.acked, "hash": digest}))
            os.replace(partial, self.position_path)
        except OSError as error:
            log.warning("cannot save the published position: %s", error)
            return
        self._saved, self._saved_at = self.acked, now

    def _hash_at(self, seq: int) -> str | None:
        """The hash of record `seq` (None: the journal has no such record)."""
        if seq <= 0:
            return GENESIS
        with Journal(self.journal_path, create=False) as journal:
            record = next(journal.records(after=seq - 1), None)
        return record.hash if record is not None and record.seq == seq else None
