"""`sabot verify`: prove a journal was not altered, and that replaying it gives its events."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from controller.errors import SabotError
from controller.journal.replay import replay
from controller.journal.store import GENESIS, Journal, record_hash


@dataclass(frozen=True)
class Verdict:
    ok: bool
    records: int
    message: str


def chain_problem(rows: list[tuple]) -> tuple[int, str] | None:
    """(records intact before it, what is wrong) at the first break of the hash chain in
    `rows` (`Journal.raw_rows`), or None when the chain is whole."""
    previous = GENESIS
    for count, (seq, ts_us, kind, cause, body, prev_hash, digest) in enumerate(rows):
        expected_seq = count + 1
        if seq != expected_seq:
            return count, (f"record {expected_seq} is missing (next is {seq}): records were "
                           "deleted")
        if prev_hash != previous:
            return count, f"record {seq}: does not follow record {seq - 1} (previous hash differs)"
        if record_hash(seq, ts_us, kind, cause, body, prev_hash) != digest:
            return count, f"record {seq} ({kind}): content does not match its hash: it was altered"
        previous = digest
    return None


def verify(path: str) -> Verdict:
    with Journal(path, create=False) as journal:
        try:
            rows = list(journal.raw_rows())
        except sqlite3.DatabaseError as error:
            return Verdict(False, 0, f"{path}: cannot be read ({error})")
        broken = chain_problem(rows)
        if broken is not None:
            return Verdict(False, *broken)
        count = len(rows)
        if count == 0:
            return Verdict(False, 0, f"{path}: the journal is empty")
        problem = _structure_problem(rows)
        if problem is not None:
            return Verdict(False, count, problem)
        try:
            replayed = replay(journal)
        except (SabotError, ValueError, TypeError, KeyError, AttributeError) as error:
            return Verdict(False, count, f"replay failed: {error}")
        mismatch = replayed.first_mismatch()
        if mismatch is not None:
            seq, recorded, produced = mismatch
            return Verdict(False, count, f"record {seq}: replaying this observation gives "
                           f"{produced} but the journal holds {recorded}")
        note = ""
        if replayed.unfinished is not None:
            note = (f"; the events of the last observation (record {replayed.unfinished}) "
                    "were not written yet: the service completes them on its next start")
        return Verdict(True, count, f"{count} records, chain intact, replay matches{note}")


KINDS = {"meta", "observation", "event", "link"}


def _structure_problem(rows: list[tuple]) -> str | None:
    """A rehashed chain proves nothing (there is no key), so replay is the real check. It
    only sees what it expects: the records must be exactly of that shape. Each event follows
    the observation that caused it; nothing else is allowed in."""
    last_observation = None
    for seq, ts_us, kind, cause, body, _prev, _hash in rows:
        if not isinstance(ts_us, int) or not isinstance(seq, int):
            return f"record {seq}: sequence and time must be integers"
        if kind not in KINDS:
            return f"record {seq}: unknown kind {kind!r}"
        if (kind == "meta") != (seq == 1):
            return f"record {seq}: the table settings must be record 1, and only record 1"
        if kind == "observation":
            last_observation = seq
        expected_cause = last_observation if kind == "event" else None
        if cause != expected_cause:
            return (f"record {seq} ({kind}): cause {cause!r} but it follows observation "
                    f"{last_observation}")
        if kind == "link":
            problem = _link_problem(body)
            if problem:
                return f"record {seq}: {problem}"
    return None


LINK_FIELDS = {"boot_id": int, "card_counter": int, "event": int, "lid": bool}


def _link_problem(body: str) -> str:
    """What is wrong with a `link` record's body: boot_id and card_counter always, the MCU's
    event number (link version 2) and a lid change when there is one."""
    try:
        fields = json.loads(body)
        names = set(fields)
    except (ValueError, TypeError):
        return "a link record must be a JSON object"
    if not isinstance(fields, dict) or not {"boot_id", "card_counter"} <= names <= set(
            LINK_FIELDS):
        return ("a link record must hold boot_id and card_counter (and may hold "
                f"event and lid), not {', '.join(sorted(map(str, names))) or 'nothing'}")
    for name, value in fields.items():
        kind = LINK_FIELDS[name]
        if type(value) is not kind:  # a bool is no counter, nor a number a lid
            return f"a link record's {name} must be {kind.__name__}, not {value!r}"
    return ""
