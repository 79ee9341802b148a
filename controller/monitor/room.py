"""The surveillance room as the monitor knows it: every table, its shoes, from the messages
received. Pure (no I/O, no clock, no threads): the monitor's room thread owns one `Room`
and feeds it; the web pages and the API read the dictionaries it gives.

A table's shoes are cut at its `new_shoe` events (the journal's first shoe has none: it
begins with the table), and where the table starts a new journal: its messages name their
journal (`Journal.identity`), and a table restarted with a new one numbers its events, and
its shoes, from 1 again. The journal replaced is kept in the table's `earlier_journals`,
with what its signed heads said; a late message of it is dropped. Each shoe keeps its
rounds, the cards of the round being dealt, its irregularities and faults, and its
`ShoeTally`; the roads are drawn from its results by `controller.game.roads`, the same
module as the terminal's, the report's and `sabot roads`.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from datetime import UTC, datetime

from contract import LAMP_NAMES
from controller.errors import SabotError
from controller.game import roads
from controller.journal.signing import Anchor, public_key_from_hex
from controller.surveillance.tally import ShoeTally

LAST_RESULTS = 12  # shown per table on the room page


@dataclass
class Shoe:
    number: int
    tally: ShoeTally
    journal: str | None = None  # of the messages it came in (None: the table names none)
    rounds: list[dict] = field(default_factory=list)
    notes: list[dict] = field(default_factory=list)  # irregularities, faults, announcements
    started: float | None = None
    ended: float | None = None

    def summary(self) -> dict:
        return {"shoe": self.number, "journal": self.journal, "started": self.started,
                "ended": self.ended, "rounds": len(self.rounds),
                **_counts(self.tally.summary())}

    def detail(self) -> dict:
        results = list(self.tally.results)
        drawn = roads.roads_json(results, self.tally.pairs)
        return {**self.summary(),
                "tally": self.tally.summary(),
                "roads": {**drawn, "boards": _boards(results)},
                "round_list": self.rounds,
                "notes": self.notes}


def _boards(results: list[str]) -> dict:
    """The derived roads laid out as on a board (columns of six), by the roads' own layout."""
    return {name: [[cell.result if cell else None for cell in column] for column in
                   roads.as_columns(roads.layout([roads.RoadCell(m) for m in marks]))]
            for name, marks in roads.derived_roads(results).items()}


def _counts(tally: dict) -> dict:
    keys = ("banker", "player", "tie", "player_pairs", "banker_pairs", "naturals", "void")
    return {key: tally[key] for key in keys}


@dataclass
class Evidence:
    """What the signed heads a table published say about its journal (docs/security.md).

    `signed`: every head so far is validly signed (by the table's trusted key, when the
    monitor was given one) and none went back; `broken`: one was not, with the reason, and
    it stays so (a journal cut short or rewritten does not heal); `unsigned`: no head yet."""

    state: str = "unsigned"
    anchor: dict | None = None  # the newest head that passed, for `sabot verify --anchor`
    problem: str = ""

    def check(self, head: dict | None, trusted: str | None) -> None:
        if self.state == "broken":
            return
        if head is None:
            if self.anchor is not None:
                self._break(f"the table stopped signing its journal after record "
                            f"{self.anchor['seq']}")
            return
        anchor = Anchor(**head)
        try:
            valid = anchor.signed_by(public_key_from_hex(anchor.key, "the published head"))
        except SabotError:
            valid = False
        previous = self.anchor
        if not valid:
            self._break(f"the head of record {anchor.seq} is not validly signed")
        elif trusted is not None and anchor.key != trusted:
            self._break(f"record {anchor.seq} is signed by key {anchor.key[:16]}..., not the "
                        "table's")
        elif previous is not None and anchor.key != previous["key"]:
            self._break(f"the signing key changed at record {anchor.seq}")
        elif previous is not None and anchor.seq < previous["seq"]:
            self._break(f"the journal went back from record {previous['seq']} to "
                        f"{anchor.seq}: it was cut short or rolled back")
        elif previous is not None and anchor.seq == previous["seq"] \
                and anchor.hash != previous["hash"]:
            self._break(f"record {anchor.seq} changed after it was signed")
        else:
            self.state, self.anchor = "signed", dict(head)

    def _break(self, problem: str) -> None:
        self.state, self.problem = "broken", problem

    def summary(self) -> dict:
        return {"state": self.state, "signed_up_to": self.anchor["seq"] if self.anchor else None,
                "problem": self.problem}


@dataclass
class TableView:
    table: str
    status: str = "unknown"  # online, offline, unknown (never heard of its status)
    state: dict | None = None  # the last retained state
    last_event_ts: float | None = None
    last_seq: int = 0
    events: int = 0
    shoes: list[Shoe] = field(default_factory=list)
    hands: dict = field(default_factory=lambda: {"round": None, "player": [], "banker": []})
    lamps: list[str] = field(default_factory=list)
    open_faults: list[dict] = field(default_factory=list)
    evidence: Evidence = field(default_factory=Evidence)
    trusted_key: str | None = None  # the table's public key, when the monitor was given it
    journal: str | None = None  # the journal its messages come from (`Journal.identity`)
    earlier_journals: list[dict] = field(default_factory=list)  # those it replaced
    # The old journal's shoe, when a state named the new journal before any of its events:
    # it ends, and the old journal was replaced, at the new one's first event.
    _ending: Shoe | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.shoes:
            self.shoes.append(Shoe(1, ShoeTally()))

    @property
    def shoe(self) -> Shoe:
        return self.shoes[-1]

    def follows(self, journal: str | None, ts: float | None) -> bool:
        """Whether a message of `journal` (an event at `ts`, or a state: None) is to be
        applied: it names no journal (a table before stop 47), or the one followed, or one
        the table has not used before, which is then followed (`_take_up`); False for a
        journal it replaced."""
        if journal is None or journal == self.journal:
            return True
        if any(earlier["journal"] == journal for earlier in self.earlier_journals):
            return False  # a late message of a journal replaced: its shoes are closed
        self._take_up(journal, ts)
        return True

    def _take_up(self, journal: str, ts: float | None) -> None:
        """Follow `journal` from now on. The first one named is the one whose events were
        seen (a table upgraded names it from then on); any other is a new journal, begun at
        `ts`, its first event's time (None, from a state: set by that event, so a restarted
        monitor, which replays the events before the state, tells the same time): the
        table restarted with it deals its first shoe, counts its events from 1 and signs
        its heads from the start, and the old one's faults, hands and lamps are the old
        table's."""
        if self.journal is None:
            self.journal = journal
            for shoe in self.shoes:
                shoe.journal = shoe.journal or journal
            return
        self.earlier_journals.append({
            "journal": self.journal, "last_seq": self.last_seq, "replaced": ts,
            **self.evidence.summary(), "anchor": self.evidence.anchor})
        self.journal, self.last_seq, self.evidence = journal, 0, Evidence()
        self.open_faults, self.lamps = [], []
        self.hands = {"round": None, "player": [], "banker": []}
        if self.state is not None and self.state.get("journal") != journal:
            self.state = None
        shoe = self.shoe
        if shoe.rounds or shoe.tally.drawn or shoe.notes:
            self._ending = shoe if shoe.ended is None else None
            self.shoes.append(Shoe(1, ShoeTally(), journal=journal))
        else:  # nothing was dealt from it: the new journal's first shoe begins here
            shoe.number, shoe.journal = 1, journal
        if ts is not None:
            self._begun(ts)

    def _begun(self, ts: float | None) -> None:
        """The journal followed began at `ts`: the one it replaced ended then."""
        if self.earlier_journals and self.earlier_journals[-1]["replaced"] is None:
            self.earlier_journals[-1]["replaced"] = ts
        if self._ending is not None:
            self._ending.ended, self._ending = ts, None

    def add_event(self, message: dict) -> None:
        """One event message, in seq order (the caller drops duplicates and old ones)."""
        kind, ts = message["event"], message.get("ts")
        self._begun(ts)
        self.last_seq = max(self.last_seq, message["seq"])
        self.last_event_ts = ts
        self.events += 1
        if kind == "new_shoe":
            previous = self.shoe
            previous.ended = previous.ended or ts
            number = int(message.get("shoe", previous.number + 1))
            if previous.rounds or previous.tally.drawn:
                self.shoes.append(Shoe(number, ShoeTally()))
            else:  # nothing was dealt from the shoe before: this is where it begins
                self.shoe.number = number
            self.hands = {"round": None, "player": [], "banker": []}
        shoe = self.shoe
        if shoe.started is None:
            shoe.started = ts
        if shoe.tally.decks is None and self.state and self.state.get("decks"):
            shoe.tally.decks = self.state["decks"]
        shoe.tally.add(message)
        if kind == "card":
            if self.hands["round"] != message.get("round"):
                self.hands = {"round": message.get("round"), "player": [], "banker": []}
            hand = message.get("hand")
            if hand in ("player", "banker"):
                self.hands[hand].append(message["card"])
        elif kind == "round":
            shoe.rounds.append({k: message.get(k) for k in (
                "round", "player", "banker", "player_total", "banker_total", "natural",
                "player_pair", "banker_pair", "result", "void", "ts")})
        elif kind == "lamps":
            self.lamps = list(message.get("on", []))
        elif kind in ("irregularity", "fault", "last_coup", "shoe_end", "shoe_exhausted"):
            shoe.notes.append({k: v for k, v in message.items()
                               if k not in ("table", "cause")})
            if kind == "fault":
                self.open_faults.append({"reason": message.get("reason"),
                                         "round": message.get("round"), "ts": ts})
            if kind in ("shoe_end", "shoe_exhausted"):
                shoe.ended = ts
        elif kind == "ack":
            # The faults it cleared stay listed, said to be acknowledged: red beside a table
            # dealing on, they read as open (an officer's trial, stop 46).
            for note in shoe.notes:
                if note.get("event") == "fault" and note.get("acknowledged") is None:
                    note["acknowledged"] = ts
            self.open_faults = []

    def set_state(self, state: dict) -> None:
        """The retained state, of the journal followed (`follows`)."""
        self.state = state
        self.evidence.check(state.get("anchor"), self.trusted_key)
        if state.get("lamps") is not None and state.get("seq", 0) >= self.last_seq:
            self.lamps = list(state["lamps"])
        if self.shoe.tally.decks is None and state.get("decks"):
            self.shoe.tally.decks = state["decks"]

    def _current_state(self) -> dict | None:
        """The retained state, when no event seen is newer than it (it says how the table
        stands after every event the monitor has)."""
        state = self.state
        if not state or not isinstance(state.get("seq"), int) or state["seq"] < self.last_seq:
            return None
        return state

    def _missed_tally(self, own: dict) -> dict | None:
        """The table's own tally of the shoe in play (from its retained state) where the
        events seen of that shoe hold fewer rounds: a monitor started after the shoe began
        (its broker keeps no old events) showed 0 rounds, 0 banker, 0 player, beside the
        table's cards left. None when the events seen (`own`: their tally of the shoe) tell
        the shoe whole."""
        state = self._current_state()
        tally = state.get("tally") if state else None
        if not isinstance(tally, dict) or not isinstance(tally.get("rounds"), int):
            return None
        if tally.get("shoe") not in (None, self.shoe.number):
            return None
        return tally if tally["rounds"] > own["rounds"] else None

    def _open_faults(self) -> list[dict]:
        """The faults not yet acknowledged: from the events seen, or, where those hold none
        but the table's retained state does (a monitor started after the table halted),
        from the state."""
        state = self._current_state()
        faults = state.get("faults") if state else None
        if self.open_faults or not isinstance(faults, list) or not faults:
            return self.open_faults
        return [{"reason": str(reason), "round": state.get("round"), "ts": None}
                for reason in faults]

    def summary(self, now: float | None = None) -> dict:
        """A tile of the room page."""
        state = self.state or {}
        own = self.shoe.tally.summary()
        missed = self._missed_tally(own)
        tally = missed if missed is not None else own
        since = None if now is None or self.last_event_ts is None else now - self.last_event_ts
        return {
            "table": self.table, "status": self.status,
            "shoe": self.shoe.number, "round": state.get("round"),
            "phase": state.get("phase"), "lamps": self.lamps,
            "last_results": tally["results"][-LAST_RESULTS:],
            "cards_left": state.get("cards_left"),
            "open_faults": self._open_faults(),
            "irregularities": tally["irregularities"],
            "last_event_ts": self.last_event_ts, "seconds_since_event": since,
            "last_seq": self.last_seq, "journal": self._journal_summary(),
            # The shoe in play's counts are the table's own, not the events seen: the
            # monitor came after the shoe began.
            "partial": missed is not None, **_counts(tally),
        }

    def detail(self, now: float | None = None) -> dict:
        """The table page: everything about the shoe in play, the earlier shoes listed."""
        current = self.shoe.detail()
        missed = self._missed_tally(current["tally"])
        if missed is not None:
            # Its rounds were not seen, only how they ended (the table's tally, without the
            # pairs): the counts and the roads from that, the round list as seen.
            results = [roads.OF_LETTER[letter] for letter in missed["results"]
                       if letter in roads.OF_LETTER]
            current = {**current, **_counts(missed), "rounds": missed["rounds"],
                       "tally": missed, "partial": True,
                       "roads": {**roads.roads_json(results), "boards": _boards(results)}}
        return {**self.summary(now), "state": self.state, "hands": self.hands,
                "lamp_names": list(LAMP_NAMES),
                "current": current,
                "shoes": [shoe.summary() for shoe in self.shoes]}

    def shoe_detail(self, number: int, journal: str | None = None) -> dict | None:
        """Shoe `number` of `journal`, or, with no journal named, the newest shoe of that
        number (a table restarted with a new journal numbers its shoes from 1 again)."""
        for shoe in reversed(self.shoes):
            if shoe.number == number and journal in (None, shoe.journal):
                return {"table": self.table, **shoe.detail()}
        return None

    def anchor(self, journal: str | None = None) -> dict | None:
        """The newest signed head that passed, of the journal followed or of `journal`, one
        it replaced (for `sabot verify --anchor` of the old journal)."""
        if journal is None or journal == self.journal:
            return self.evidence.anchor
        for earlier in self.earlier_journals:
            if earlier["journal"] == journal:
                return earlier["anchor"]
        return None

    def _journal_summary(self) -> dict:
        """What the signed heads say, of the journal followed and of those it replaced."""
        replaced = [{k: v for k, v in earlier.items() if k != "anchor"}
                    for earlier in self.earlier_journals]
        return {**self.evidence.summary(), "id": self.journal, "replaced": replaced}


class Room:
    def __init__(self, keys: dict[str, str] | None = None) -> None:
        """`keys`: table id -> its trusted public key (hex), for the evidence check."""
        self.tables: dict[str, TableView] = {}
        self.keys = dict(keys or {})

    def table(self, table: str) -> TableView:
        view = self.tables.get(table)
        if view is None:
            view = self.tables[table] = TableView(table, trusted_key=self.keys.get(table))
        return view

    def add_event(self, table: str, message: dict) -> bool:
        """False for a message not applied: already applied (a duplicate, or an older seq of
        its journal) or of a journal the table replaced."""
        view = self.table(table)
        if not view.follows(message.get("journal"), message.get("ts")):
            return False
        if message["seq"] <= view.last_seq:
            return False
        view.add_event(message)
        return True

    def set_state(self, table: str, state: dict) -> bool:
        """False for a state not taken: of a journal the table replaced."""
        view = self.table(table)
        if not view.follows(state.get("journal"), None):
            return False
        view.set_state(state)
        return True

    def set_status(self, table: str, status: str) -> None:
        self.table(table).status = status

    def summary(self, now: float | None = None) -> list[dict]:
        return [self.tables[t].summary(now) for t in sorted(self.tables)]


CSV_COLUMNS = ("round", "player", "banker", "player_total", "banker_total", "natural",
               "player_pair", "banker_pair", "result", "void", "ts")
# After them, for the reader of a spreadsheet: `ts` (seconds since 1970) as a UTC time.
TIME_COLUMN = "time"


def shoe_csv(detail: dict) -> str:
    """A shoe's rounds as CSV (cards space-separated within a cell)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow((*CSV_COLUMNS, TIME_COLUMN))
    for r in detail["round_list"]:
        writer.writerow([*(_cell(r.get(c)) for c in CSV_COLUMNS), _utc(r.get("ts"))])
    return out.getvalue()


def _utc(ts) -> str:
    if not isinstance(ts, int | float) or isinstance(ts, bool):
        return ""
    try:
        moment = datetime.fromtimestamp(ts, UTC)
    except (OverflowError, OSError, ValueError):  # a table's clock far off: no time
        return ""
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _cell(value) -> str:
    """A cell a spreadsheet will not run: the messages came over the network."""
    text = " ".join(map(str, value)) if isinstance(value, list) else "" if value is None \
        else str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
