"""The table: the NZ baccarat rules as a deterministic state machine.

`Table.apply(observation) -> list[event]` is the whole core: no I/O, no clock, no threads.
Replaying the same observations always yields the same events and the same state. Events
are JSON-ready dicts (`{"event": "round", ...}`), the contract of `sabot deal --json`.
"""

from __future__ import annotations

from contract import ALL_CARDS, JOKER
from controller.errors import InputError
from controller.game import observations as obs
from controller.game.cards import CARDS_PER_DECK, burn_value, hand_total, is_pair, parse_card
from controller.game.lamps import lamps
from controller.game.places import place_now, place_of_last_card
from controller.game.shoe import MIN_CUT_FROM_BACK
from controller.game.state import BETWEEN, BURN, ENDED, ROUND, TableState
from controller.game.tableau import INITIAL_CARDS, PLAYER, initial_hand, is_natural, result

STYLES = ("A", "B")
MISSING_NAMED = 12  # codes a short count's fault names (its `count` event carries them all)


class Table:
    def __init__(self, decks: int = 8, style: str = "A", require_no_more_bets: bool = True):
        if not 1 <= decks <= 12:
            raise InputError(f"decks must be between 1 and 12, not {decks}")
        if style not in STYLES:
            raise InputError(f"dealing style must be A or B (rules 9.9, 9.10), not {style!r}")
        self.state = TableState(
            decks=decks, style=style, require_no_more_bets=require_no_more_bets
        )
        self._events: list[dict] = []
        # The lamps as the last observation left them: only `apply` changes the state.
        self._lit = lamps(self.state)

    def lamps(self) -> frozenset[str]:
        return lamps(self.state)

    def apply(self, observation: obs.Observation) -> list[dict]:
        before = self._lit
        self._events = []
        _HANDLERS[type(observation)](self, observation)
        self._check_exhausted()
        if self.state.counting and self.state.cards_left == 0:
            self._give_count()
        after = self._lit = lamps(self.state)
        if after != before:
            self._emit("lamps", on=sorted(after))
        return self._events

    # -- events ------------------------------------------------------------------------

    def _emit(self, name: str, **fields) -> None:
        self._events.append({"event": name, **fields})

    def _notice(self, message: str, **fields) -> None:
        """Something that changes nothing but that the dealer or surveillance should see."""
        self._emit("notice", message=message, **fields)

    def _irregularity(self, rule: str, message: str, **fields) -> None:
        self._emit("irregularity", rule=rule, message=message, round=self.state.round_number,
                   **fields)

    def _fault(self, reason: str, card: str | None = None) -> None:
        s = self.state
        s.faults.append(reason)
        if card is not None:
            s.set_aside.append(card)
            s.ledger["set_aside"] += 1
            s.last_drawn_to = "set_aside"
        self._emit("fault", reason=reason, card=card, round=s.round_number)

    # -- observations ------------------------------------------------------------------

    def _on_card(self, o: obs.Card) -> None:
        s = self.state
        card = parse_card(o.card)
        if card == s.pushed_back:
            self._drawn_again(card, o.face_up)
            return
        s.last_read, s.last_read_place = card, ""
        seen = s.counts[card] = s.counts[card] + 1
        if seen <= s.decks:
            s.cards_drawn += 1  # a foreign copy beyond the decks does not empty the shoe
        if seen > s.decks:
            article = "an" if s.decks in (8, 11) else "a"
            self._fault(f"{card} seen {seen} times in {article} {s.decks}-deck shoe", card)
        elif s.pushed_back:
            # The card pushed back is the first in the shoe: another before it means it was
            # taken out by hand, or never went back. Awaited still, every card after it
            # would be set aside, and a later copy of it swallowed (a review, stop 49).
            awaited, s.pushed_back = s.pushed_back, None
            self._fault(f"{card} drawn while {awaited}, pushed back into the shoe, was the "
                        f"card to come: set {card} aside and check the shoe; {awaited} is "
                        "awaited no longer (read again, it is counted as a card drawn)", card)
        elif s.faults:  # halted
            self._fault(f"{card} drawn while the table is halted", card)
        elif s.phase == ENDED and s.counting:
            s.counted += 1
            s.ledger["counted_out"] += 1
            s.last_drawn_to = "counted_out"
        elif s.phase == ENDED:
            self._fault(f"{card} drawn after the end of the shoe (rule 7.1: no more cards "
                        f"until the cards are reshuffled or replaced)", card)
        elif s.phase == BURN:
            self._burn(card)
        elif s.phase == BETWEEN:
            self._card_between_rounds(card, o.face_up)
        else:
            self._deal(card, face_up=o.face_up)

    def _on_unreadable(self, o: obs.Unreadable) -> None:
        s = self.state
        s.last_read = None
        if o.reason != JOKER and s.pushed_back:
            # Most likely the card pushed back, read no better this time: counted again it
            # would be one card too many; the supervisor checks which it is.
            card, s.pushed_back = s.pushed_back, None
            self._fault(f"unreadable card ({o.reason}) while {card}, pushed back into the "
                        f"shoe, was the card to come: taken for {card} and not counted "
                        f"again; check that it is {card}, whose place is "
                        f"{place_now(s, card, s.pushed_back_to)}")
            return
        burning = s.phase == BURN and not s.faults
        if o.reason == JOKER:
            # Not one of the shoe's cards (a deck of the game has 52): like a foreign copy
            # beyond the decks it is set aside and leaves the count of the shoe alone. A
            # card that could not be read is one of them, whatever it was.
            instead = ("; it is not one of the cards burned: burn one more in its place (rule "
                       "7.4(b))" if burning and s.burn_cards else "")
            self._fault("a joker left the shoe: it is not one of the shoe's cards; set it "
                        f"aside{instead}", "JOKER")
            return
        s.cards_drawn += 1
        if burning and s.burn_cards:
            # Burned face down, its value is needed by nobody: set aside instead, one card
            # more was burned than the dealer burned, and every hand after held the wrong
            # cards (a rules audit, stop 53). The camera failed all the same: the table halts.
            s.burn_unread += 1
            self._fault(f"unreadable card: {o.reason}: burned face down, it is one of the "
                        "cards burned (rule 7.4(b)), whose values are not needed")
            self._burn_done()
        elif burning:
            self._fault(f"unreadable card: {o.reason}: it was the burn's first card, shown "
                        "to tell how many are burned (rule 7.4(a)): set it aside and show "
                        "the next card in its place", "??")
        else:
            self._fault(f"unreadable card: {o.reason}", "??")

    def _on_equipment_fault(self, o: obs.EquipmentFault) -> None:
        self._fault(o.reason)

    def _on_slid_back(self, o: obs.SlidBack) -> None:
        """The card just read went back into the shoe: it stays where it was dealt, and
        its next reading is not counted again. Not in the Gazette's rules: the table halts
        for the dealer to draw it again once the supervisor has seen it."""
        s = self.state
        card = parse_card(o.card)
        if card != s.last_read:
            last = f"the last card read was {s.last_read}" if s.last_read else (
                "no card was the last thing read")
            self._fault(f"{card} reported pushed back into the shoe, but {last}: check the "
                        "shoe and the hands")
            return
        s.pushed_back, s.last_read = card, None
        s.pushed_back_to = s.last_read_place or place_of_last_card(s)
        self._fault(f"{card} went back into the shoe after it was read (drawn half way and "
                    f"pushed back): it stays where it was dealt ({s.pushed_back_to}) and is "
                    "not counted again when it is drawn; acknowledge, then draw it")

    def _drawn_again(self, card: str, face_up: bool) -> None:
        """The card pushed back, drawn again: counted once already."""
        s = self.state
        place = place_now(s, card, s.pushed_back_to)
        s.pushed_back, s.last_read, s.last_read_place = None, card, place
        if face_up:
            self._fault(f"{card} came out face up after it was pushed back into the shoe: "
                        f"taken for the same card and not counted again; check it: its place is "
                        f"{place}")
        else:
            self._notice(f"{card} drawn again after it was pushed back into the shoe: not "
                         f"counted again; its place is {place}", card=card)

    def _on_cut(self, _: obs.Cut) -> None:
        s = self.state
        s.last_read = None
        if s.phase == BURN:
            # Rule 7.3 has the dealer insert it near the back of the stack after the cut:
            # in the burn, the cut went wrong (it was "at least twenty cards from the back",
            # which a card at the front is too: a rules audit, stop 53).
            self._fault("cutting card drawn during the burn: the cut (rule 7.3) inserts it "
                        "near the back of the stack: check the shoe; after the "
                        "acknowledgement the first round is the last")
            s.cut_seen = True
            self._announce_last_coup("9.8")
        elif s.phase == ENDED or s.cut_seen:
            self._notice("second cutting card set aside (rule 7.3)")
        elif s.phase == ROUND or s.held:
            s.cut_seen = s.cut_during_round = True
            self._emit("cut_card", rule="9.7", round=s.round_number)
            self._check_cut_depth()
        else:
            s.cut_seen = True
            self._emit("cut_card", rule="9.8", round=s.round_number)
            self._check_cut_depth()
            self._announce_last_coup("9.8")

    def _check_cut_depth(self) -> None:
        """Rule 7.3: the cutting card goes at least MIN_CUT_FROM_BACK cards in from the back. One
        nearer the back was taken as any other, and the last coup ran out of cards with
        nothing said before (a rules audit, stop 53)."""
        left = self.state.cards_left
        if left < MIN_CUT_FROM_BACK:
            cards = f"{left} card{'s' if left != 1 else ''}"
            self._irregularity("7.3", f"cutting card drawn with {cards} left in the shoe: "
                               "rule 7.3 inserts it at least twenty cards from the back; the "
                               "last coup may run out of cards")

    def _on_no_more_bets(self, _: obs.NoMoreBets) -> None:
        s = self.state
        if s.phase != BETWEEN or s.bets_closed or s.halted:
            self._notice(f"\"No more bets\" ignored: the table is {self._situation()}")
            return
        s.bets_closed = True
        s.last_result = None
        self._emit("no_more_bets", round=s.round_number)
        if s.held:  # rules 12.1(b), 12.2(a): held excess cards open the round
            self._start_round(void=False)
            while s.held and s.phase == ROUND:
                card, _rule = s.held.pop(0)
                self._deal(card, face_up=False, from_held=True)

    def _on_disclosed(self, _: obs.Disclosed) -> None:
        s = self.state
        if s.halted:
            self._notice("disclosure ignored while the table is halted")
        elif s.phase == BETWEEN and s.held and s.last_drawn_to == "held":
            card, rule = s.held.pop()
            rule = {"12.1(b)": "12.1(b)", "12.2(a)": "12.2(b)"}[rule]
            self._irregularity(rule, f"excess card {card} was disclosed: \"No bets this "
                               "hand\", a void hand is dealt starting with it", card=card)
            self._start_round(void=True)
            self._deal(card, face_up=False)
        elif (s.phase == ROUND and not s.require_no_more_bets and not s.void
              and len(s.player) + len(s.banker) == 1 and s.last_drawn_to == "round"):
            # Without "No more bets" calls the shoe cannot tell an excess card from the
            # first card of a round: a disclosed first card voids the round as rule 12.2(b).
            s.void = True
            self._irregularity("12.2(b)", f"first card {s.player[0]} was disclosed: \"No bets "
                               "this hand\", the round is a void hand", card=s.player[0])
        else:
            self._notice(f"disclosure changes nothing: the table is {self._situation()}")

    def _on_ack(self, _: obs.Ack) -> None:
        s = self.state
        if not s.halted:
            self._notice("acknowledgement ignored: there is no fault")
            return
        self._emit("ack", faults=list(s.faults), set_aside=list(s.set_aside))
        s.faults.clear()
        s.set_aside.clear()

    def _on_count_out(self, _: obs.CountOut) -> None:
        s = self.state
        if s.halted:
            self._notice("count-out refused: acknowledge the fault first")
        elif s.phase != ENDED:
            self._notice(f"count-out refused: the table is {self._situation()} (the cards "
                         "left are counted out after the shoe's last round, rule 11.1)")
        elif s.counting or s.count_given:
            self._notice("count-out ignored: this shoe's cards are "
                         f"{'being' if s.counting else 'already'} counted out")
        else:
            s.counting = True
            self._emit("count_out", shoe=s.shoe, cards_left=s.cards_left, rule="11.1")

    def _give_count(self) -> None:
        """The count-out's result: every card of the shoe seen, or how many were not and
        which codes are missing from the count (a card that could not be read is one of
        them too, but it was seen: only the cards never seen make the count short)."""
        s = self.state
        s.counting, s.count_given = False, True
        missing = [code for code in ALL_CARDS
                   for _ in range(s.decks - min(s.counts[code], s.decks))]
        short = s.cards_left
        self._emit("count", shoe=s.shoe, counted=s.counted, short=short, missing=missing,
                   rule="11.1")
        if short:
            cards = f"{short} card{'s' if short > 1 else ''}"
            named = " ".join(missing[:MISSING_NAMED]) + (
                f" and {len(missing) - MISSING_NAMED} more" if len(missing) > MISSING_NAMED
                else "")
            self._fault(f"the count-out is {cards} short: {named} not seen "
                        "(a card left the shoe unseen, as one drawn stuck to another, or was "
                        "taken); check the discards before the cards are reshuffled")

    def _on_new_shoe(self, _: obs.NewShoe) -> None:
        s = self.state
        if s.counting:  # the dealer says the shoe is empty: the count is what it is
            self._give_count()  # a short count halts the table: this new shoe waits
        if s.halted:
            self._notice("new shoe refused: acknowledge the fault first")
            return
        if s.phase == ROUND:
            self._notice("new shoe refused: finish the round first (rule 7.6 replaces the "
                         "cards after a round)")
            return
        if s.phase != ENDED:
            self._set_aside_held("the cards are replaced before the next round")
            s.ledger["discarded"] += len(s.burn_cards)
            self._emit("shoe_end", rounds=s.rounds, cards_left=s.cards_left,
                       reason="cards replaced (rule 7.6)")
        fresh = TableState(decks=s.decks, style=s.style,
                           require_no_more_bets=s.require_no_more_bets,
                           shoe=s.shoe + 1, ledger=s.ledger)
        self.state = fresh
        self._emit("new_shoe", shoe=fresh.shoe, decks=fresh.decks, style=fresh.style)

    # -- the shoe ----------------------------------------------------------------------

    def _burn(self, card: str) -> None:
        """Rule 7.4: show the first card, then burn as many more as its value (rule 7.5)."""
        s = self.state
        s.burn_cards.append(card)
        s.last_drawn_to = "burn"
        self._burn_done()

    def _burn_done(self) -> None:
        """The burn ends with the first card's value burned after it, cards not read
        (`burn_unread`) among them."""
        s = self.state
        burned = len(s.burn_cards) + s.burn_unread
        if burned == burn_value(s.burn_cards[0]) + 1:
            unread = {"unread": s.burn_unread} if s.burn_unread else {}
            self._emit("burn", cards=list(s.burn_cards), **unread)
            s.ledger["burn"] += burned
            s.burn_cards.clear()
            s.burn_unread = 0
            s.phase = BETWEEN

    def _card_between_rounds(self, card: str, face_up: bool) -> None:
        s = self.state
        first_of_round = not s.held
        if face_up and first_of_round:
            self._irregularity("12.3", f"first card {card} of the round was found face up: "
                               "\"No bets this hand\", a void hand is dealt starting with it",
                               card=card)
            self._start_round(void=True)
            self._deal(card, face_up=False)
        elif face_up and s.require_no_more_bets and not s.bets_closed:
            self._irregularity("12.2(b)", f"excess card {card} was found face up (disclosed): "
                               "\"No bets this hand\", a void hand is dealt starting with it",
                               card=card)
            self._start_round(void=True)
            self._deal(card, face_up=False)
        elif s.require_no_more_bets and not s.bets_closed:
            completed = s.last_result
            rule = ("12.1(b)" if first_of_round and completed is not None
                    and len(completed["player"]) + len(completed["banker"]) == 4
                    else "12.2(a)")
            s.held.append((card, rule))
            s.last_drawn_to = "held"
            self._irregularity(rule, f"excess card {card} drawn before \"No more bets\": held "
                               "as a first card of the next round", card=card)
        else:
            self._start_round(void=False)
            self._deal(card, face_up=face_up)

    def _start_round(self, void: bool) -> None:
        s = self.state
        s.phase = ROUND
        s.void = void
        s.last_result = None
        s.player.clear()
        s.banker.clear()

    def _deal(self, card: str, face_up: bool, from_held: bool = False) -> None:
        s = self.state
        dealt = len(s.player) + len(s.banker)
        # The initial four alternate (no hand is complete before them): no need to ask.
        hand = initial_hand(dealt) if dealt < INITIAL_CARDS else s.next_hand()
        (s.player if hand == PLAYER else s.banker).append(card)
        s.last_drawn_to, s.last_hand = "round", hand
        if from_held:
            self._emit("card", card=card, hand=hand, round=s.rounds + 1, held=True)
        else:
            self._emit("card", card=card, hand=hand, round=s.rounds + 1)
        if face_up:
            self._irregularity("12.4", f"{card} was found face up in the shoe during the "
                               "round: it is used in the round", card=card)
        if dealt + 1 >= INITIAL_CARDS and s.next_hand() is None:
            self._complete_round()

    def _complete_round(self) -> None:
        s = self.state
        s.rounds += 1
        player_total, banker_total = hand_total(s.player), hand_total(s.banker)
        outcome = {
            "round": s.rounds,
            "player": list(s.player),
            "banker": list(s.banker),
            "player_total": player_total,
            "banker_total": banker_total,
            "natural": is_natural(hand_total(s.player[:2])) or is_natural(
                hand_total(s.banker[:2])),
            # The scoreboard's pair dots: a hand's first two cards of one rank.
            "player_pair": is_pair(s.player),
            "banker_pair": is_pair(s.banker),
            "result": result(player_total, banker_total),
            "void": s.void,
        }
        self._emit("round", **outcome)
        s.ledger["round"] += len(s.player) + len(s.banker)
        s.last_result = outcome
        s.phase = BETWEEN
        s.bets_closed = False
        was_void, s.void = s.void, False
        s.player.clear()
        s.banker.clear()
        if s.last_coup and not was_void:
            self._end_shoe()
        elif s.last_coup:  # a void hand is not the last round: the next one is
            self._emit("last_coup", round=s.round_number, rule=s.last_coup_rule,
                       after_void_round=s.rounds)
        elif s.cut_during_round:
            s.cut_during_round = False
            self._announce_last_coup("9.7")

    def _announce_last_coup(self, rule: str) -> None:
        s = self.state
        s.last_coup = True
        s.last_coup_rule = rule
        self._emit("last_coup", round=s.round_number, rule=rule)

    def _end_shoe(self, reason: str | None = None) -> None:
        s = self.state
        s.phase = ENDED
        s.last_coup = False
        self._set_aside_held("the cards are reshuffled or replaced before the next round")
        if s.style == "B":
            next_step = "remove the remaining cards and continue with new cards (rules 11.1, 11.2)"
        else:
            next_step = "reshuffle the cards (rule 7.1)"
        fields = {"reason": reason} if reason else {}
        self._emit("shoe_end", rounds=s.rounds, cards_left=s.cards_left, next=next_step,
                   **fields)

    def _set_aside_held(self, why: str) -> None:
        """Rules 12.1(b), 12.2(a): a held excess card opens the next round "unless the cards
        are reshuffled or replaced before the next round". Then it is set aside, and the
        table says so: announced as held, then gone without a word, it would look lost."""
        s = self.state
        if not s.held:
            return
        cards = " ".join(card for card, _ in s.held)
        rules = sorted({rule for _, rule in s.held})
        s.ledger["discarded"] += len(s.held)
        s.held.clear()
        self._notice(f"held excess card(s) {cards} set aside: {why} "
                     f"(rule{'s' if len(rules) > 1 else ''} {', '.join(rules)})")

    def _check_exhausted(self) -> None:
        """No card left in the shoe: the round in progress cannot finish, and between rounds
        no new one can start; either way the shoe is over (rule 7.1)."""
        s = self.state
        if s.cards_drawn < s.decks * CARDS_PER_DECK or s.phase not in (ROUND, BETWEEN) \
                or s.faults:
            return  # cards are left (the common case, tested first and cheaply)
        if s.phase == ROUND:
            s.ledger["abandoned"] += len(s.player) + len(s.banker)
            s.ran_dry = True
            self._emit("shoe_exhausted", round=s.round_number,
                       player=list(s.player), banker=list(s.banker))
            s.player.clear()
            s.banker.clear()
            self._end_shoe(reason="the shoe ran out of cards in the middle of a round")
        else:
            self._end_shoe(reason="the shoe is empty")

    def _situation(self) -> str:
        s = self.state
        if s.halted:
            return "halted"
        return {BURN: "burning cards", BETWEEN: "between rounds",
                ROUND: f"dealing round {s.round_number}", ENDED: "at the end of the shoe"}[s.phase]


# Each observation's handler, by type (looked up once per observation).
_HANDLERS = {kind: getattr(Table, f"_on_{kind.kind}") for kind in obs.ALL_KINDS}
