"""A shoe report for review: one self-contained HTML page per journal.

Rounds, bead plate and big road, irregularities and faults, per shoe. No scripts, no
external assets: the page can be mailed or archived as it is.
"""

from __future__ import annotations

import html
from collections import Counter
from datetime import UTC, datetime

from controller.game.roads import LETTER, ROWS, big_road, leading_ties, width
from controller.game.roads import bead_plate as plate
from controller.journal.store import Record
from controller.views.text import counted

_COLOUR = {"banker": "#c62828", "player": "#1565c0", "tie": "#2e7d32"}
_STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{margin:0 0 4px} h2{margin-top:32px;border-bottom:2px solid #ddd}
table.rounds{border-collapse:collapse;font-size:14px}
table.rounds td,table.rounds th{padding:2px 10px;border-bottom:1px solid #e4e4e4;text-align:left}
tr.void td{color:#999;font-style:italic}
.grid{display:inline-grid;grid-auto-flow:column;grid-template-rows:repeat(6,22px);gap:2px;
 background:#fff;padding:6px;border:1px solid #ccc;margin-right:24px;vertical-align:top}
.cell{width:22px;height:22px;border-radius:50%;font-size:12px;color:#fff;display:flex;
 align-items:center;justify-content:center;font-weight:bold}
.ring{background:#fff!important;border:3px solid;box-sizing:border-box;color:#2e7d32;
 position:relative}
.ring .bp,.ring .pp{position:absolute;width:6px;height:6px;border-radius:50%}
.ring .bp{top:-2px;left:-2px;background:#c62828}
.ring .pp{bottom:-2px;right:-2px;background:#1565c0}
.empty{background:none}
.alert{color:#8e24aa} .irr{color:#e65100}
.summary span{margin-right:18px;font-weight:bold}
"""


def _cells(cells: dict[tuple[int, int], str], columns: int, ring: dict | None = None) -> str:
    """A road's grid; `ring`: the big road's cells (`roads.RoadCell`), drawn as rings with
    their ties counted and their round's pairs marked (banker's dot top left, player's
    bottom right), as the monitor draws them."""
    out = []
    for column in range(columns):
        for row in range(ROWS):
            result = cells.get((column, row))
            if result is None:
                out.append('<div class="cell empty"></div>')
            elif ring is not None:
                cell = ring[(column, row)]
                mark = str(cell.ties) if cell.ties else ""
                player_pair, banker_pair = cell.pair
                dots = (('<span class="bp" title="banker pair"></span>' if banker_pair else "")
                        + ('<span class="pp" title="player pair"></span>' if player_pair
                           else ""))
                out.append(f'<div class="cell ring" style="border-color:{_COLOUR[result]}">'
                           f'{mark}{dots}</div>')
            else:
                out.append(f'<div class="cell" style="background:{_COLOUR[result]}">'
                           f'{LETTER[result]}</div>')
    return f'<div class="grid">{"".join(out)}</div>'


# The event's journal time and record number, beside its own keys (which are never these).
AT, SEQ = "@ts_us", "@seq"


def _when(event: dict) -> str:
    """The event's journal time, UTC, to the second ("" for an event without one)."""
    at = event.get(AT)
    if not isinstance(at, int):
        return ""
    try:
        return f"{datetime.fromtimestamp(at / 1e6, UTC):%H:%M:%S}"
    except (OverflowError, OSError, ValueError):  # a clock far off
        return ""


def _shoe_section(number: int, events: list[dict]) -> str:
    rounds = [e for e in events if e["event"] == "round"]
    scored = [r["result"] for r in rounds if not r["void"]]
    # A journal older than the pairs' keys has none (controller.journal.replay.ADDED_KEYS).
    pairs = [(r.get("player_pair", False), r.get("banker_pair", False)) for r in rounds
             if not r["void"]]
    counts = Counter(scored)
    road = big_road(scored, pairs=pairs)
    beads = plate(scored)
    rows = []
    for r in rounds:
        css = ' class="void"' if r["void"] else ""
        rows.append(
            f"<tr{css}><td>{r['round']}</td><td>{_when(r)}</td><td>{r.get(SEQ, '')}</td>"
            f"<td>{' '.join(r['player'])}</td>"
            f"<td>{r['player_total']}</td><td>{' '.join(r['banker'])}</td>"
            f"<td>{r['banker_total']}</td><td style='color:{_COLOUR[r['result']]}'>"
            f"{r['result']}{' (natural)' if r['natural'] else ''}"
            f"{' VOID' if r['void'] else ''}</td></tr>")
    notes = []
    for e in events:
        if e["event"] == "irregularity":
            notes.append(f"<li class='irr'>{_when(e)} round {e['round']}: rule "
                         f"{html.escape(e['rule'])}: "
                         f"{html.escape(e['message'])}</li>")
        elif e["event"] == "fault":
            notes.append(f"<li class='alert'>{_when(e)} round {e['round']}: FAULT: "
                         f"{html.escape(e['reason'])}</li>")
        elif e["event"] == "cut_card":
            # When the cutting card came out is what a dispute over the last coup turns on
            # (an officer's trial, stop 53: only the announcement was listed).
            notes.append(f"<li>{_when(e)} round {e['round']}: cutting card drawn (rule "
                         f"{e['rule']})</li>")
        elif e["event"] == "last_coup":
            notes.append(f"<li>Last coup announced: round {e['round']} (rule {e['rule']})</li>")
        elif e["event"] == "shoe_end":
            notes.append(f"<li>End of shoe after {e['rounds']} rounds, {e['cards_left']} "
                         f"cards left</li>")
    return (
        # Void hands counted among the rounds, as the shoe's end and the monitor count them
        # (the report said 75 rounds and 1 void above "End of shoe after 76 rounds").
        f"<h2>Shoe {number}</h2><p class='summary'><span>{len(rounds)} rounds</span>"
        f"<span style='color:{_COLOUR['banker']}'>Banker {counts['banker']}</span>"
        f"<span style='color:{_COLOUR['player']}'>Player {counts['player']}</span>"
        f"<span style='color:{_COLOUR['tie']}'>Tie {counts['tie']}</span>"
        f"<span>{len(rounds) - len(scored)} void</span>"
        f"<span>player pairs {sum(p for p, _ in pairs)}</span>"
        f"<span>banker pairs {sum(b for _, b in pairs)}</span>"
        f"{_leading(scored)}</p>"
        "<div><h3>Bead plate and big road</h3>"
        f"{_cells(beads, max(width(beads), 12))}"
        f"{_cells({p: c.result for p, c in road.items()}, max(width(road), 24), ring=road)}</div>"  # noqa: E501
        f"<h3>Irregularities, faults and announcements</h3><ul>{''.join(notes) or '<li>none</li>'}</ul>"  # noqa: E501
        "<h3>Rounds</h3><table class='rounds'><tr><th>#</th><th>time (UTC)</th>"
        "<th>record</th><th>Player</th><th></th>"
        f"<th>Banker</th><th></th><th>Result</th></tr>{''.join(rows)}</table>")


def _leading(results: list[str]) -> str:
    ties = leading_ties(results)
    return f"<span>{counted(ties, 'tie', 'ties')} before the first win</span>" if ties else ""


def _verdict(verdict: str) -> str:
    if not verdict:
        return ""
    # Green only for a journal checked against the table's key or an anchor: intact, a
    # journal without one could still be re-chained whole by anyone (orange).
    colour = ("#2e7d32" if verdict.startswith("verified")
              else "#e65100" if verdict.startswith("not proven") else "#c62828")
    return f"<p style='color:{colour};font-weight:bold'>{html.escape(verdict)}</p>"


def render_report(source: str, records: list[Record], verdict: str = "", ends: str = "") -> str:
    """`verdict`: what `sabot verify` says of the journal, shown at the top (in red when the
    journal fails it: what follows may not be what happened); `ends`: where the journal
    ends in the middle of a round, the burn or a halt, with the cards (a dispute is about
    that round, which the rounds listed do not hold)."""
    shoes: list[list[dict]] = [[]]
    for record in records:
        if record.kind != "event":
            continue
        if record.body["event"] == "new_shoe" and shoes[-1]:
            shoes.append([])
        # When and where in the journal, for a dispute about one round (an auditor's trial).
        shoes[-1].append({**record.body, AT: record.ts_us, SEQ: record.seq})
    first = datetime.fromtimestamp(records[0].ts_us / 1e6, UTC) if records else None
    last = datetime.fromtimestamp(records[-1].ts_us / 1e6, UTC) if records else None
    span = f"{first:%Y-%m-%d %H:%M:%S} to {last:%H:%M:%S} UTC" if first and last else "empty"
    body = "".join(_shoe_section(i, events) for i, events in enumerate(shoes, start=1))
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>Sabot shoe report"
            f"</title><style>{_STYLE}</style></head><body><h1>Sabot shoe report</h1>"
            f"<p>{html.escape(source)}: {len(records)} journal records, {span}</p>"
            f"{_verdict(verdict)}"
            + (f"<p style='font-weight:bold'>{html.escape(ends)}</p>" if ends else "")
            + f"{body}</body></html>")
