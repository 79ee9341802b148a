"""Lamps as a pure function of the table state (names from DESIGN.md)."""

from __future__ import annotations

from controller.game.cards import hand_total
from controller.game.state import ENDED, ROUND, TableState
from controller.game.tableau import BANKER, PLAYER, banker_fate

_RESULT_LAMP = {PLAYER: "player_win", BANKER: "banker_win", "tie": "tie"}


def lamps(state: TableState) -> frozenset[str]:
    lit: set[str] = set()
    if state.halted:
        lit.add("fault")
    if state.phase == ENDED:
        lit.add("shuffle")
    elif state.last_coup:
        lit.add("last_coup")
    if state.phase == ROUND and state.void or _void_just_completed(state):
        lit.add("no_bets")
    if not state.halted:  # a halted table shows the dealer nothing to act on
        lit |= _hand_lamps(state)
    return frozenset(lit)


def _hand_lamps(state: TableState) -> set[str]:
    if state.phase == ROUND:
        if len(state.player) + len(state.banker) < 4:
            return set()  # the initial deal: no decision yet
        owed = state.next_hand()
        if owed == PLAYER:
            # The banker's decision waits for the player's third card, unless no card can
            # change it (rule 9.4: 0-2 always draw, 7 always stands).
            fate = banker_fate(hand_total(state.banker))
            banker = {True: {"banker_draw"}, False: {"banker_stand"}}.get(fate, set())
            return {"player_draw", *banker}
        if owed == BANKER:
            return {"player_stand", "banker_draw"}
        return {"player_stand", "banker_stand"}
    if _void_just_completed(state):
        return {"player_stand", "banker_stand"}  # no winner to pay: the hand was void
    if state.last_result is not None:
        return {"player_stand", "banker_stand", _RESULT_LAMP[state.last_result["result"]]}
    return set()


def _void_just_completed(state: TableState) -> bool:
    return state.phase != ROUND and state.last_result is not None and state.last_result["void"]
