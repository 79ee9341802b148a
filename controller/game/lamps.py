"""Lamps as a pure function of the table state (names from DESIGN.md)."""

from __future__ import annotations

from controller.game.cards import hand_total
from controller.game.state import ENDED, ROUND, TableState
from controller.game.tableau import BANKER, INITIAL_CARDS, PLAYER, banker_fate

_RESULT_LAMP = {PLAYER: "player_win", BANKER: "banker_win", "tie": "tie"}


def lamps(state: TableState) -> frozenset[str]:
    # Read once: this runs after every observation (the engine's hottest path after the deal).
    halted, phase, last = bool(state.faults), state.phase, state.last_result
    void_done = phase != ROUND and last is not None and last["void"]
    # A halted table shows the dealer nothing to act on.
    hand = _NONE if halted else _hand_lamps(state, phase, last, void_done)
    lit = []
    if halted:
        lit.append("fault")
    if phase == ENDED:
        lit.append("shuffle")
    elif state.last_coup:
        lit.append("last_coup")
    if phase == ROUND and state.void or void_done:
        lit.append("no_bets")
    return hand.union(lit) if lit else hand


def _hand_lamps(state: TableState, phase: str, last: dict | None,
                void_done: bool) -> frozenset[str]:
    if phase == ROUND:
        if len(state.player) + len(state.banker) < INITIAL_CARDS:
            return _NONE  # the initial deal: no decision yet
        owed = state.next_hand()
        if owed == PLAYER:
            # The banker's decision waits for the player's third card, unless no card can
            # change it (rule 9.4: 0-2 always draw, 7 always stands).
            return _PLAYER_DRAWS[banker_fate(hand_total(state.banker))]
        return _BANKER_DRAWS if owed == BANKER else _BOTH_STAND
    if void_done:
        return _BOTH_STAND  # no winner to pay: the hand was void
    if last is not None:
        return _RESULT[last["result"]]
    return _NONE


_NONE: frozenset[str] = frozenset()
_BOTH_STAND = frozenset({"player_stand", "banker_stand"})
_BANKER_DRAWS = frozenset({"player_stand", "banker_draw"})
_PLAYER_DRAWS = {True: frozenset({"player_draw", "banker_draw"}),
                 False: frozenset({"player_draw", "banker_stand"}),
                 None: frozenset({"player_draw"})}
_RESULT = {result: _BOTH_STAND | {lamp} for result, lamp in _RESULT_LAMP.items()}
