"""The journals a table has published from, as the monitor knows them. Pure: the room thread
owns them through `TableView`.

Every message names its journal (`Journal.identity`; tables before stop 47 name none). A
table restarted with a new journal numbers its records from 1 again, so a sequence number
is a journal's, never the table's: each journal has a `Track` of its own, with what it has
been heard to say and what its signed heads say (`Evidence`). The table is followed on the
journal it wrote last, told by the table's own clock (an event's `ts`, a state's), never by
the order messages arrive in, which MQTT does not keep across topics or shared
subscriptions: a late message of a journal left behind is its own, and a table that
returns to an old journal is followed there again.

What a journal's messages can show of its being rewritten: a signed head that goes back or
changes (`Evidence.check`), and, signed or not, a record number heard again with a later
time than that journal's newest (`Track.heard`): a repeat is the same message, with the
same time; a journal cut back and written on has new records under old numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.errors import SabotError
from controller.journal.signing import Anchor, public_key_from_hex


@dataclass
class Evidence:
    """What the signed heads a table published say about one journal (docs/security.md).

    `signed`: every head so far is validly signed (by the table's trusted key, when the
    monitor was given one, or else by the key of the journal it replaced, if that was
    signed) and none went back; `broken`: one was not, with the reason, and it stays so (a
    journal cut short or rewritten does not heal); `unsigned`: no head yet."""

    state: str = "unsigned"
    anchor: dict | None = None  # the newest head that passed, for `sabot verify --anchor`
    problem: str = ""
    # The key that signed the journal this one replaced: a new journal is the same table's,
    # signed by the same key; without the table's key given to the monitor, a journal
    # switch was a way to change keys unseen.
    known_key: str | None = None

    def check(self, head: dict | None, trusted: str | None) -> None:
        if self.state == "broken":
            return
        if head is None:
            if self.anchor is not None:
                self.fail(f"the table stopped signing its journal after record "
                          f"{self.anchor['seq']}")
            return
        anchor = Anchor(**head)
        try:
            valid = anchor.signed_by(public_key_from_hex(anchor.key, "the published head"))
        except SabotError:
            valid = False
        previous = self.anchor
        if not valid:
            self.fail(f"the head of record {anchor.seq} is not validly signed")
        elif trusted is not None and anchor.key != trusted:
            self.fail(f"record {anchor.seq} is signed by key {anchor.key[:16]}..., not the "
                      "table's")
        elif previous is None and self.known_key and anchor.key != self.known_key:
            self.fail(f"record {anchor.seq} is signed by key {anchor.key[:16]}..., not the "
                      "key of the journal it replaced")
        elif previous is not None and anchor.key != previous["key"]:
            self.fail(f"the signing key changed at record {anchor.seq}")
        elif previous is not None and anchor.seq < previous["seq"]:
            self.fail(f"the journal went back from record {previous['seq']} to "
                      f"{anchor.seq}: it was cut short or rolled back")
        elif previous is not None and anchor.seq == previous["seq"] \
                and anchor.hash != previous["hash"]:
            self.fail(f"record {anchor.seq} changed after it was signed")
        else:
            self.state, self.anchor = "signed", dict(head)

    def fail(self, problem: str) -> None:
        if self.state != "broken":
            self.state, self.problem = "broken", problem

    def summary(self) -> dict:
        return {"state": self.state, "signed_up_to": self.anchor["seq"] if self.anchor else None,
                "problem": self.problem}


@dataclass
class Track:
    """One journal of a table: `name` (None: the table names none), the newest event
    applied (`last_seq`, at `last_ts`), the first heard (`first_seq`), the newest time
    heard of it at all (`newest`: an event's or a state's), its last retained state, and
    when the table left it for another (`left`)."""

    name: str | None
    evidence: Evidence = field(default_factory=Evidence)
    last_seq: int = 0
    last_ts: float | None = None
    first_seq: int | None = None
    newest: float | None = None
    state: dict | None = None
    left: float | None = None

    @property
    def heard(self) -> bool:
        return self.first_seq is not None or self.state is not None

    def heard_up_to(self) -> int:
        """The newest record this journal is known to have: its events', or its state's."""
        seq = (self.state or {}).get("seq")
        return max(self.last_seq, seq if isinstance(seq, int) else 0)

    def newer_than(self, ts: float | None) -> bool:
        """Whether time `ts` of a message of another journal is later than anything heard
        of this one (a message with no time is taken to be)."""
        return ts is None or self.newest is None or ts > self.newest

    def hear(self, ts: float | None) -> None:
        if isinstance(ts, int | float) and (self.newest is None or ts > self.newest):
            self.newest = float(ts)

    def rewritten(self, seq: int, ts: float | None) -> bool:
        """Whether an event numbered `seq` at `ts`, not newer than the newest applied, says
        the journal was rewritten (a later time under an old number; a repeat has its
        message's own time), and if so, says so in the evidence."""
        if seq > self.last_seq or ts is None or self.last_ts is None or ts <= self.last_ts:
            return False
        self.evidence.fail(f"record {seq} came again with a later time, after record "
                           f"{self.last_seq}: the journal was cut back and written on")
        return True

    def applied(self, seq: int, ts: float | None) -> None:
        if self.first_seq is None:
            self.first_seq = seq
        if seq > self.last_seq:
            self.last_seq, self.last_ts = seq, ts
        self.hear(ts)

    def summary(self) -> dict:
        return {"journal": self.name, "first_seq": self.first_seq,
                "last_seq": self.heard_up_to(), "left": self.left,
                **self.evidence.summary()}
