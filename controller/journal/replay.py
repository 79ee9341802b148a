"""Replaying a journal through the table: the one way state is rebuilt after a restart."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from controller.errors import JournalError
from controller.game.observations import (
    Card,
    EquipmentFault,
    Observation,
    SlidBack,
    Unreadable,
    observation_from_dict,
)
from controller.game.script import format_script
from controller.game.table import Table
from controller.journal.store import Journal, Record

TABLE_SETTINGS = ("decks", "style", "require_no_more_bets")


@dataclass
class Replayed:
    table: Table
    observations: list[tuple[int, Observation]] = field(default_factory=list)
    # Events the journal holds, and the ones the table produced again, per observation seq.
    recorded: dict[int, list[dict]] = field(default_factory=dict)
    produced: dict[int, list[dict]] = field(default_factory=dict)

    @property
    def unfinished(self) -> int | None:
        """The last observation if the journal stopped before its events were written."""
        if not self.observations:
            return None
        seq, _ = self.observations[-1]
        if self.produced[seq] and not self.recorded.get(seq):
            return seq
        return None

    def first_mismatch(self) -> tuple[int, list[dict], list[dict]] | None:
        for seq, _ in self.observations:
            recorded = self.recorded.get(seq, [])
            if seq == self.unfinished:
                continue
            if not _same_events(recorded, self.produced[seq]):
                return seq, recorded, self.produced[seq]
        return None


# Keys events gained after journals were already being written: a journal of an earlier
# version lacks them and still replays (its other keys must match exactly).
ADDED_KEYS = {"round": ("player_pair", "banker_pair")}


def _same_events(recorded: list[dict], produced: list[dict]) -> bool:
    return len(recorded) == len(produced) and comparable(produced, recorded) == recorded


def comparable(produced: list[dict], recorded: list[dict]) -> list[dict]:
    """`produced` without the ADDED_KEYS its recorded events lack (a journal of an earlier
    version), event for event."""
    out = []
    for k, new in enumerate(produced):
        old = recorded[k] if k < len(recorded) else new
        added = [key for key in ADDED_KEYS.get(new.get("event"), ()) if key not in old]
        out.append({key: value for key, value in new.items() if key not in added})
    return out


def table_settings(journal: Journal) -> dict | None:
    first = next(journal.records(), None)
    if first is None:
        return None
    return settings_of_meta(first, journal.path)


def settings_of_meta(record: Record, where: str) -> dict:
    """The Table settings in the journal's first record."""
    if record.kind != "meta" or not isinstance(record.body.get("table"), dict):
        raise JournalError(f"{where}: record 1 is not the table settings")
    settings = record.body["table"]
    missing = [key for key in TABLE_SETTINGS if key not in settings]
    if missing:
        raise JournalError(f"{where}: table settings lack {', '.join(missing)}")
    return {key: settings[key] for key in TABLE_SETTINGS}


def table_id(journal: Journal) -> str | None:
    """The table id the journal was written for (None: written before ids were journaled)."""
    first = next(journal.records(), None)
    return None if first is None else first.body.get("table_id")


def replay(journal: Journal) -> Replayed:
    settings = table_settings(journal)
    if settings is None:
        raise JournalError(f"{journal.path}: the journal is empty")
    replayed = Replayed(Table(**settings))
    for record in journal.records(after=1):
        if record.kind == "observation":
            try:
                observation = observation_from_dict(record.body)
            except (ValueError, TypeError) as error:
                raise JournalError(f"{journal.path}: record {record.seq}: {error}") from None
            replayed.observations.append((record.seq, observation))
            replayed.produced[record.seq] = replayed.table.apply(observation)
        elif record.kind == "event":
            replayed.recorded.setdefault(record.cause, []).append(record.body)
    return replayed


class DealOrder:
    """Journaled events with their keys in the order `sabot deal` prints them. The journal
    keeps a record's keys sorted (its hash is over one canonical text); the table, fed the
    journal's observations again as they come, produces each event anew in its own order,
    which is printed wherever it is the event journaled. Where it is not (a journal of an
    earlier version), the journal's own record is printed as it is."""

    def __init__(self, settings: dict) -> None:
        self._table = Table(**settings)
        self._pending: list[dict] = []

    @property
    def table(self) -> Table:
        """The table as the observations so far left it."""
        return self._table

    def observed(self, body: dict) -> None:
        """A journaled observation: the events it causes come next."""
        try:
            self._pending = self._table.apply(observation_from_dict(body))
        except (ValueError, TypeError):
            self._pending = []  # unreadable here: `verify` says so; print the records

    def event(self, body: dict) -> dict:
        if self._pending and self._pending[0] == body:
            return self._pending.pop(0)
        self._pending = []  # out of step until the next observation
        return body


def input_steps(journaled: list[Observation]) -> list[Observation]:
    """The journaled observations that stand for steps of the input: all but the faults of
    the equipment (a stale camera, a lost link), which no input spells."""
    return [o for o in journaled if not isinstance(o, EquipmentFault)]


def check_same_input(path: str, journaled: list[Observation], planned: list[Observation], *,
                     camera: bool = False) -> None:
    """A journal can only be resumed by the input that started it: its observations must be
    the start of `planned`. (An unreadable card's reason is the camera's words, not the
    input's, so only its kind is compared.) `camera`: the input went through a camera
    (`simulate`), so a card it could not read is journaled as unreadable where the input
    has the card, and the equipment's faults come between the input's steps."""
    if camera:
        journaled = input_steps(journaled)
    if len(journaled) > len(planned):
        raise JournalError(f"{path}: the journal holds {len(journaled)} observations, more "
                           f"than the input's {len(planned)}: it is another input's")
    stands_for = (Unreadable, Card) if camera else (Unreadable,)
    for index, (old, new) in enumerate(zip(journaled, planned, strict=False), start=1):
        same = old == new or (isinstance(old, Unreadable) and isinstance(new, stands_for))
        if not same:
            was, wanted = format_script([old]).strip(), format_script([new]).strip()
            raise JournalError(f"{path}: observation {index} of the journal is {was}, the "
                               f"input has {wanted} there: the journal belongs to another "
                               "input (start a new journal, or give the input that made it)")


def last_link_state(journal: Journal) -> tuple[int, int, int] | None:
    """(MCU boot id, last card counter, last MCU event number) from the newest `link`
    record, for `Link(resume=)`; the event is 0 in records of a version 1 link."""
    state = None
    for record in journal.records():
        if record.kind == "link":
            body = record.body
            state = (body["boot_id"], body["card_counter"], body.get("event", 0))
    return state


def check_journal_continues(path: str, planned: list[Observation], *,
                            camera: bool = False) -> None:
    """Refuse, before anything is written, a journal that another input started
    (`camera`: as `check_same_input`). An empty file (one `mktemp` made) is a new journal,
    as the writer takes it."""
    if not os.path.exists(path) or (os.path.isfile(path) and os.path.getsize(path) == 0):
        return
    with Journal(path, create=False) as journal:
        journaled = []
        for record in journal.records():
            if record.kind == "observation":
                try:
                    journaled.append(observation_from_dict(record.body))
                except (ValueError, TypeError) as error:
                    raise JournalError(f"{path}: record {record.seq}: {error}") from None
    check_same_input(path, journaled, planned, camera=camera)
    steps = len(input_steps(journaled))
    if camera and steps < len(planned) and isinstance(planned[steps], SlidBack):
        # The card's passage was journaled, its going back was not: a camera cannot be
        # shown a card going back that was drawn before the interruption.
        token = format_script([planned[steps]]).strip()
        raise JournalError(f"{path}: the journal ends between {token[1:]} and its {token}: a "
                           "simulated shoe cannot push back a card drawn before it was "
                           "interrupted; resume it with `sabot deal`, or start a new journal")
