"""How commands print table events: JSON lines, or the readable lines of `render`."""

from __future__ import annotations

import sys
from collections.abc import Callable

from controller.game.state import BURN, ROUND
from controller.game.table import Table
from controller.views.text import describe, summary

EXIT_OK, EXIT_OUT_OF_CARDS, EXIT_HALTED = 0, 3, 4


class EventPrinter:
    """Prints events as they come. In text, each shoe gets its own summary and bead plate
    when it ends (a new shoe's rounds are not counted with the last one's); what is left
    when the input ends is summed up by `close`."""

    def __init__(self, as_json: bool, *, flush: bool = False, sums: bool = True):
        self.as_json = as_json
        self.flush = flush  # each event at once (`replay --follow` into a pipe)
        self.sums = sums  # each shoe summed up (not for one round of it: `replay --round`)
        self.rounds: list[dict] = []  # of the shoe being dealt
        self._summed = False
        self._heard = False  # any event at all (`replay --shoe N` of a shoe not there: none)
        if as_json:  # imported only here: the text output's start-up does not pay for it
            import json

            self._dumps = json.dumps

    def __call__(self, event: dict) -> None:
        self._heard = True
        if event["event"] == "round":
            self.rounds.append(event)
        if self.as_json:
            sys.stdout.write(self._dumps(event, separators=(", ", ": ")) + "\n")
            if self.flush:
                sys.stdout.flush()
            return
        line = describe(event)
        if line is not None:
            if "time" in event:  # `sabot replay --times`: the line starts with it
                gap = "\n" if line.startswith("\n") else ""
                line = f"{gap}{event['time']}  {line.removeprefix(gap)}"
            print(line, flush=self.flush)
        if event["event"] == "shoe_end":
            self._sum_up()

    def _sum_up(self) -> None:
        if self.sums:
            print(summary(self.rounds))
        self.rounds, self._summed = [], True

    def close(self) -> None:
        if not self.as_json and (self.rounds or (self._heard and not self._summed)):
            self._sum_up()


Printer = Callable[[dict], None]


def finish(table: Table, *, journal: bool = False,
           writing: bool = False) -> tuple[int, dict | None]:
    """The exit status for how the input left the table, and the `input_end` event that says
    so when it stopped in the middle of something (None when it ended cleanly). `journal`:
    the input was a journal (`sabot replay`), which says where it ends and with which cards
    (an auditor's dispute is about that round); `writing`: the service is writing it still,
    so it ends there only for now, and that is no exit status of its own (a script around
    `sabot replay` of a live table failed in the middle of every round)."""
    state = table.state
    ends = ("the journal ends for now (the service is writing it)" if writing
            else "the journal ends")
    if state.halted:
        what = ends if journal else "the input ended"
        # A journal's halted round names its cards too: the dispute is about them.
        cards = _cards_of(state) if journal else ""
        held = f" ({cards})" if cards else ""
        return EXIT_OK if writing else EXIT_HALTED, {
            "event": "input_end", "round": state.round_number, "phase": state.phase,
            "reason": f"{what} with the table halted on {len(state.faults)} "
                      f"fault(s), the first: {state.faults[0]}{held}"}
    if state.phase in (ROUND, BURN) and (state.player or state.burn_cards):
        where = f"round {state.round_number}" if state.phase == ROUND else "the burn"
        reason = (f"{ends} in the middle of {where}: {_cards_of(state, named=False)}"
                  if journal else f"the cards ran out in the middle of {where}")
        return EXIT_OK if writing else EXIT_OUT_OF_CARDS, {
            "event": "input_end", "round": state.round_number, "phase": state.phase,
            "reason": reason}
    if state.ran_dry:
        return EXIT_OUT_OF_CARDS, None  # the shoe_exhausted event has said so
    return EXIT_OK, None


def _cards_of(state, *, named: bool = True) -> str:
    """The cards on the table in the round or burn under way ("" with none): "player 4C 9H,
    banker -", or the burn's "burn 7S 2D" (`named` False: "7S 2D", after "the burn: ")."""
    if state.phase == ROUND and state.player:
        return f"player {' '.join(state.player)}, banker {' '.join(state.banker) or '-'}"
    if state.phase == BURN and state.burn_cards:
        return ("burn " if named else "") + " ".join(state.burn_cards)
    return ""
