"""`sabot verify`: prove a journal was not altered, and that replaying it gives its events."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from controller.journal import GENESIS, Journal, record_hash
from controller.replay import replay


@dataclass(frozen=True)
class Verdict:
    ok: bool
    records: int
    message: str


def verify(path: str) -> Verdict:
    with Journal(path, create=False) as journal:
        count, previous = 0, GENESIS
        try:
            rows = list(journal.raw_rows())
        except sqlite3.DatabaseError as error:
            return Verdict(False, 0, f"{path}: cannot be read ({error})")
        for expected_seq, (seq, ts_us, kind, cause, body, prev_hash, digest) in enumerate(
                rows, start=1):
            if seq != expected_seq:
                return Verdict(False, count, f"record {expected_seq} is missing "
                               f"(next is {seq}): records were deleted")
            if prev_hash != previous:
                return Verdict(False, count, f"record {seq}: does not follow record {seq - 1} "
                               "(previous hash differs)")
            if record_hash(seq, ts_us, kind, cause, body, prev_hash) != digest:
                return Verdict(False, count, f"record {seq} ({kind}): content does not match "
                               "its hash: it was altered")
            previous, count = digest, count + 1
        if count == 0:
            return Verdict(False, 0, f"{path}: the journal is empty")
        replayed = replay(journal)
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
