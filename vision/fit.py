"""Does the index fit? Warnings for the operator, naming the card, when a sample's index runs
past the part of the window the reader compares (the index zone) or touches the window's
edge, and what window would fit it (`sabot calibrate` then sets it)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.features import INK_LEVEL, ink_map
from vision.geometry import CARD_TOP, WINDOW_H, WINDOW_W
from vision.register import ZONE

# Where the card's top edge sits in the nominal window, in window pixels.
LEVELS = (1, 99.5)  # percentiles of the grey levels stretched to black and white
MAX_GLYPH = 0.6  # of the window's height: anything taller is a frame line, not the index
INDEX_COLUMN = 0.5  # the index's glyphs are centred in this left part of the zone


def fit_warnings(code: str, window: np.ndarray) -> list[str]:
    """What is wrong with how `code`'s index sits in its nominal `window`, if anything."""
    gray = _levelled(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY))
    ink = cv2.compare(ink_map(gray), INK_LEVEL, cv2.CMP_GT)
    count, _, boxes, _ = cv2.connectedComponentsWithStats(ink)
    x0, y0, w, h = ZONE
    lowest, touches = 0, []
    for x, y, bw, bh, area in boxes[1:count]:
        if area < 12 or bh > MAX_GLYPH * WINDOW_H:
            continue  # a speck, or a frame line or the dark band along the card's edge
        if not (x + bw / 2 <= x0 + INDEX_COLUMN * w and y <= y0 + 0.7 * h):
            continue  # not the index: pips and pictures beside it do not matter
        if x <= 0 or y <= 0 or x + bw >= WINDOW_W or y + bh >= WINDOW_H:
            touches.append((x, y, bw, bh))
        lowest = max(lowest, y + bh)
    warnings = []
    if touches:
        warnings.append(f"{code}: the index touches the window's edge (the window cuts it): "
                        "centre the window on the card's corner with `sabot calibrate`")
    if lowest > y0 + h + 2:
        taller = (lowest - CARD_TOP) / (y0 + h - CARD_TOP)
        warnings.append(f"{code}: the index runs past the part of the window that is read "
                        f"(to {lowest / WINDOW_H:.0%} of its height, read to "
                        f"{(y0 + h) / WINDOW_H:.0%}): a window {taller - 1:.0%} larger "
                        "would fit it (`sabot calibrate --card-width`, or capture the samples "
                        "from further away)")
    return warnings


def _levelled(gray: np.ndarray) -> np.ndarray:
    """`gray` stretched so that its darkest percent is black and its brightest white. In a
    washed-out photograph the shoe's interior is lifted above half the paper's brightness:
    beside the paper it read as ink, and the camera's noise cut that band along the card's
    edge into pieces that touched the window's edge and ran past the index zone (the
    built-in design's diamonds, washed out 0.3 at gamma 0.75: all thirteen warned)."""
    low, high = np.percentile(gray, LEVELS)
    if high - low < 1:
        return gray
    # Clipped, not `cv2.convertScaleAbs`: its absolute value would turn the pixels darker
    # than the darkest percent (a glyph's core) grey again.
    stretched = (gray.astype(np.float32) - np.float32(low)) * np.float32(255.0 / (high - low))
    return np.clip(stretched, 0, 255).astype(np.uint8)
