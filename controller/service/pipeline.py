"""One queue, one state machine: drivers submit observations from any thread; a single
consumer journals, applies and performs the effects through `TableService`. It is also the
journal's only writer: other records (the link's card counter) are queued with `record`
and written by the same thread in the transaction of the next observation (or at the
stop), in the order they were queued among the observations.

Each submission may carry the monotonic time at which its evidence became available (the
grab time of the frame that decided a card); the pipeline reports, per observation, how long it
took until its effects were done, which is the frame-to-lamp latency when lamps changed.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from controller.game import observations as obs
from controller.service.table_service import TableService

_STOP = object()


@dataclass(frozen=True)
class _Record:
    kind: str
    body: dict


@dataclass(frozen=True)
class Handled:
    observation: obs.Observation
    events: list[dict]
    evidence_at: float | None  # monotonic time the evidence appeared, when known
    done_at: float  # monotonic time the journal, lamps and sinks were done
    lamps_at: float | None = None  # monotonic time the lamps were written, if they changed

    @property
    def latency(self) -> float | None:
        """Evidence to lamps when the lamps changed (the dealer's wait), else to done."""
        if self.evidence_at is None:
            return None
        return (self.lamps_at if self.lamps_at is not None else self.done_at) - self.evidence_at

    @property
    def changed_lamps(self) -> bool:
        return any(event["event"] == "lamps" for event in self.events)


class Pipeline:
    def __init__(self, service: TableService, on_handled: Callable[[Handled], None] = None,
                 clock: Callable[[], float] = time.monotonic):
        self.service = service
        self._on_handled = on_handled
        self._clock = clock
        self._queue: queue.Queue = queue.Queue()
        self._handled = 0
        self._submitted = 0
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def submit(self, observation: obs.Observation, evidence_at: float | None = None) -> int:
        """Queue an observation; returns its ticket (1, 2, ...) for `wait_for`."""
        with self._cond:
            self._submitted += 1
            ticket = self._submitted
            self._queue.put((observation, evidence_at))
        return ticket

    def record(self, kind: str, body: dict) -> None:
        """Queue a journal record that is not an observation (from any thread)."""
        self._queue.put(_Record(kind, body))

    def wait_for(self, ticket: int, timeout: float = 10.0) -> bool:
        """Block until observation `ticket` has been handled (or the pipeline failed)."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self._handled >= ticket or self.error is not None, timeout)

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> Pipeline:
        self._thread = threading.Thread(target=self._run, name="table", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Finish what is queued, then stop."""
        self._queue.put(_STOP)
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        notes: list[tuple[str, dict]] = []  # records waiting for the next observation
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    for kind, body in notes:
                        self.service.note(kind, body)
                    return
                if isinstance(item, _Record):
                    # Written with the next observation, in its transaction: a card's counter
                    # record then costs no commit of its own.
                    notes.append((item.kind, item.body))
                    continue
                observation, evidence_at = item
                events = self.service.handle(observation, notes)
                notes = []
                changed = any(event["event"] == "lamps" for event in events)
                lamps_at = getattr(self.service, "lamps_at", None) if changed else None
                handled = Handled(observation, events, evidence_at, self._clock(), lamps_at)
                if self._on_handled is not None:
                    self._on_handled(handled)
            except BaseException as error:  # noqa: BLE001 - reported to the waiting caller
                with self._cond:
                    self.error = error
                    self._cond.notify_all()
                return
            with self._cond:
                self._handled += 1
                self._cond.notify_all()
