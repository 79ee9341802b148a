"""Where a card is, in the words of a fault: for a card pushed back into the shoe after it
was read, which keeps its place and is not counted again when it is drawn."""

from __future__ import annotations

from controller.game.state import ENDED, ROUND, TableState

HELD = "held for the next round"
_PLACES = {"burn": "with the burn cards", "held": HELD, "set_aside": "set aside",
           "counted_out": "with the cards counted out"}


def place_of_last_card(state: TableState) -> str:
    """Where the card just read went."""
    where = state.last_drawn_to
    if where != "round":
        return _PLACES.get(where or "", "where the table put it")
    hand = state.last_hand.capitalize()
    if state.phase == ROUND:
        return f"in the {hand} hand of round {state.round_number}"
    if state.phase == ENDED and state.ran_dry:
        return (f"in the {hand} hand of round {state.round_number}, abandoned when the shoe "
                "ran out of cards")
    return f"in the {hand} hand of round {state.rounds}, which is complete"


def place_now(state: TableState, card: str, place: str) -> str:
    """`place`, the words said when `card` was pushed back, as they stand now: a held
    excess card opens the next round at "No more bets" (rules 12.1(b), 12.2(a)), or is set
    aside when the shoe ends."""
    if place != HELD or any(held == card for held, _ in state.held):
        return place
    if state.phase == ENDED:
        return "set aside with the held cards at the end of the shoe"
    number = state.round_number if state.phase == ROUND else state.rounds
    return f"in round {number}, dealt from the held cards"
