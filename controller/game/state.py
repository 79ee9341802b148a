"""The table's state: plain data, read by the lamps function and the displays."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from controller.game.cards import CARDS_PER_DECK, POINT_VALUES, hand_total
from controller.game.tableau import next_hand

BURN, BETWEEN, ROUND, ENDED = "burn", "between", "round", "ended"


@dataclass
class TableState:
    decks: int = 8
    style: str = "A"
    require_no_more_bets: bool = True

    shoe: int = 1
    phase: str = BURN
    rounds: int = 0  # rounds completed this shoe, void hands included

    burn_cards: list[str] = field(default_factory=list)
    burn_unread: int = 0  # cards burned face down that could not be read (rule 7.4(b))
    counts: Counter = field(default_factory=Counter)  # per card code, this shoe
    cards_drawn: int = 0  # everything that left the shoe this shoe, cutting cards excepted

    player: list[str] = field(default_factory=list)
    banker: list[str] = field(default_factory=list)
    void: bool = False
    bets_closed: bool = False
    held: list[tuple[str, str]] = field(default_factory=list)  # (card, rule) excess cards
    last_drawn_to: str | None = None  # where the last card went: burn/round/held/set_aside
    last_hand: str = ""  # the hand of the last card dealt to a round
    last_result: dict | None = None  # the round just completed, until the next one starts

    cut_seen: bool = False
    cut_during_round: bool = False  # rule 9.7: announce "Last coup" when this round completes
    last_coup: bool = False  # announced; the shoe ends after the next non-void round
    last_coup_rule: str = ""  # 9.7 or 9.8
    ran_dry: bool = False  # the shoe ran out of cards in the middle of a round

    # Rule 11.1: after the last round the cards left are counted out through the reader.
    counting: bool = False  # a count-out under way
    counted: int = 0  # cards counted out this shoe
    count_given: bool = False  # the count's result given (complete, or short at NEWSHOE)

    # A card pushed back into the shoe after it was read (SlidBack): it stays where it was
    # dealt (`pushed_back_to` says where), and its next reading is not counted again.
    last_read: str | None = None  # the card of the last reading, if a card was last out
    last_read_place: str = ""  # its place, when it is known apart from where cards went
    pushed_back: str | None = None
    pushed_back_to: str = ""

    faults: list[str] = field(default_factory=list)
    set_aside: list[str] = field(default_factory=list)  # awaiting the supervisor's ACK

    # Where every card that left the shoe ended up, over all shoes: burn, round, set_aside,
    # discarded (held excess cards when the cards were replaced), abandoned (shoe ran dry),
    # counted_out (left in the shoe after its last round, then counted out: rule 11.1).
    ledger: Counter = field(default_factory=Counter)

    @property
    def halted(self) -> bool:
        return bool(self.faults)

    @property
    def round_number(self) -> int:
        """The number of the round in progress, or of the next one."""
        return self.rounds + 1

    @property
    def shown_round(self) -> int:
        """The round a display names: the one in progress or the next; once the shoe has
        ended, its last (no round comes next). Events keep `round_number`: a card drawn after
        the end is a fault of the round that would have followed, as `sabot deal` says."""
        return self.rounds if self.phase == ENDED else self.round_number

    @property
    def cards_left(self) -> int:
        return max(0, self.decks * CARDS_PER_DECK - self.cards_drawn)

    @property
    def cards_in_play(self) -> int:
        """Cards drawn but not yet in the ledger (burn in progress, round, held)."""
        return (len(self.burn_cards) + self.burn_unread + len(self.player) + len(self.banker)
                + len(self.held))

    def next_hand(self) -> str | None:
        if self.phase != ROUND:
            return None
        return _owed(tuple(self.player), tuple(self.banker))

    def snapshot(self) -> dict:
        """A JSON-ready summary for displays and the surveillance room."""
        return {
            "shoe": self.shoe,
            "phase": self.phase,
            "round": self.shown_round,
            "player": list(self.player),
            "banker": list(self.banker),
            "player_total": hand_total(self.player),
            "banker_total": hand_total(self.banker),
            "void": self.void,
            "held": [card for card, _ in self.held],
            "last_coup": self.last_coup,
            "faults": list(self.faults),
            "cards_left": self.cards_left,
        }


@lru_cache(maxsize=8192)
def _owed(player: tuple[str, ...], banker: tuple[str, ...]) -> str | None:
    """`next_hand` of two hands of card codes: asked three times for every card dealt (the
    deal, the round's end, the lamps), so the hands seen lately are kept."""
    return next_hand([POINT_VALUES[c] for c in player], [POINT_VALUES[c] for c in banker])
