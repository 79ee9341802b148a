"""`sabot verify`: prove a journal was not altered, and that replaying it gives its events.

Four levels, each catching more: the SHA-256 chain and the replay (any edit by someone who
did not recompute the chain); the signed heads checked against a key the verifier trusts
(`key`: a re-chained journal, records appended without the key); an anchor kept outside
the journal (`anchor`: a journal cut short, or rewritten back to an older signed head).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from controller.errors import SabotError
from controller.journal.compare import first_difference
from controller.journal.replay import comparable, replay
from controller.journal.signing import Anchor, public_hex, public_key_from_hex
from controller.journal.store import GENESIS, IDENTITY_CHARS, Journal, record_hash


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


def verify(path: str, *, key: Ed25519PublicKey | None = None,
           anchor: Anchor | None = None) -> Verdict:
    """`key`: the table's public key, trusted; `anchor`: a signed head kept elsewhere."""
    with Journal(path, create=False) as journal:
        try:
            rows, signed = journal.signed_rows()  # one moment of a journal being written
        except sqlite3.DatabaseError as error:
            return Verdict(False, 0, f"{path}: cannot be read ({error})")
        verdict = _verify_content(path, journal, rows, anchored=anchor is not None)
    if not verdict.ok:
        return verdict
    problem = _signature_problem(rows, signed, key, anchor)
    if problem is not None:
        return Verdict(False, verdict.records, problem)
    return Verdict(True, verdict.records, verdict.message + _signature_note(signed, key, anchor))


def latest_anchor(path: str) -> Anchor | None:
    """The newest signed head of the journal at `path` (None: not signed)."""
    with Journal(path, create=False) as journal:
        signed = journal.signatures()
    return signed[-1] if signed else None


def _signature_problem(rows: list[tuple], signed: list[Anchor], key, anchor) -> str | None:
    hashes = {row[0]: row[6] for row in rows}
    trusted = public_hex(key) if key is not None else None
    if anchor is not None:
        named = rows[0][6][:IDENTITY_CHARS] if rows else None
        if anchor.journal and anchor.journal != named:
            whose = f" (table {anchor.table})" if anchor.table else ""
            return (f"the anchor is of journal {anchor.journal}{whose}, not of this one "
                    f"({named}): another journal's, or this one rewritten from its first "
                    "record")
        anchor_key = public_key_from_hex(anchor.key, "the anchor")
        if not anchor.signed_by(anchor_key):
            return "the anchor's signature is not valid: it was not made by its key"
        if trusted is not None and anchor.key != trusted:
            return f"the anchor is signed by key {anchor.key[:16]}..., not the trusted key"
        trusted = anchor.key
        if anchor.seq < 1:
            return f"the anchor names record {anchor.seq}: records are numbered from 1"
        # A journal holding nothing the anchor's key signed may be another table's (or
        # this one, rewritten whole): the verdict is the same, the message says both.
        foreign = ("" if any(head.key == anchor.key for head in signed) else
                   f", and no record of this journal is signed by the anchor's key "
                   f"{anchor.key[:16]}...: the anchor is of another journal, or this one was")
        if anchor.seq > len(rows):
            return (f"the journal ends at record {len(rows)}, but the anchor names record "
                    f"{anchor.seq}" + (f"{foreign} cut short" if foreign
                                       else ": records were cut off"))
        if hashes[anchor.seq] != anchor.hash:
            return (f"record {anchor.seq} is not the one the anchor signed"
                    + (f"{foreign} rewritten" if foreign else ": the journal was rewritten"))
    for head in signed:
        if hashes.get(head.seq) != head.hash:
            return (f"the signed head of record {head.seq} names a hash the journal does not "
                    "hold: it was rewritten after it was signed")
        if trusted is not None and head.key != trusted:
            return f"record {head.seq} is signed by key {head.key[:16]}..., not the trusted key"
        try:
            valid = head.signed_by(public_key_from_hex(head.key, f"record {head.seq}"))
        except SabotError:
            valid = False
        if not valid:
            return f"the signature of record {head.seq} is not valid"
    if trusted is not None:
        last = signed[-1].seq if signed else 0
        if last < len(rows):
            which = (f"record {len(rows)} is" if last + 1 == len(rows)
                     else f"records {last + 1}-{len(rows)} are")
            return f"{which} not signed: written by someone without the table's key"
    return None


def _signature_note(signed: list[Anchor], key, anchor) -> str:
    if not signed:
        return "; not signed"
    if key is None and anchor is None:
        return (f"; signed by key {signed[-1].key[:16]}... (give --key or --anchor to check "
                "that it is the table's)")
    checked = f"; every signature by the trusted key, up to record {signed[-1].seq}"
    return checked + (f"; matches the anchor at record {anchor.seq}" if anchor else "")


def _verify_content(path: str, journal: Journal, rows: list[tuple], *,
                    anchored: bool = False) -> Verdict:
    """The chain, the records' shape and the replay of the journal whose `rows` are given
    (`anchored`: it is checked against an anchor as well, which tells a journal cut short)."""
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
        # The error names the journal; the verdict's line already begins with it.
        return Verdict(False, count, f"replay failed: {str(error).removeprefix(path + ': ')}")
    mismatch = replayed.first_mismatch()
    if mismatch is not None:
        seq, recorded, produced = mismatch
        # Named by the field that differs, as JSON (a trial, stop 52: two Python lists).
        differs = first_difference(comparable(produced, recorded), recorded,
                                   ("replaying gives", "the journal holds"))
        return Verdict(False, count, f"record {seq}: its events are not what replaying its "
                       f"observation gives: {differs}")
    note = ""
    if replayed.unfinished is not None:
        note = (f"; the events of the last observation (record {replayed.unfinished}) "
                "were not written yet: the service completes them on its next start"
                + ("" if anchored else ", or the records after it were cut off (only an "
                   "anchor tells: --anchor)"))
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
