"""Where a card's top edge crosses the window, told from the window's thumbnail.

A card's top edge is straight across the window, its paper below, whatever the shoe shows
above it. The reader looks for the index only below it (`register.card_top`), and a card
whose edge is low in the window is one coming in, or going back into the shoe
(`register.entering`, which the tracker follows).

Two rules find it. Over the shoe's dark interior the card's paper is more than twice as
bright as what lies above it (`_over_dark`). A camera may see past the card the shoe's lit
lip or the table: grey, wood, felt, more than half as bright as the paper. There the first
rule found 31% of the edges in view over grey, none over a lit lip, and a card drawn a
little and pushed back went unseen going back: 41 of 330 such pulls of the eleven shared
designs over the six surrounds the renderer draws were counted twice (none of 120 over the
interior; `bench.pulls`).
Where the first finds none, the second looks for a step up to paper relative to the paper
itself, with nothing above it that a card shows: paper, strokes of ink, an edge
(`_over_light`).
"""

from __future__ import annotations

from functools import reduce

import cv2
import numpy as np

from vision.features import PAPER_AT_TOP, PAPER_FLOOR, paper_right
from vision.gate import strokes as stroke_mask

# The first rule. A card's top edge is straight across the window: a row or two below where
# paper first shows in the right half, most of that half is paper (the card's top margin).
# A hotspot or glare on a solid cut card is a blob, its bright chord widening slowly (four
# cut cards of `bench.vision`, glared in place, were taken for cards coming in before this
# was asked).
EDGE_ROWS, EDGE_SHARE = 2, 0.7
# And the card's paper is far brighter than the surround above it: a light gradient across a
# dark solid cut card crosses half its brightest straight across the window too (a brown cut
# card of the vector design's, lit from below, was taken for a card coming in).
EDGE_CONTRAST = 0.5  # the rows just above the edge at most this share of those below

# The second rule, in the thumbnail's right half (where no index is printed) and over whole
# rows. The paper's level: the bright end of the EDGE_ROWS rows just below the edge (this
# share of their pixels at or below it), far from a dark stroke. Paper is what is at least
# PAPER_SHARE of that level: most of those rows (EDGE_SHARE), less than PAPER_AT_TOP of any
# row above. A lit lip's brightest row above a card was 0.66 of its paper at nominal light.
PAPER_LEVEL = 0.8
PAPER_SHARE = 0.85
# The rows just above the edge at most this share of those below it: a light gradient
# across a solid cut card moves a few percent from one row to the next.
STEP_CONTRAST = 0.8
# A card's paper lies this many thumbnail rows above the right half's edge at most (turned 6
# degrees, the edge climbs 3.4 rows across the thumbnail; blur spreads it by one or two):
# whole rows are looked at from there up, the right half's from 2 rows up. Paper above is
# looked for this many rows up only (the right half's, and as many whole rows again): a lip
# lit from above can be as bright as the paper at the window's top (asked of every row up
# to the top, a built-in 4D drawn a little and pushed back over such a lip showed no edge
# in any frame and was counted twice, `bench.pulls`); strokes and edges are looked for in
# every row up to the top.
ROWS_CLEAR = 6
# Above the edge, no more of those whole rows than this in strokes or edges (a pixel less
# than half as bright as the brightest within two pixels, `gate.strokes`): the
# surround has none, a card's ink and its left edge have. A gnome-dondorf 6C in place,
# glared below its pips over a lit lip, the paper above them 0.76 of the glared paper, had
# its edge found under the pips, at row 124, as a card coming in, before this was asked.
STROKE_SHARE = 0.02
# A card's top edge is straight: the right half's lengths (left, middle, right) each come
# half way from the surround to the paper within STRAIGHT_ROWS rows of one another (turned
# 6 degrees and keystoned, the edge climbs about 2 rows across the half). A glare's or a
# hotspot's top is a curve, its middle rows ahead of its sides: an empty window glared
# from its middle had its edge found at row 44, and an empty window over a table of
# mottled colours, glared at its right, at row 120, as a card coming in, before this.
STRAIGHT_GROUPS, STRAIGHT_ROWS = 3, 2
# And sharp: the surround just above the edge (its second and third rows) brighter than the
# three rows above those by at most this share of the step to the paper. A card's edge
# steps from the surround, flat or lit from above; a glare's top is the foot of a long
# rise (of 2,400 empty windows glared past the envelope over the six surrounds, 7 had an
# edge found, 4 of them as a card coming in, before this and the straightness; 1 since, not
# coming in).
RISE_ABOVE = 0.25
# The edge's row: the first whose bright end has come this share of the way from the
# surround to the paper (blurred, the rows the edge crosses are neither), about where the
# first rule puts it: a card just far enough into the window for its whole index to show,
# its edge 2 px above ENTERING_BELOW, was put at the first row of paper, a row too low, as
# coming in.
EDGE_WAY = 0.25


def card_top_row(small: np.ndarray, gray: np.ndarray | None = None) -> int | None:
    """The row of the thumbnail `small` where the top edge of a card straight across it is;
    None when there is no such edge. `gray`: the thumbnail in grey, if the caller has it."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if gray is None else gray
    top = _over_dark(gray)
    return top if top is not None else _over_light(gray)


def _over_dark(gray: np.ndarray) -> int | None:
    """The first row whose right half is paper in part, as `features.paper_right` tells
    paper, with most of that half paper within EDGE_ROWS below, and the rows above far
    darker than those below (EDGE_CONTRAST)."""
    right, paper = paper_right(gray, gray)
    share = np.count_nonzero(paper, axis=1) / right.shape[1]
    some, most = np.flatnonzero(share >= PAPER_AT_TOP), np.flatnonzero(share >= EDGE_SHARE)
    if (not len(some) or not len(most) or most[0] - some[0] > EDGE_ROWS or some[0] < 2
            or some[0] + 1 >= len(share)):  # no row below the edge to see the card in
        return None
    top = int(some[0])
    above = float(right[max(0, top - 2 - EDGE_ROWS) : top - 1].mean())
    below = float(right[top + 1 : top + 2 + EDGE_ROWS].mean())
    return top if above <= EDGE_CONTRAST * below else None


def _over_light(gray: np.ndarray) -> int | None:
    """The first row (3 or more) of the right half that is paper in part (PAPER_SHARE of
    the paper's level, from the EDGE_ROWS rows below it), with one of it and those rows
    mostly paper, as bright as PAPER_FLOOR at least; where none of the ROWS_CLEAR rows of
    the right half above it nor of the ROWS_CLEAR + 1 whole rows from ROWS_CLEAR above it up
    is paper in part, the second and third rows above it (the surround) are darker than
    the rows below it by STEP_CONTRAST on average, and the whole rows ROWS_CLEAR or more
    above it show no card's strokes or edges (STROKE_SHARE); straight across
    (STRAIGHT_ROWS) and sharp (RISE_ABOVE). The edge is put up to EDGE_ROWS rows higher, at
    the first that has come EDGE_WAY from the surround to the paper. Each test but the last
    two is of every row at once."""
    height, width = gray.shape
    right = np.ascontiguousarray(gray[:, width // 2 :])
    ordered = np.sort(right, axis=1)
    rows = height - EDGE_ROWS

    def at(sorted_rows: np.ndarray, share: float) -> np.ndarray:
        """Each row's value with `share` of its pixels at or below it."""
        return sorted_rows[:, round(share * (sorted_rows.shape[1] - 1))].astype(np.float32)

    def rows_from(first: int, values: np.ndarray, combine) -> np.ndarray:
        """Per candidate row f < rows: `combine` of `values` over rows f+first .. f+EDGE_ROWS."""
        return reduce(combine, (values[k : k + rows] for k in range(first, EDGE_ROWS + 1)))

    # Cheapest first: most windows this is asked of (a card's body, a solid cut card, a
    # back) have paper, or what is as bright, just above every row that could be the edge.
    level = rows_from(1, at(ordered, PAPER_LEVEL), np.add) / EDGE_ROWS
    paper = PAPER_SHARE * level
    in_part = at(ordered, 1 - PAPER_AT_TOP)  # a row is paper in part where this is paper
    ok = (level >= PAPER_FLOOR) & (rows_from(0, at(ordered, 1 - EDGE_SHARE), np.maximum)
                                   >= paper)
    ok[:3] = False  # two rows above the edge to compare, and one between
    ok[3:] &= (in_part[3:rows] >= paper[3:]) & (
        _recent_max(in_part, ROWS_CLEAR)[2 : rows - 1] < paper[3:])  # the first paper row
    if not ok.any():
        return None
    means = cv2.reduce(right, 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F).ravel()
    surround = np.r_[0.0, 0.0, 0.0, (means[1 : rows - 2] + means[: rows - 3]) * 0.5]
    ok &= surround <= rows_from(1, means, np.add) * (STEP_CONTRAST / EDGE_ROWS)
    if ok[ROWS_CLEAR:].any():
        whole_above = _recent_max(at(np.sort(gray, axis=1), 1 - PAPER_AT_TOP), ROWS_CLEAR + 1)
        strokes = np.cumsum(cv2.reduce(stroke_mask(gray), 1, cv2.REDUCE_SUM,
                                       dtype=cv2.CV_32S).ravel() // 255)
        clear = slice(ROWS_CLEAR, rows)
        ok[clear] &= whole_above[: rows - ROWS_CLEAR] < paper[clear]
        ok[clear] &= strokes[: rows - ROWS_CLEAR] <= STROKE_SHARE * width * np.arange(
            1, rows - ROWS_CLEAR + 1)
    # Straight across: each of STRAIGHT_GROUPS lengths of the right half comes half way
    # from the surround to the paper within STRAIGHT_ROWS rows of the others.
    lengths = cv2.resize(right, (STRAIGHT_GROUPS, height), interpolation=cv2.INTER_AREA)
    for candidate in np.flatnonzero(ok):
        halfway = (surround[candidate] + level[candidate]) * 0.5
        near = lengths[candidate - 2 : candidate + EDGE_ROWS + 1] >= halfway
        if not near.any(axis=0).all():
            continue
        crossed = near.argmax(axis=0)
        if crossed.max() - crossed.min() > STRAIGHT_ROWS:
            continue
        # Sharp: the rows above the surround's rise by little next to the step itself.
        higher = means[max(0, candidate - 6) : candidate - 3]
        if len(higher) and surround[candidate] - higher.mean() > RISE_ABOVE * (
                level[candidate] - surround[candidate]):
            continue
        # The edge's own row: the first to have come EDGE_WAY from the surround to the paper.
        first = int(candidate)
        reached = surround[candidate] + EDGE_WAY * (level[candidate] - surround[candidate])
        while first > candidate - EDGE_ROWS and in_part[first - 1] >= reached:
            first -= 1
        return first
    return None


def _recent_max(values: np.ndarray, span: int) -> np.ndarray:
    """Each place's greatest value over it and the `span` - 1 places before it."""
    padded = np.concatenate([np.full(span - 1, -np.inf, np.float32), values])
    return np.lib.stride_tricks.sliding_window_view(padded, span).max(axis=1)
