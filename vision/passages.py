"""A recorded run of cards through the window: where each card's passage is, and the frame
of it that shows the card where the reading window was calibrated to show it.

This is how a real shoe learns a design (`sabot enroll --recording`): a fresh deck is run
through in a known order, each passage becomes one enrolment sample. Nothing here knows the
design: a passage is told by the shoe's card sensor (or, without one, by paper filling the
window), and the nominal frame by the card's own edges, which every design has.

The window shows the card's top-left corner with a margin of surround above and left of it
(`vision.geometry`), so at the nominal position the card's top edge is CARD_TOP rows down
and its left edge NOMINAL_LEFT columns in. The card slides up through the window; the frame
whose top edge is nearest CARD_TOP is taken and moved by what is left, so every sample
shows its card at the same place.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.geometry import (
    CARD_TOP,
    CARD_X0,
    CARD_X1,
    WINDOW_H,
    WINDOW_W,
    to_window,
)

NOMINAL_LEFT = -CARD_X0 / (CARD_X1 - CARD_X0) * WINDOW_W  # about 13 columns
PAPER_FILLED = 0.3  # share of the window that is paper when a card is in it (no sensor)
EDGE_SHARE = 0.6  # a row (column) is card where this share of the probed part is paper
MIN_FRAMES = 2  # a shorter run of card frames is a flicker, not a passage
BORDER_SHARE = 0.85  # share of a row just below a card's top edge that is its border
# Rows a card's top edge may be seen lower than in the frame before (the edge's jitter from
# frame to frame): a card only moves up the window as it leaves the shoe.
EDGE_JITTER = 3
TOP_ROW_PAPER = 0.5  # share of the top row, left of the middle, that is paper: card, not surround


def passages(windows: Sequence[np.ndarray], present: Sequence[bool] | None = None
             ) -> list[range]:
    """The frame ranges, in order, during which a card was in the window: runs of `present`
    (the card sensor, one flag per frame), or without it, of windows mostly paper."""
    if present is None:
        present = [looks_like_card(w) for w in windows]
    if len(present) != len(windows):
        raise ValueError(f"{len(present)} sensor flags for {len(windows)} frames")
    runs: list[range] = []
    start = None
    for index, flag in enumerate([*present, False]):
        if flag and start is None:
            start = index
        elif not flag and start is not None:
            if index - start >= MIN_FRAMES:
                runs.append(range(start, index))
            start = None
    return runs


def edges(window: np.ndarray) -> tuple[float | None, float | None]:
    """(top row, left column) of the card in `window` (nominal size), None for an edge not in
    view. Probed away from the rounded corner: the top edge over the right half of the
    window, the left edge over the rows below the top edge."""
    paper = _paper(window)
    columns = paper[:, WINDOW_W // 2 : WINDOW_W - 4]
    row_filled = columns.mean(axis=1) >= EDGE_SHARE
    if not row_filled.any():
        return None, None
    top = int(np.argmax(row_filled))
    border = columns[top + 1 : top + 4].mean(axis=1)  # thin: some designs' pips come close
    if len(border) and border.min() < BORDER_SHARE:
        # A glare spot (or a lit lip), not a card's top edge: just below its edge a card's
        # border is paper right across, where a round spot is narrower than its middle.
        return None, None
    below = paper[min(WINDOW_H - 1, top + WINDOW_H // 8) :]
    if below.shape[0] < 8:
        return float(top), None
    column_filled = below.mean(axis=0) >= EDGE_SHARE
    left = float(np.argmax(column_filled)) if column_filled.any() else None
    return float(top), left


def nominal_view(windows: Sequence[np.ndarray]) -> tuple[int, np.ndarray]:
    """The index (into `windows`) of the frame nearest the nominal position, and that frame
    moved onto it. The card's top edge must be seen below the window's top in some frame:
    otherwise the window never showed the card's top and there is nothing to enrol from."""
    seen = []  # (index, top, left, window) of the frames that show a top edge in the window
    for index, window in enumerate(windows):
        nominal = to_window(window, averaged=True)
        top, left = edges(nominal)
        if seen and (top is None or top > EDGE_JITTER) and _card_at_top(nominal):
            # The card's paper in the top row, and no edge at it: the top edge has passed
            # above the window, the rest is the body, and an edge in it is one inside the
            # card (a rig recorded gnome-berlin at 30 frames/s, the top 29 rows higher each
            # frame, and the lower edge of KC's big club, 12 rows down in the frame after
            # the top left, was taken for the top: the sample showed the index half out of
            # the window). A top edge a row or two down blurs into the top row.
            break
        if top is None:
            continue  # no card yet
        if top <= 0:
            if seen:
                break
            continue
        seen.append((index, top, left, nominal))
    track = _rising(seen)
    if not track:
        raise ValueError("no frame shows the card's top edge inside the window")
    best = min(track, key=lambda frame: abs(frame[1] - CARD_TOP))
    index, top, left, nominal = best
    dx = 0.0 if left is None else NOMINAL_LEFT - left
    shift = np.float32([[1, 0, dx], [0, 1, CARD_TOP - top]])
    moved = cv2.warpAffine(nominal, shift, (WINDOW_W, WINDOW_H),
                           flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return index, moved


def _card_at_top(window: np.ndarray) -> bool:
    """Whether the card fills the window's top row, left of the middle: there, beside the
    index, every design prints nothing as large as the big pips and pictures of the right
    half (which hide the card's paper from `edges` once its top edge has left the window)."""
    row = _paper(window)[0, round(NOMINAL_LEFT) + 2 : WINDOW_W // 2]
    return float(row.mean()) >= TOP_ROW_PAPER


def _rising(seen: list[tuple]) -> list[tuple]:
    """Of the frames `seen` (each with the row of its top edge second), the longest sequence,
    in order, in which that edge never comes lower than the frame before by more than
    EDGE_JITTER: a card only moves up the window as it leaves the shoe. An edge out of it
    is not the card's top: a streak on the dark interior before the card comes in
    (gnome-tigullio's recording had one at row 100). Of sequences as long, the one that
    ends last: anything before the card comes before its top's frames."""
    if not seen:
        return []
    longest = [1] * len(seen)
    before = [-1] * len(seen)
    for j, frame in enumerate(seen):
        for i in range(j):
            if frame[1] <= seen[i][1] + EDGE_JITTER and longest[i] + 1 > longest[j]:
                longest[j], before[j] = longest[i] + 1, i
    most = max(longest)
    k = len(longest) - 1 - longest[::-1].index(most)
    track = []
    while k >= 0:
        track.append(seen[k])
        k = before[k]
    return track[::-1]


def _paper(window: np.ndarray) -> np.ndarray:
    """Where the window is card rather than surround, at full resolution (the ink map's
    "paper within reach" is coarse by design): brighter than half its bright level."""
    gray = cv2.GaussianBlur(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    bright = float(np.percentile(gray, 98))
    return gray > max(45.0, 0.5 * bright)


def looks_like_card(window: np.ndarray) -> bool:
    """Whether paper fills enough of `window` for a card to be in it."""
    return float(_paper(to_window(window, averaged=True)).mean()) >= PAPER_FILLED
