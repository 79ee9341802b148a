"""The service core: journal the observation, apply it, then perform the effects.

`TableService` is the imperative shell around `Table`. It owns no thread and no queue: the
caller (the `deal` command, the simulator, the live service loop) hands it observations one
at a time. After a crash `recover()` replays the journal and completes the effects of an
observation whose events had not been written yet, so nothing is lost or done twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

from controller.errors import JournalError
from controller.game import observations as obs
from controller.game.table import Table
from controller.journal.replay import TABLE_SETTINGS, replay, table_id, table_settings
from controller.journal.store import Journal
from controller.journal.verify import chain_problem

Sink = Callable[[list[dict]], None]


class LampOutput(Protocol):
    def show(self, lit: frozenset[str]) -> None: ...


class TableService:
    def __init__(self, journal: Journal, settings: dict, lamps: LampOutput | None = None,
                 sinks: Iterable[Sink] = (), clock: Callable[[], float] = time.monotonic,
                 table_id: str | None = None):
        self.journal = journal
        self.table_id = table_id
        self.settings = {key: settings[key] for key in TABLE_SETTINGS}
        self._lamps = lamps
        self._sinks = list(sinks)
        self.table = Table(**self.settings)
        self._clock = clock
        self.lamps_at: float | None = None  # when the lamps were last written

    def recover(self) -> list[obs.Observation]:
        """Rebuild the table from the journal; return the observations it already holds."""
        stored = table_settings(self.journal)
        if stored is None:
            meta = {"table": self.settings}
            if self.table_id is not None:
                meta["table_id"] = self.table_id  # every published message carries it
            self.journal.append("meta", meta)
            self._show_lamps()
            return []
        written_for = table_id(self.journal)
        if self.table_id is not None and written_for is not None \
                and written_for != self.table_id:
            raise JournalError(f"{self.journal.path}: the journal of table {written_for!r}, "
                               f"not of {self.table_id!r} ([table] id): start a new journal "
                               "for this table, or give it its own id back")
        for key in TABLE_SETTINGS:
            if stored[key] != self.settings[key]:
                raise JournalError(
                    f"{self.journal.path}: the journal was written with {key}="
                    f"{stored[key]!r}, not {self.settings[key]!r}")
        broken = chain_problem(list(self.journal.raw_rows()))
        if broken is not None:  # appending would hide the break under a new, valid link
            raise JournalError(
                f"{self.journal.path}: its hash chain is broken ({broken[1]}); nothing was "
                "added to it. Keep it for inspection (`sabot verify`) and start a new journal")
        replayed = replay(self.journal)
        mismatch = replayed.first_mismatch()
        if mismatch is not None:  # rules changed under the journal, or it was altered
            raise JournalError(
                f"{self.journal.path}: record {mismatch[0]} does not replay to the events it "
                "holds; the state cannot be rebuilt from it. Check it with `sabot verify`, "
                "then start a new journal (move this one aside)")
        self.table = replayed.table
        unfinished = replayed.unfinished
        if unfinished is not None:  # crashed between the observation and its events
            self._record_events(unfinished, replayed.produced[unfinished])
        self._show_lamps()
        return [o for _, o in replayed.observations]

    def handle(self, observation: obs.Observation,
               notes: Iterable[tuple[str, dict]] = ()) -> list[dict]:
        """One durable commit before the lamps: the observation, with any `notes` (records
        that change nothing at the table, such as the link's card counter) queued before it
        in the same transaction. Its events are journaled after the lamps are lit; a crash
        between the two is completed by `recover` (the events follow from the observation),
        so the dealer waits for one commit, not two or three."""
        records = self.journal.append_many(
            [*((kind, body, None) for kind, body in notes),
             ("observation", obs.to_dict(observation), None)])
        record = records[-1]
        events = self.table.apply(observation)
        if any(event["event"] == "lamps" for event in events):
            self._show_lamps()
        self._record_events(record.seq, events, lamps_shown=True)
        return events

    def note(self, kind: str, body: dict) -> None:
        """Journal a record that changes nothing at the table (the link's card counter)."""
        self.journal.append(kind, body)

    def _record_events(self, cause: int, events: list[dict], lamps_shown: bool = False) -> None:
        self.journal.append_many(("event", event, cause) for event in events)
        if not lamps_shown and any(event["event"] == "lamps" for event in events):
            self._show_lamps()
        for sink in self._sinks:
            sink(events)

    def _show_lamps(self) -> None:
        if self._lamps is not None:
            self._lamps.show(self.table.lamps())
            self.lamps_at = self._clock()


class LampFanout:
    """Lamps on the Pi's GPIO and, for shoes wired that way, on the microcontroller."""

    def __init__(self, *outputs):
        self.outputs = outputs
        self.shown: frozenset[str] = frozenset()

    def show(self, lit: frozenset[str]) -> None:
        self.shown = frozenset(lit)
        for output in self.outputs:
            output(lit)
