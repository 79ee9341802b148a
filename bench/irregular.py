"""Shoes dealt by a dealer who makes the mistakes of rules 12.1-12.4, for the fault campaign
(`bench/faults.py`, the `dealer errors` rows): a card order with "No more bets" calls, and
the irregularities injected at random moments of it, each with the events that must name
its rule.

The dealer follows the rules' own table (`Table`) to know where a round ends, so an excess
card can be drawn after a round of four cards (rule 12.1(b)), or one that ended on the
player's or the banker's third card (12.2(a)). Moving a card before "No more bets" keeps the
order of the cards: the rules make it the first card of the next round, so nothing but the
irregularity events (and the void hands) tells such a shoe from an honest one.

Rule 12.1(a) (a third card the player may not take given to the banker who must draw) is
not injected: the shoe sees only the order of the cards, in which that card simply is the
banker's (DESIGN.md).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field

from controller.game import observations as obs
from controller.game.shoe import shuffled_shoe
from controller.game.state import BETWEEN, BURN, ENDED, ROUND
from controller.game.table import Table

FOUR, PLAYER_THIRD, BANKER_THIRD = "four cards", "the player's third card", "the banker's third"
AFTER_ANY = (FOUR, PLAYER_THIRD, BANKER_THIRD)

# Each irregularity: what the dealer does, and after which rounds it can happen.
IRREGULARITIES = {
    "excess after four": ("rule 12.1(b): an excess card after a round of four cards, held "
                          "for the next round", (FOUR,)),
    "excess after the player's third": ("rule 12.2(a): an excess card after a round that "
                                        "ended on the player's third card", (PLAYER_THIRD,)),
    "excess after the banker's third": ("rule 12.2(a): an excess card after a round that "
                                        "ended on the banker's third card", (BANKER_THIRD,)),
    "two excess": ("rules 12.1(b)/12.2(a): two excess cards, both held, in order", AFTER_ANY),
    "excess disclosed after four": ("rule 12.1(b): an excess card after four cards, "
                                    "disclosed: a void hand from it", (FOUR,)),
    "excess disclosed after a third card": ("rule 12.2(b): an excess card after a third "
                                            "card, disclosed: a void hand from it",
                                            (PLAYER_THIRD, BANKER_THIRD)),
    "excess face up": ("rule 12.2(b): a second excess card found face up (disclosed): a "
                       "void hand from it, the held card opens the next round", AFTER_ANY),
    "excess, cards replaced": ("rules 12.1(b)/12.2(a): an excess card, then the cards "
                               "replaced before the next round: set aside", AFTER_ANY),
    "first card face up": ("rule 12.3: the first card of a round found face up, before or "
                           "after \"No more bets\": a void hand from it", (None, *AFTER_ANY)),
    "face up in a round": ("rule 12.4: a later card of a round found face up: used in it",
                           ()),
}


@dataclass
class Injected:
    kind: str
    # (index of the observation in the script, the rule an event it causes must name)
    named: list[tuple[int, str]] = field(default_factory=list)


def shape(completed: dict | None) -> str | None:
    """How the round just completed ended, None when none did (the start of a shoe)."""
    if completed is None:
        return None
    if len(completed["banker"]) == 3:
        return BANKER_THIRD
    return PLAYER_THIRD if len(completed["player"]) == 3 else FOUR


def held_rule(after: str) -> str:
    """The rule of an excess card held after a round that ended so (rule 12.1 is about a
    third card the player may not take: after four cards; rule 12.2 any other)."""
    return "12.1(b)" if after == FOUR else "12.2(a)"


class IrregularDealer:
    """Deals one-deck shoes (seeded), injecting the irregularities asked for, each at most
    once a shoe, at random fitting moments; those that found no moment wait for the next."""

    def __init__(self, chance: float = 0.5):
        self.chance = chance

    def shoe(self, seed: int, wanted: list[str]) -> tuple[list[obs.Observation],
                                                          list[Injected], list[str]]:
        """The script, what was injected in it, and what of `wanted` was not."""
        self._rng = random.Random(seed)
        self._seed = seed
        self._stack = deque(shuffled_shoe(1, seed=seed))
        self._table = Table(decks=1)
        self._script: list[obs.Observation] = []
        self._pending = list(wanted)
        self._done: list[Injected] = []
        while self._table.state.phase != ENDED and self._stack:
            state = self._table.state  # asked anew each time: a NEWSHOE replaces it
            if state.phase == BURN:
                self._draw(self._stack.popleft())
            elif state.phase == ROUND:
                self._round_card()
            elif isinstance(self._stack[0], obs.Cut):
                self._draw(self._stack.popleft())  # where the shuffle put it
            elif state.bets_closed:
                self._first_card()
            else:
                self._between_rounds()
        return self._script, self._done, self._pending

    # -- the dealer's moves ----------------------------------------------------------------

    def _draw(self, observation: obs.Observation) -> int:
        self._script.append(observation)
        self._table.apply(observation)
        return len(self._script) - 1

    def _card(self, face_up: bool = False) -> int | None:
        """The next card of the stack (None: the next is the cutting card, or none left)."""
        if not self._stack or not isinstance(self._stack[0], obs.Card):
            return None
        return self._draw(obs.Card(self._stack.popleft().card, face_up=face_up))

    def _take(self, after: str | None) -> str | None:
        """One pending irregularity that can happen now, at the dealer's whim."""
        fitting = [kind for kind in self._pending if after in IRREGULARITIES[kind][1]]
        if not fitting or self._rng.random() >= self.chance:
            return None
        kind = self._rng.choice(fitting)
        self._pending.remove(kind)
        return kind

    def _round_card(self) -> None:
        dealt = len(self._table.state.player) + len(self._table.state.banker)
        if dealt and "face up in a round" in self._pending and self._stack \
                and isinstance(self._stack[0], obs.Card) \
                and self._rng.random() < self.chance / 4:  # one of a round's later cards
            self._pending.remove("face up in a round")
            self._done.append(Injected("face up in a round", [(self._card(True), "12.4")]))
        else:
            self._draw(self._stack.popleft())

    def _first_card(self) -> None:
        """After "No more bets": the first card of the round."""
        if "first card face up" in self._pending and self._rng.random() < self.chance / 4:
            nth = self._card(face_up=True)
            if nth is not None:
                self._pending.remove("first card face up")
                self._done.append(Injected("first card face up", [(nth, "12.3")]))
                return
        self._draw(self._stack.popleft())

    def _between_rounds(self) -> None:
        """Before "No more bets": where excess cards are drawn."""
        state = self._table.state
        after = shape(state.last_result)
        kind = None if state.held else self._take(after)  # one irregularity at a time
        if kind is not None and not self._inject(kind, after):
            self._pending.append(kind)  # the cutting card or the end came first: later
        if self._table.state.phase == BETWEEN and not self._table.state.bets_closed:
            self._draw(obs.NoMoreBets())

    def _inject(self, kind: str, after: str | None) -> bool:
        if len(self._stack) < 2 or not all(isinstance(o, obs.Card)
                                           for o in list(self._stack)[:2]):
            return False
        done = Injected(kind)
        if kind == "first card face up":
            done.named.append((self._card(face_up=True), "12.3"))  # before "No more bets"
        else:
            done.named.append((self._card(), held_rule(after)))
        if kind == "two excess":
            done.named.append((self._card(), "12.2(a)"))
        elif kind.startswith("excess disclosed"):
            rule = "12.1(b)" if after == FOUR else "12.2(b)"
            done.named.append((self._draw(obs.Disclosed()), rule))
        elif kind == "excess face up":
            done.named.append((self._card(face_up=True), "12.2(b)"))
        elif kind == "excess, cards replaced":
            # New cards before the next round (rule 7.6): the held card is not used.
            done.named.append((self._draw(obs.NewShoe()), held_rule(after)))
            self._stack = deque(shuffled_shoe(1, seed=self._seed + 100_000))
        self._done.append(done)
        return True
