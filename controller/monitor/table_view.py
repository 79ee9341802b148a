"""One table as the monitor knows it, from the messages received: its shoes, the hands being
dealt, its lamps and open faults, and the journals it published from (`journals.Track`).
Pure (no I/O, no clock, no threads): the room thread owns it through `Room`.

A table's shoes are cut at its `new_shoe` events (a journal's first shoe has none: it begins
with the journal). Each shoe belongs to one journal: a table restarted with a new journal
numbers its events and its shoes from 1 again, and is followed there from its first message
(`journals` says how it is told); the shoe of the journal it left ends there and stays
listed. What is live (hands, lamps, open faults, the retained state) is the followed
journal's; a late message of another journal goes to that journal's shoes only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from contract import LAMP_NAMES
from controller.game import roads
from controller.monitor.journals import Evidence, Track
from controller.monitor.shoe import Shoe, boards, counts
from controller.surveillance.tally import ShoeTally

LAST_RESULTS = 12  # shown per table on the room page
ROUND_KEYS = ("round", "player", "banker", "player_total", "banker_total", "natural",
              "player_pair", "banker_pair", "result", "void", "ts")
NOTED = ("irregularity", "fault", "cut_card", "last_coup", "shoe_end", "shoe_exhausted")


def _no_hands() -> dict:
    return {"round": None, "player": [], "banker": []}


@dataclass
class TableView:
    table: str
    status: str = "unknown"  # online, offline, unknown (never heard of its status)
    last_event_ts: float | None = None
    events: int = 0
    shoes: list[Shoe] = field(default_factory=list)
    hands: dict = field(default_factory=_no_hands)
    lamps: list[str] = field(default_factory=list)
    open_faults: list[dict] = field(default_factory=list)
    trusted_key: str | None = None  # the table's public key, when the monitor was given it
    journal: str | None = None  # the journal followed (`Journal.identity`)
    tracks: dict[str | None, Track] = field(default_factory=dict)  # first heard first
    # Where the table left a journal for another before any event of the new one (a state
    # came first): the journal left, and its shoe, end at the new one's first event, so a
    # restarted monitor, which replays the events before the states, tells the same time.
    _left: Track | None = field(default=None, repr=False)
    _ending: Shoe | None = field(default=None, repr=False)
    _decks: dict = field(default_factory=dict, repr=False)  # journal -> decks, for a reload

    def __post_init__(self) -> None:
        self.tracks.setdefault(self.journal, Track(self.journal))
        if not self.shoes:
            self.shoes.append(Shoe(1, ShoeTally(), journal=self.journal))

    # -- what is followed --------------------------------------------------------------------

    @property
    def followed(self) -> Track:
        return self.tracks[self.journal]

    @property
    def evidence(self) -> Evidence:
        return self.followed.evidence

    @property
    def state(self) -> dict | None:
        """The followed journal's last retained state."""
        return self.followed.state

    @property
    def last_seq(self) -> int:
        return self.followed.last_seq

    @property
    def shoe(self) -> Shoe:
        """The shoe in play: the followed journal's last."""
        return self._last_shoe(self.journal) or self.shoes[-1]

    # -- messages ------------------------------------------------------------------------------

    def add_event(self, message: dict) -> bool:
        """One checked event message; False when it was applied already (a repeat, or an
        older number of its journal)."""
        seq, ts = message["seq"], message.get("ts")
        track = self._track_of(message.get("journal"), seq, ts, state=False)
        if seq <= track.last_seq:
            track.rewritten(seq, ts)  # a later time under an old number: cut back
            return False
        live = track is self.followed
        if not live and self.followed.newer_than(ts):
            self._follow(track, ts)
            live = True
        self._apply(track, message, live)
        return True

    def set_state(self, state: dict) -> None:
        """One checked retained state, of whichever journal it names."""
        seq, ts = state.get("seq", 0), state.get("ts")
        track = self._track_of(state.get("journal"), seq, ts, state=True)
        if track is not self.followed and self.followed.newer_than(ts):
            self._follow(track, None)
        track.state = state
        track.hear(ts)
        track.evidence.check(state.get("anchor"), self.trusted_key)
        if track is not self.followed:
            return
        if state.get("lamps") is not None and state.get("seq", 0) >= self.last_seq:
            self.lamps = list(state["lamps"])
        if self.shoe.tally.decks is None and state.get("decks"):
            self.shoe.tally.decks = state["decks"]

    def know_decks(self, journal: str | None, decks: int | None) -> None:
        """The decks of `journal`'s shoe, from its stored state, before its events are
        replayed (a restarted monitor sets the states after the events)."""
        if decks:
            self._decks[journal] = decks

    # -- journals --------------------------------------------------------------------------------

    def _track_of(self, name: str | None, seq: int, ts: float | None, *, state: bool) -> Track:
        """The journal a message of `name` (its number `seq`, its time `ts`) is of. A message
        that names none is the followed journal's (a table downgraded). The first name
        heard after messages that named none is theirs, the same journal named from then
        on (a table upgraded), unless it says it is another: a number the unnamed journal
        had heard of already, at a later time (a state: below it)."""
        if name in self.tracks:
            return self.tracks[name]
        if name is None:
            return self.followed
        unnamed = self.tracks.get(None)
        if unnamed is not None and not self._begins_another(unnamed, seq, ts, state):
            del self.tracks[None]
            unnamed.name = name
            self.tracks[name] = unnamed
            for shoe in self.shoes:
                shoe.journal = name if shoe.journal is None else shoe.journal
            if self.journal is None:
                self.journal = name
            return unnamed
        key = (self.followed.evidence.anchor or {}).get("key")
        track = self.tracks[name] = Track(name, Evidence(known_key=key))
        return track

    @staticmethod
    def _begins_another(unnamed: Track, seq: int, ts: float | None, state: bool) -> bool:
        if not unnamed.heard or ts is None or unnamed.newest is None or ts <= unnamed.newest:
            return False
        return seq < unnamed.heard_up_to() if state else seq <= unnamed.heard_up_to()

    def _follow(self, track: Track, ts: float | None) -> None:
        """Follow `track` from `ts` (None: a state named it; its first event tells when).
        The journal left keeps its shoes, the one in play ending there; the one followed
        continues its own last shoe (a table back on it), or begins its first. Hands, lamps
        and open faults are the new journal's to tell."""
        left, self.journal = self.followed, track.name
        self.open_faults, self.lamps, self.hands = [], [], _no_hands()
        shoe = self._last_shoe(left.name)
        if shoe is not None and not shoe.dealt:
            self.shoes.remove(shoe)  # nothing happened in it: no shoe to list
        elif shoe is not None and shoe.ended is None:
            self._ending = shoe
        self._left = left
        mine = self._last_shoe(track.name)
        if mine is None:
            self.shoes.append(Shoe(1, ShoeTally(), journal=track.name))
        else:  # back on a journal left before: its shoe goes on, last in the list
            self.shoes.remove(mine)
            self.shoes.append(mine)
            mine.ended = mine.ended if mine.tally.ended else None
            if self._ending is mine:
                self._ending = None
        if ts is not None:
            self._begun(ts)

    def _begun(self, ts: float | None) -> None:
        """The followed journal's first event since it was taken up came at `ts`: the
        journal left, and its shoe, ended then."""
        if self._left is not None:
            self._left.left, self._left = ts, None
        if self._ending is not None:
            self._ending.ended, self._ending = ts, None

    def _last_shoe(self, journal: str | None) -> Shoe | None:
        for shoe in reversed(self.shoes):
            if shoe.journal == journal:
                return shoe
        return None

    def _shoe_for(self, track: Track, live: bool) -> Shoe:
        """The shoe an event of `track` goes to: its journal's last; a first one for a
        journal not followed goes before the followed journal's shoes."""
        shoe = self._last_shoe(track.name)
        if shoe is not None:
            return shoe
        shoe = Shoe(1, ShoeTally(), journal=track.name)
        first = None if live else next(
            (k for k, mine in enumerate(self.shoes) if mine.journal == self.journal), None)
        self.shoes.insert(len(self.shoes) if first is None else first, shoe)
        return shoe

    # -- an event --------------------------------------------------------------------------------

    def _apply(self, track: Track, message: dict, live: bool) -> None:
        """One new event of `track`; `live`: of the journal followed, whose hands, lamps and
        faults it tells."""
        kind, ts = message["event"], message.get("ts")
        if live:
            self._begun(ts)
            self.last_event_ts = ts
        track.applied(message["seq"], ts)
        self.events += 1
        shoe = self._shoe_for(track, live)
        if kind == "new_shoe":
            shoe = self._next_shoe(shoe, int(message.get("shoe", shoe.number + 1)), ts)
            shoe.whole = True
            if live:
                self.hands = _no_hands()
        elif shoe.whole is None and kind in ("burn", "card", "round"):
            # Every shoe begins with its burn (rule 7.4; a journal's first shoe has no
            # `new_shoe`): a card or a round seen first is of a shoe begun before.
            shoe.whole = kind == "burn"
        if shoe.started is None:
            shoe.started = ts
        if shoe.tally.decks is None:
            shoe.tally.decks = (track.state or {}).get("decks") or self._decks.get(track.name)
        shoe.tally.add(message)
        if kind == "round":
            shoe.rounds.append({k: message.get(k) for k in ROUND_KEYS})
        elif kind in NOTED:
            shoe.notes.append({k: v for k, v in message.items()
                               if k not in ("table", "cause")})
            if kind in ("shoe_end", "shoe_exhausted"):
                shoe.ended = ts
        elif kind == "ack":
            # The faults it cleared stay listed, said to be acknowledged: red beside a table
            # dealing on, they read as open (an officer's trial, stop 46).
            for note in shoe.notes:
                if note.get("event") == "fault" and note.get("acknowledged") is None:
                    note["acknowledged"] = ts
        if live:
            self._live(kind, message, ts)

    def _next_shoe(self, shoe: Shoe, number: int, ts: float | None) -> Shoe:
        """The shoe a `new_shoe` event begins after `shoe`: a new one, or `shoe` itself
        where nothing was dealt from it."""
        shoe.ended = shoe.ended or ts
        if not (shoe.rounds or shoe.tally.drawn):
            shoe.number = number
            shoe.ended = None
            return shoe
        following = Shoe(number, ShoeTally(), journal=shoe.journal)
        self.shoes.insert(self.shoes.index(shoe) + 1, following)
        return following

    def _live(self, kind: str, message: dict, ts: float | None) -> None:
        """What an event of the followed journal says of the table as it stands."""
        if kind == "card":
            if self.hands["round"] != message.get("round"):
                self.hands = {"round": message.get("round"), "player": [], "banker": []}
            hand = message.get("hand")
            if hand in ("player", "banker"):
                self.hands[hand].append(message["card"])
        elif kind == "lamps":
            self.lamps = list(message.get("on", []))
        elif kind == "fault":
            self.open_faults.append({"reason": message.get("reason"),
                                     "round": message.get("round"), "ts": ts})
        elif kind == "ack":
            self.open_faults = []

    # -- what the pages show -------------------------------------------------------------------

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

    def _journal_summary(self) -> dict:
        """What the followed journal's signed heads say, its name, and the other journals
        the table published from, in the order they were first heard (`replaced`)."""
        others = [track.summary() for name, track in self.tracks.items()
                  if name != self.journal and track.heard]
        return {**self.evidence.summary(), "id": self.journal,
                "first_seq": self.followed.first_seq, "replaced": others}

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
            "partial": missed is not None, **counts(tally),
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
            current = {**current, **counts(missed), "rounds": missed["rounds"],
                       "tally": missed, "partial": True,
                       "roads": {**roads.roads_json(results), "boards": boards(results)}}
        shoes = [shoe.summary() for shoe in self.shoes]
        if missed is not None:
            # The shoe in play's row as its own counts say (a surveillance officer's trial,
            # stop 53: the row said 56 rounds of what was seen beside the table's 76).
            row = next(r for r in reversed(shoes) if r["shoe"] == current["shoe"]
                       and r["journal"] == current["journal"])
            row.update(counts(missed), rounds=missed["rounds"], partial=True)
        return {**self.summary(now), "state": self.state, "hands": self.hands,
                "lamp_names": list(LAMP_NAMES),
                "current": current,
                "shoes": shoes}

    def shoe_detail(self, number: int, journal: str | None = None) -> dict | None:
        """Shoe `number` of `journal`, or, with no journal named, the newest shoe of that
        number (a table restarted with a new journal numbers its shoes from 1 again)."""
        for shoe in reversed(self.shoes):
            if shoe.number == number and journal in (None, shoe.journal):
                return {"table": self.table, **shoe.detail()}
        return None

    def anchor(self, journal: str | None = None) -> dict | None:
        """The newest signed head that passed, of the journal followed or of `journal` (for
        `sabot verify --anchor` of a journal the table left)."""
        track = self.followed if journal is None else self.tracks.get(journal)
        if track is None or track.evidence.anchor is None:
            return None
        # Labelled with whose it is (`signing.Anchor`): an auditor files many.
        labels = {"table": self.table, **({"journal": track.name} if track.name else {})}
        return {**track.evidence.anchor, **labels}
