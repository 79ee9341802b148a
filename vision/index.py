"""Find the card index (rank glyph(s) over a suit pip) in a reading window.

Ink is measured against the local paper white (a max-filtered, downscaled copy of the
window), so uneven light does not move the threshold. Connected components of ink that
touch the window's edge are dropped: they are shoe interior seen past the card's edge, pips
cut by the window, or a glyph only half in view. The rank is the topmost component plus its
neighbours on the same line ("10" is two glyphs); the suit is the next component below it,
in the same column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import WINDOW_H, WINDOW_W

INK_LEVEL = 90  # ink map value (0 paper .. 255 black) above which a pixel is ink
RANK_GAP = 0.2  # most space between two glyphs of a rank, in rank heights
MIN_AREA = 25
MIN_HEIGHT = 8
INDEX_COLUMN = 0.55  # the rank's first glyph is centred in this left part of the window
GLYPH_COLUMN = 0.8  # no glyph of the index is centred right of this
MERGED_MIN = 1.3  # a single glyph this many suit heights tall is a rank touching its pip
PIP_FRACTIONS = (0.4, 1.2)  # a touching pip's visible height, in suit heights
NO_INDEX, NO_SUIT = "no index", "no suit under the rank"
# Paper white is the max over 44 px at full size: wider than the index's pip, so the pip
# is ink to its centre (a smaller kernel would leave it hollow, unevenly from frame to frame).
_WHITE_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (11, 11))
_SMALL = (WINDOW_W // 4, WINDOW_H // 4)


@dataclass(frozen=True)
class Box:
    x: int
    y: int
    w: int
    h: int

    @property
    def bottom(self) -> int:
        return self.y + self.h

    @property
    def right(self) -> int:
        return self.x + self.w

    def union(self, other: Box) -> Box:
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.right, other.right) - x, max(self.bottom, other.bottom) - y)


@dataclass(frozen=True, eq=False)
class Index:
    rank: Box
    suit: Box
    ink: np.ndarray  # ink map of the window, uint8, 255 = darkest ink
    binary: np.ndarray  # ink map thresholded
    merged: Merged | None = None  # set when the rank glyph touches its pip


def ink_map(gray: np.ndarray, small: np.ndarray | None = None) -> np.ndarray:
    """Ink darkness (0 paper .. 255 black) relative to the local paper white.

    Where the local white is far below the window's brightest (shoe interior seen past the
    card's edge), it is raised to a floor: the interior then counts as ink, in regions that
    touch the window's edge and are dropped, instead of as noisy paper full of specks.
    `small`: the window in grey at a quarter size, if the caller has it already."""
    if small is None:
        small = cv2.resize(gray, _SMALL, interpolation=cv2.INTER_AREA)
    white = cv2.dilate(small, _WHITE_KERNEL)
    _, brightest, _, _ = cv2.minMaxLoc(white)
    white = cv2.max(white, max(45.0, 0.45 * brightest))
    white = cv2.resize(white, (WINDOW_W, WINDOW_H), interpolation=cv2.INTER_LINEAR)
    return cv2.subtract(255, cv2.divide(gray, white, scale=255))


def _candidates(outlines: tuple[np.ndarray, ...]) -> list[tuple[int, Box]]:
    """(outline number, box) of the outlines that may be glyphs of the index, top first."""
    found = []
    for number, outline in enumerate(outlines):
        x, y, w, h = cv2.boundingRect(outline)
        if h < MIN_HEIGHT or w * h < MIN_AREA:
            continue
        if x <= 0 or y <= 0 or x + w >= WINDOW_W or y + h >= WINDOW_H:
            continue
        if x + w / 2 > GLYPH_COLUMN * WINDOW_W or cv2.contourArea(outline) < MIN_AREA:
            continue
        found.append((number, Box(x, y, w, h)))
    found.sort(key=lambda item: item[1].y)
    return found


def _overlap(a0: int, a1: int, b0: int, b1: int) -> int:
    return min(a1, b1) - max(a0, b0)


@dataclass(frozen=True, eq=False)
class Merged:
    """One component holding both the rank glyph and the pip it touches (a Jack's hook, a
    Queen's tail). There is no gap to split at: the pip is its bottom rows, 0.4 to 1.2 suit
    heights of them (the glyph may overlap the pip's top; pips differ in height), and the
    reader tries splits against its templates."""

    mask: np.ndarray  # the component's ink inside `box`
    box: Box
    suit_height: float

    def pip_heights(self, step: int, fractions: tuple[float, float] = PIP_FRACTIONS) -> range:
        """Pip heights to try, every `step` rows, between `fractions` of the suit height."""
        low, high = (round(f * self.suit_height) for f in fractions)
        return range(low, high + 1, step)

    def split(self, pip_height: int) -> tuple[Box, Box] | None:
        """(rank, suit) boxes when the pip is the bottom `pip_height` rows."""
        cut = self.box.h - pip_height
        if cut < 0.4 * self.suit_height or pip_height < MIN_HEIGHT:
            return None
        x, y, w, h = cv2.boundingRect(self.mask[:cut])
        sx, sy, sw, sh = cv2.boundingRect(self.mask[cut:])
        if min(w, h, sw, sh) < MIN_HEIGHT // 2:
            return None
        box = self.box
        return Box(box.x + x, box.y + y, w, h), Box(box.x + sx, box.y + cut + sy, sw, sh)


def _merged(binary: np.ndarray, outline: np.ndarray, box: Box, suit_height: float) -> Merged:
    mask = np.zeros((box.h, box.w), np.uint8)
    cv2.drawContours(mask, [outline], -1, 255, cv2.FILLED, offset=(-box.x, -box.y))
    return Merged(cv2.bitwise_and(mask, binary[box.y : box.bottom, box.x : box.right]), box,
                  suit_height)


# Long straight lines: a court card's frame, the card's own edge. A vertical line is at least
# LONG_V pixels (taller than any index, even a Jack merged with its pip), a horizontal one
# LONG_H (wider than "10"); widening by 7 pixels first tolerates a few degrees of rotation.
LONG_V, LONG_H = 110, 72
_WIDEN_H, _WIDEN_V = np.ones((1, 7), np.uint8), np.ones((7, 1), np.uint8)
_RUN_V, _RUN_H = np.ones((LONG_V, 1), np.uint8), np.ones((1, LONG_H), np.uint8)


def _without_long_lines(binary: np.ndarray) -> np.ndarray:
    vertical = cv2.morphologyEx(cv2.dilate(binary, _WIDEN_H), cv2.MORPH_OPEN, _RUN_V)
    horizontal = cv2.morphologyEx(cv2.dilate(binary, _WIDEN_V), cv2.MORPH_OPEN, _RUN_H)
    return cv2.bitwise_and(binary, cv2.bitwise_not(cv2.bitwise_or(vertical, horizontal)))


def find_index(
    gray: np.ndarray, suit_height: float | None = None, small: np.ndarray | None = None
) -> tuple[Index | None, str]:
    """The index in a grey window of nominal size, or None and why not.

    `suit_height` (pixels, from enrolment) lets a rank glyph merged with its suit pip be
    split; without it such an index is not found. When blur has bridged the index to a
    court card's frame (which touches the window's edge, so the whole would be dropped),
    a second try without the long straight lines frees it."""
    ink = ink_map(gray, small)
    binary = cv2.compare(ink, INK_LEVEL, cv2.CMP_GT)
    index, why = _index_in(ink, binary, suit_height)
    if index is None and why in (NO_INDEX, NO_SUIT):
        retry, _ = _index_in(ink, _without_long_lines(binary), suit_height)
        if retry is not None:
            return retry, ""
    return index, why


def _index_in(
    ink: np.ndarray, binary: np.ndarray, suit_height: float | None
) -> tuple[Index | None, str]:
    outlines, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    candidates = _candidates(outlines)
    anchors = [c for c in candidates if c[1].x + c[1].w / 2 <= INDEX_COLUMN * WINDOW_W]
    if not anchors:
        return None, NO_INDEX
    first_label, rank = anchors[0]
    rank_labels = [first_label]
    rest = []
    for label, box in candidates:
        if label == first_label or box.bottom <= rank.y:
            continue
        # Glyphs of one rank ("10") share their rows and almost touch.
        same_line = _overlap(rank.y, rank.bottom, box.y, box.bottom) >= 0.75 * min(rank.h, box.h)
        near = _overlap(rank.x, rank.right, box.x, box.right) > -RANK_GAP * rank.h
        if same_line and near:
            rank, rank_labels = rank.union(box), [*rank_labels, label]
        else:
            rest.append((label, box))
    below = [
        (label, box)
        for label, box in rest
        if box.y > rank.y + rank.h // 2
        and box.y + box.h // 2 > rank.bottom
        and _overlap(rank.x, rank.right, box.x, box.right) > 0.3 * min(rank.w, box.w)
    ]
    merged = None
    if suit_height and len(rank_labels) == 1 and rank.h > MERGED_MIN * suit_height and (
        not below or below[0][1].y - rank.bottom > 0.5 * rank.h
    ):
        merged = _merged(binary, outlines[first_label], rank, suit_height)
        nominal = merged.split(round(suit_height))
        if nominal is None:
            return None, NO_SUIT
        rank, suit = nominal
    elif not below:
        return None, NO_SUIT
    else:
        _, suit = below[0]
        below = below[1:]
    if suit.y - rank.bottom > 1.2 * rank.h or suit.y < rank.y + rank.h // 2:
        return None, "suit too far from the rank"
    column = rank.union(suit)
    for _, box in below:
        under_index = _overlap(column.x, column.right, box.x, box.right) > 0
        if under_index and box.y - suit.bottom < 0.8 * rank.h:
            return None, "more glyphs under the index"
    return Index(rank, suit, ink, binary, merged), ""


# The card's left edge: in every other row of this band, left of this column, the first
# paper after the shoe interior (which is ink). Angle unknown unless EDGE_ROWS such rows
# show an edge and EDGE_SHARE of them lie within EDGE_FIT pixels of one straight line.
_EDGE_ROWS, _EDGE_COLUMNS, _EDGE_STEP = slice(40, 190, 2), slice(0, 48), 2
EDGE_ROWS, EDGE_FIT, EDGE_SHARE = 20, 2.0, 0.9
MAX_ANGLE = 8.0


def card_angle(binary: np.ndarray) -> float:
    """How far the card is turned (degrees, counter-clockwise as `cv2.getRotationMatrix2D`
    counts), from its left edge against the shoe interior; 0.0 when no straight edge shows
    (card off to the left, a bright interior, a card sliding in)."""
    first = (binary[_EDGE_ROWS, _EDGE_COLUMNS] == 0).argmax(axis=1)  # 0: paper at once, or none
    rows = np.flatnonzero(first)
    count = len(rows)
    if count < EDGE_ROWS:
        return 0.0
    xs = first[rows]
    # Least squares x = slope * row + offset, then how many rows lie near that line.
    sum_x, sum_r = float(xs.sum()), float(rows.sum())
    spread = count * float(rows @ rows) - sum_r * sum_r
    slope = (count * float(xs @ rows) - sum_x * sum_r) / spread
    offset = (sum_x - slope * sum_r) / count
    near = np.count_nonzero(np.abs(xs - (slope * rows + offset)) <= EDGE_FIT)
    if near < max(EDGE_ROWS, EDGE_SHARE * count):
        return 0.0  # not one straight edge
    angle = math.degrees(math.atan(slope / _EDGE_STEP))
    return angle if abs(angle) <= MAX_ANGLE else 0.0
