"""A shoe's statistics from its events: what a scoreboard shows beside the roads.

Pure: `ShoeTally.add(event)` for each event of one shoe, in order. The publisher puts it in
the retained state; the monitor keeps one per shoe it has seen.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from contract import ALL_CARDS
from controller.game.cards import rank_of
from controller.game.roads import LETTER

CODES = frozenset(ALL_CARDS)
RANK_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@dataclass
class ShoeTally:
    shoe: int = 1
    decks: int | None = None
    results: list[str] = field(default_factory=list)  # "banker", "player", "tie" (not void)
    pairs: list[tuple[bool, bool]] = field(default_factory=list)  # per result
    naturals: int = 0
    voids: int = 0
    drawn: Counter = field(default_factory=Counter)  # rank -> cards seen
    codes: Counter = field(default_factory=Counter)  # card code -> copies of the shoe seen
    unread: int = 0  # cards that left the shoe unread: their rank is not known
    irregularities: list[dict] = field(default_factory=list)
    faults: list[dict] = field(default_factory=list)
    last_coup: int | None = None
    ended: bool = False

    def add(self, event: dict) -> None:
        kind = event.get("event")
        if kind == "new_shoe":
            self.shoe = int(event.get("shoe", self.shoe))
            self.decks = event.get("decks", self.decks)
        elif kind == "burn":
            for code in event.get("cards", []):
                self._left_the_shoe(code)
            self.unread += int(event.get("unread", 0))  # burned face down (rule 7.4(b))
        elif kind == "card":
            self._left_the_shoe(event["card"])
        elif kind == "round":
            if event.get("void"):
                self.voids += 1
                return
            self.results.append(event["result"])
            self.pairs.append((bool(event.get("player_pair")), bool(event.get("banker_pair"))))
            self.naturals += bool(event.get("natural"))
        elif kind == "irregularity":
            self.irregularities.append(_note(event, ("rule", "message", "round")))
        elif kind == "fault":
            self.faults.append(_note(event, ("reason", "round")))
            self._set_aside(event.get("card"))
        elif kind == "last_coup":
            self.last_coup = event.get("round")
        elif kind == "shoe_end":
            self.ended = True

    def _left_the_shoe(self, code: str) -> None:
        self.drawn[rank_of(code)] += 1
        self.codes[code] += 1

    def _set_aside(self, card: str | None) -> None:
        """A card a fault set aside left the shoe as the table counts it (drawn while it
        was halted, after the shoe's end, before a card pushed back): left out, the row of
        cards left summed to more than the table's (a surveillance officer's trial, stop
        53). Not a joker, nor a copy beyond the shoe's decks (the table's count leaves them
        out: `Table._on_card`); a card not read is counted apart, its rank unknown."""
        if card == "??":
            self.unread += 1
        elif card in CODES and (self.decks is None or self.codes[card] < self.decks):
            self._left_the_shoe(card)

    def cards_left_by_rank(self) -> list[list] | None:
        """[[rank, cards left], ...] from the ace to the king (a list: JSON objects do not
        keep "A" before "2" everywhere)."""
        if self.decks is None:
            return None
        return [[rank, max(0, 4 * self.decks - self.drawn[rank])] for rank in RANK_ORDER]

    def summary(self) -> dict:
        counts = Counter(self.results)
        return {
            "shoe": self.shoe,
            "rounds": len(self.results) + self.voids,
            "banker": counts["banker"], "player": counts["player"], "tie": counts["tie"],
            "player_pairs": sum(p for p, _ in self.pairs),
            "banker_pairs": sum(b for _, b in self.pairs),
            "naturals": self.naturals, "void": self.voids,
            "results": "".join(LETTER[r] for r in self.results),
            "cards_left_by_rank": self.cards_left_by_rank(),
            "unread": self.unread,
            "irregularities": len(self.irregularities),
            "last_coup": self.last_coup, "ended": self.ended,
        }


def _note(event: dict, keys: tuple[str, ...]) -> dict:
    out = {key: event.get(key) for key in keys}
    if "ts" in event:
        out["ts"] = event["ts"]
    return out
