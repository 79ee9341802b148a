"""Plain-text rendering of table events: the readable output of `deal` and `replay`."""

from __future__ import annotations

from collections import Counter

from controller.game import roads
from controller.game.roads import ROWS

_RESULT_WORD = {"player": "PLAYER", "banker": "BANKER", "tie": "TIE HAND"}


def counted(n: int, one: str, many: str) -> str:
    """"1 tie", "2 ties"."""
    return f"{n} {one if n == 1 else many}"


def describe(event: dict) -> str | None:
    """One line for an event worth reading, None for the ones only machines want."""
    kind = event.get("event")
    if kind == "burn":
        first, *rest = event["cards"]
        unread = event.get("unread", 0)  # burned face down, not read (rule 7.4(b))
        rest += ["??"] * unread
        return f"burn      {first} shown, {len(rest)} burned: {' '.join(rest) or '-'}"
    if kind == "round":
        return _round_line(event)
    if kind == "last_coup":
        return f"  ** Last coup: round {event['round']} is the last (rule {event['rule']})"
    if kind == "shoe_end":
        tail = event.get("reason") or event.get("next", "")
        return (f"== end of shoe: {event['rounds']} rounds, {event['cards_left']} cards left"
                f" - {tail}")
    if kind == "new_shoe":
        decks = f"{event['decks']} deck{'s' if event['decks'] != 1 else ''}"
        return f"\n== shoe {event['shoe']}: {decks}, dealing style {event['style']}"
    if kind == "irregularity":
        return f"  !! rule {event['rule']}: {event['message']}"
    if kind == "fault":
        return f"  FAULT: {event['reason']} - table halted until a supervisor acknowledges"
    if kind == "ack":
        aside = " ".join(event["set_aside"]) or "no card"
        return f"  ACK: supervisor acknowledged; set aside: {aside}"
    if kind in ("notice", "shoe_exhausted", "input_end"):
        return f"  note: {event.get('message') or event.get('reason') or kind}"
    if kind == "count_out":
        return f"== count-out (rule 11.1): the {event['cards_left']} cards left, through the reader"
    if kind == "count":
        if not event["short"]:
            return f"== count: {event['counted']} counted out, the shoe is whole"
        return f"== count: {event['counted']} counted out, {event['short']} short"
    if kind == "cut_card":
        return f"  cutting card (rule {event['rule']})"
    return None


def _round_line(event: dict) -> str:
    player = " ".join(event["player"])
    banker = " ".join(event["banker"])
    result = _RESULT_WORD[event["result"]]
    notes = []
    if event["natural"]:
        notes.append("natural")
    if event["void"]:
        notes.append("VOID HAND, no bets")
    return (f"round {event['round']:>3}  P {player:<12} ({event['player_total']})"
            f"   B {banker:<12} ({event['banker_total']})   {result:<8} {', '.join(notes)}"
            ).rstrip()


def summary(rounds: list[dict]) -> str:
    """Totals and a bead plate (six rows, read down then across) of the scored rounds."""
    scored = [r for r in rounds if not r["void"]]
    counts = Counter(r["result"] for r in scored)
    naturals = sum(1 for r in scored if r["natural"])
    lines = [
        f"{counted(len(scored), 'round', 'rounds')}: banker {counts['banker']}, "
        f"player {counts['player']}, tie {counts['tie']}; "
        f"{counted(naturals, 'natural', 'naturals')}; "
        f"{counted(len(rounds) - len(scored), 'void hand', 'void hands')}",
    ]
    if scored:
        lines.append("bead plate:")
        lines.extend(bead_plate(scored))
    return "\n".join(lines)


def bead_plate(rounds: list[dict], rows: int = ROWS) -> list[str]:
    plate = roads.bead_plate([r["result"] for r in rounds], rows)
    columns = roads.width(plate)
    return ["  " + " ".join(roads.LETTER[plate[(c, row)]] if (c, row) in plate else " "
                            for c in range(columns))
            for row in range(rows)]
