"""Everything the reader and the enrolment measure on one window, in one pass."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.features import (
    DESKEW_MIN,
    aspect,
    glyph_crop,
    glyph_vector,
    ink_colour,
    surface_vector,
    thumbnail,
)
from vision.geometry import to_window
from vision.index import PIP_FRACTIONS, Box, Index, card_angle, find_index


@dataclass(frozen=True)
class Glyphs:
    """The index's rank and suit as seen for one way of splitting it."""

    rank_vector: np.ndarray
    rank_aspect: float
    suit_vector: np.ndarray
    suit_rank_ratio: float  # suit height over rank height
    rank_offset: float  # rank centre right of the suit centre, in suit heights


@dataclass(frozen=True)
class Measurement:
    surface: np.ndarray
    index: Index | None
    why_no_index: str = ""
    # One per way of splitting the index into rank and suit: one, unless the rank touches
    # its pip, then one per pip height tried (`pip_heights`).
    glyphs: tuple[Glyphs, ...] = ()
    pip_heights: tuple[int, ...] = ()
    redness: float = 0.0
    angle: float = 0.0  # the card's turn the rank glyphs were set upright for (degrees)


def _redness(window: np.ndarray, index: Index) -> float:
    """Colour of the suit pip's ink (the rank's is the same) against the paper around it."""
    box = index.suit
    roi = (slice(box.y, box.bottom), slice(box.x, box.right))
    # Paper: the box's pixels with no ink at all (blurred edges would dilute both means).
    paper = cv2.compare(index.ink[roi], 40, cv2.CMP_LT)
    return ink_colour(window[roi], index.binary[roi], paper)


def glyphs_of(ink: np.ndarray, rank: Box, suit: Box, angle: float = 0.0) -> Glyphs:
    """The glyph vectors of one split, the rank set upright if the card is turned (the suit
    pips are matched as they are: they did not need it)."""
    rank_crop = glyph_crop(ink, rank, angle)
    return Glyphs(
        rank_vector=glyph_vector(rank_crop),
        rank_aspect=aspect(rank_crop),
        suit_vector=glyph_vector(glyph_crop(ink, suit)),
        suit_rank_ratio=suit.h / rank.h,
        rank_offset=(rank.x + rank.w / 2 - suit.x - suit.w / 2) / suit.h,
    )


def measure(
    image: np.ndarray,
    suit_height: float | None = None,
    split_step: int = 4,
    pip_fractions: tuple[float, float] = PIP_FRACTIONS,
    *,
    upright: bool = False,
) -> Measurement:
    """Surface statistics, and the index's glyphs if there is an index. `suit_height` (from
    enrolment) allows splitting a rank that touches its pip, tried every `split_step` rows
    for pips between `pip_fractions` of the suit height. `upright`: the rank glyphs of a
    turned card are set upright (`set_upright`)."""
    window = to_window(image)
    gray = cv2.cvtColor(window, cv2.COLOR_BGR2GRAY)
    small = thumbnail(window)
    surface = surface_vector(small)
    index, why = find_index(gray, suit_height, cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    if index is None:
        return Measurement(surface, None, why)
    measured = Measurement(surface, index, redness=_redness(window, index))
    if upright:
        turned = set_upright(measured, split_step, pip_fractions)
        if turned is not None:
            return turned
    return _with_glyphs(measured, 0.0, split_step, pip_fractions)


def set_upright(
    m: Measurement, split_step: int = 4, pip_fractions: tuple[float, float] = PIP_FRACTIONS
) -> Measurement | None:
    """`m` with its rank glyphs set upright for the card's turn (measured on the card's
    edge), or None when the card is not turned enough for it to matter."""
    if m.index is None:
        return None
    angle = card_angle(m.index.binary)
    if abs(angle) < DESKEW_MIN:
        return None
    return _with_glyphs(m, angle, split_step, pip_fractions)


def _with_glyphs(
    m: Measurement, angle: float, split_step: int, pip_fractions: tuple[float, float]
) -> Measurement:
    index = m.index
    assert index is not None
    if index.merged is None:
        glyphs = (glyphs_of(index.ink, index.rank, index.suit, angle),)
        return replace(m, glyphs=glyphs, pip_heights=(), angle=angle)
    heights, glyphs = [], []
    for pip_height in index.merged.pip_heights(split_step, pip_fractions):
        split = index.merged.split(pip_height)
        if split is not None:
            heights.append(pip_height)
            glyphs.append(glyphs_of(index.ink, *split, angle))
    return replace(m, glyphs=tuple(glyphs), pip_heights=tuple(heights), angle=angle)
