"""How far the card is turned in the window, and the window turned back upright.

The camera sees the card turned by up to 6 degrees (the envelope in `synth`), and the index
search (`register`) and the models (`model`) compare an upright zone: a turned index is
found a little off and looks a little like another. Of the 12 faces `bench.vision` left
unknown at stop 55, 10 were turned 4-6 degrees (a third of the envelope's views are); turned
back by their true angle, 10 were read right. So the ink is turned upright before anything
else looks at it (`model.Prepared`), at enrolment and in the shoe alike.

The turn is read from the card's left edge: the longest straight line in the window
wherever the card is, at the index's side, with the shoe's surround beside it. Its top edge
is the fallback, after a line printed along the left edge (a frame, a border: the left
edge of a card seen large and turned leaves the window at the top): the lens's keystone
tilts the top edge by up to 2.7 degrees (the left edge by 1.1), and a card seen large has it
out of view. Nothing here knows a design: a card's edge is straight whatever is printed on
it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.features import LOG_LIGHT
from vision.geometry import WINDOW_H, WINDOW_W

_HALF = (WINDOW_W // 2, WINDOW_H // 2)  # the edges are looked for at half size
# Where each edge is looked for, in half-size pixels. The left edge: rows below where the
# card's top edge can be with the card in place (a card seen at 0.8 and shifted down has its
# top at row 22), columns as far in as it can be (the envelope puts it at 0-16, turned 6
# degrees 5 more). The top edge: right of the left edge and the rounded corner, down to row
# 32 (a card seen at 0.8 and shifted down: 22, turned: 27).
LEFT_ROWS, LEFT_COLUMNS = slice(23, 100), slice(0, 26)
TOP_ROWS, TOP_COLUMNS = slice(0, 32), slice(26, 64)
ALONG = 5  # half-size pixels averaged along an edge before it is looked for: noise is no edge
# An edge is where the light (in log, so that it does not care how bright) first steps by
# at least SHARE of the strongest step across that row (or column), and by STEP at least:
# noise on the dark interior steps by 0.1-0.2 at half size.
STEP, SHARE = 0.3, 0.5
# A straight edge: at least this share of the rows (or columns) looked at lie within OFF
# half-size pixels of one line, after the rows off it are put aside (ROUNDS times). A glyph
# or a pip nearer the window's side than the edge (a card partly out of view) is in some
# rows only.
ON_LINE, OFF, ROUNDS = 0.6, 1.5, 3
MOST_TURN = 7.5  # degrees: the envelope's 6 and the keystone's tilt; more is no card's edge
LEAST_TURN = 0.5  # degrees: less moves the index zone's far corner by under a pixel
_sum = np.add.reduce


def card_turn(gray: np.ndarray) -> float:
    """The angle (degrees, counter-clockwise as seen; `synth.Perturbation.angle`'s sense)
    the card in the nominal-size grey window `gray` is turned by, from its left edge, else
    a line printed along it (`_voted_slope`), else its top edge; 0.0 where none is straight
    in view."""
    light = cv2.LUT(cv2.resize(gray, _HALF, interpolation=cv2.INTER_AREA), LOG_LIGHT)
    half = ALONG // 2
    left = cv2.blur(light[LEFT_ROWS, LEFT_COLUMNS], (1, ALONG))[half:-half]
    for find in (_edge_slope, _voted_slope):
        turn = _turn_of(find(left))
        if turn is not None:
            return turn
    top = cv2.blur(light[TOP_ROWS, TOP_COLUMNS], (ALONG, 1))[:, half:-half]
    turn = _turn_of(_edge_slope(np.ascontiguousarray(top.T)))
    # A card turned counter-clockwise: its top edge goes up to the right.
    return 0.0 if turn is None else -turn


def _turn_of(slope: float | None) -> float | None:
    """The angle (degrees) of an edge's `slope`; None for none, or one past MOST_TURN."""
    if slope is None:
        return None
    turn = math.degrees(math.atan(slope))
    return turn if abs(turn) <= MOST_TURN else None


def _fitted_slope(y: np.ndarray, x: np.ndarray) -> float:
    """The least-squares slope of x against y (the means by the ufunc's own reduce:
    `ndarray.mean`'s wrapper costs more than the sum)."""
    dy = y - _sum(y) / len(y)
    return float(dy @ (x - _sum(x) / len(x)) / (dy @ dy))


def _edge_slope(light: np.ndarray) -> float | None:
    """The slope (places across per row) of a straight edge crossing every row of `light`
    (rows, places across it; log light), or None where there is none (ON_LINE)."""
    steps = light[:, 2:] - light[:, :-2]
    up = cv2.reduce(steps, 1, cv2.REDUCE_MAX).ravel()
    down = -cv2.reduce(steps, 1, cv2.REDUCE_MIN).ravel()
    # A white card is brighter than the interior, a dark cut card may be darker than a lit
    # surround: the edge steps the way the rows step most.
    if float(down.sum()) > float(up.sum()):
        strongest = down
        strong = steps <= -np.maximum(SHARE * down, STEP)[:, None]
    else:
        strongest = up
        strong = steps >= np.maximum(SHARE * up, STEP)[:, None]
    found = strongest >= STEP
    place = strong.argmax(axis=1).astype(np.float64)
    row = np.arange(len(place), dtype=np.float64)
    need = ON_LINE * len(place)
    keep = found
    for _ in range(ROUNDS):
        if np.count_nonzero(keep) < need:
            return None
        y, x = row[keep], place[keep]
        slope = _fitted_slope(y, x)
        # Off the line through the kept rows' mean place at that slope.
        off = np.abs(place - _sum(x) / len(x) - slope * (row - _sum(y) / len(y)))
        keep = found & (off <= OFF)
    return slope if np.count_nonzero(keep) >= need else None


# Where the card's left edge is out of view in some rows (a card seen large, turned), a line
# printed along it (a frame, a border) may be in view in all: the turn is then the line's
# most of the window's steps lie on, wherever they are across, if it crosses LINE_ON of the
# rows, stepping by LINE_STEP at least. An invented design's 8S seen at 1.23 and turned
# -3.3 degrees, its edge out of view at the top, was read as 6S unturned (`bench.vision
# --invent 12 --invent-seed 1201`); its frame line gave -3.1, and it was read right. At
# 0.3 and 0.6 of the rows, as for the edge, 30 of 1,100 faces of the shared designs were
# turned by such a line, 2.5 degrees off the card's turn at the median (steps of glyphs,
# pips and pictures lined up by chance); at these, 3, within 0.8 degrees.
LINE_STEP, LINE_ON = 0.5, 0.9
# The slopes tried: every quarter degree within MOST_TURN.
_SLOPES = np.tan(np.radians(np.arange(-MOST_TURN, MOST_TURN + 0.125, 0.25)))


def _voted_slope(light: np.ndarray) -> float | None:
    """The slope of the straight line, at any place across `light` (as `_edge_slope`), on
    which the most of its steps lie (each step's first place across, either way, LINE_STEP
    at least), where it crosses LINE_ON of the rows; None where none does."""
    steps = np.abs(light[:, 2:] - light[:, :-2]) >= LINE_STEP
    starts = steps.copy()
    starts[:, 1:] &= ~steps[:, :-1]
    rows, places = np.nonzero(starts)
    need = LINE_ON * len(light)
    if len(rows) < need:
        return None
    middle = len(light) / 2
    # Each step's place across with the line's slope taken out, for every slope (in whole
    # places, shifted to count from 0): a line's steps fall in one or two neighbouring bins.
    reach = int(np.ceil(abs(_SLOPES[0]) * middle)) + 1
    width = steps.shape[1] + 2 * reach + 1
    bins = np.rint(places - _SLOPES[:, None] * (rows - middle)).astype(np.intp) + reach
    votes = np.bincount((bins + width * np.arange(len(_SLOPES))[:, None]).ravel(),
                        minlength=width * len(_SLOPES)).reshape(len(_SLOPES), width)
    pairs = votes[:, :-1] + votes[:, 1:]
    best, at = np.unravel_index(int(pairs.argmax()), pairs.shape)
    if pairs[best, at] < need:
        return None
    on = np.abs(places - _SLOPES[best] * (rows - middle) + reach - at - 0.5) <= OFF
    if np.unique(rows[on]).size < need:
        return None
    return _fitted_slope(rows[on].astype(np.float64), places[on].astype(np.float64))


def turned_upright(image: np.ndarray, angle: float, border: int = cv2.BORDER_REPLICATE
                   ) -> np.ndarray:
    """`image` (nominal window size) turned back by `angle` degrees about its centre (as
    is, where the turn is under LEAST_TURN); `border`: what fills the corners turned in
    (a map of ink wants 0, no ink; a picture its own edge's pixels)."""
    if abs(angle) < LEAST_TURN:
        return image
    matrix = cv2.getRotationMatrix2D((WINDOW_W / 2, WINDOW_H / 2), -angle, 1.0)
    return cv2.warpAffine(image, matrix, (WINDOW_W, WINDOW_H), flags=cv2.INTER_LINEAR,
                          borderMode=border, borderValue=0)
