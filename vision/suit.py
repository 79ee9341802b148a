"""Where in the index zone a design prints its suit, and a check of the suit read there.

The index zone is described at 6-pixel cells of a picture 2/3 of nominal size
(`model.ZONE_PICTURE`): enough for a rank, but a small suit printed beside it covers one or
two cells, and there a club looks like a spade (an invented DejaVu Serif design's clear 3Cs
were read as 3S in held-back views at 0.83, leading by 0.20, which set its card floor at
0.89). Which part of the zone shows the suit is learned per design from its own cards
(`learn_box`: where each suit's ink, over all its ranks, differs from the other suits').
That box, described at finer cells from the ink at nominal resolution (`suit_shapes`),
teaches a model of the four suits alone (`learn_suit_check`): a card is read only where
its suit leads the others there by the floor calibrated at enrolment (stage `suit`), and
held-back views so stopped set no threshold of the card stage or the pair stage.

Tried first (stop 39): the box's shapes added to the card model's vector. The small suits
were read more (an invented design from 91.5% to 94-95% of its faces), but designs told by
their ranks' shapes moved (a mono italic from 71.7% to 41.2%, or, with the box weighed at
half, a 6C read as 8C at 0.89 with confidence).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import ALL_CARDS, SUITS, split_code
from vision.features import INK_LEVEL, orientation_histograms
from vision.geometry import WINDOW_H
from vision.model import Pairs, pairs_of, unit
from vision.register import DEFAULT_SUIT_BOX, ZONE, Box, Pose

SUIT_PICTURE = (24, 24)  # the box is compared at this size (w, h)
SUIT_CELL = 4  # pixels per histogram cell of that picture
SUIT_PAD = 7  # nominal pixels added round the box where the suits differ: a pose found
# a step or two off still has the suit in it
SMALLEST_BOX = 14  # nominal pixels: a box never narrower or shorter
DIFFER_SHARE = 0.4  # of the greatest difference: the pixels where suits differ


def learn_box(zones: dict[str, np.ndarray]) -> Box:
    """(x, y, w, h) in the zone's nominal pixels (`register.zone_of`'s crop): where the
    nominal zones `zones` (card code -> ink) of each suit, over all its ranks, differ most
    from the other suits'."""
    # Each suit's ink over its ranks: its index suit, at the same place on every card, stays
    # whole; ranks' glyphs, pips and art, each elsewhere, fade.
    means = []
    for suit in SUITS:
        inked = [(zones[code] > INK_LEVEL).astype(np.float32) for code in ALL_CARDS
                 if code in zones and split_code(code)[1] == suit]
        if inked:
            means.append(cv2.GaussianBlur(np.mean(inked, axis=0), (0, 0), 1.5))
    if len(means) < 2:
        return DEFAULT_SUIT_BOX
    differ = np.std(np.stack(means), axis=0)
    if float(differ.max()) < 0.1:  # the suits never differ: nothing to locate
        return DEFAULT_SUIT_BOX
    # The part round the greatest difference: a big pip or a court card's art printed
    # beside the index (a club beside a heart) may differ as much, elsewhere.
    marked = cv2.dilate((differ >= DIFFER_SHARE * float(differ.max())).astype(np.uint8),
                        np.ones((5, 5), np.uint8))
    _, parts, boxes, _ = cv2.connectedComponentsWithStats(marked)
    left, top, across, down = boxes[parts[np.unravel_index(differ.argmax(), differ.shape)]][:4]
    # The dilation's 2 px each way are part of the padding.
    x0, x1 = left - SUIT_PAD + 2, left + across + SUIT_PAD - 2
    y0, y1 = top - SUIT_PAD + 2, top + down + SUIT_PAD - 2
    w, h = max(SMALLEST_BOX, x1 - x0), max(SMALLEST_BOX, y1 - y0)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = min(w, ZONE[2]), min(h, ZONE[3])
    x = float(np.clip(cx - w / 2, 0, ZONE[2] - w))
    y = float(np.clip(cy - h / 2, 0, ZONE[3] - h))
    return x, y, float(w), float(h)


def box_matrix(pose: Pose, box: Box) -> np.ndarray:
    """2x3 map from a SUIT_PICTURE of `box` (in the zone's nominal pixels) of the zone at
    `pose` to window pixels (for `cv2.warpAffine(..., WARP_INVERSE_MAP)`)."""
    width, height = SUIT_PICTURE
    x, y, w, h = box
    left = pose.cx - pose.scale * ZONE[2] / 2 + pose.scale * x
    top = pose.cy - pose.scale * ZONE[3] / 2 + pose.scale * y
    kx, ky = pose.scale * w / width, pose.scale * h / height
    return np.float32([[kx, 0, left], [0, ky, top]])


def past_foot(pose: Pose, box: Box) -> bool:
    """Whether the part of `box` where the suits differ (the box less the padding
    `learn_box` put round it) reaches past the window's foot with the zone at `pose`: a
    card low in the window, its suit partly out of view. The top of a spade cut there is a
    diamond's top, and the suit check, learned on whole suits, may take it for one (the
    built-in 4S and 7S coming up slowly, even as nominal as a camera may, read as 4D and
    7D: `tests/vision/test_tracker.py`; a 4S drawn a little over grey: `bench.pulls`)."""
    _, y, _, h = box
    inset = SUIT_PAD - 2  # what `learn_box` added past the difference, dilated
    return pose.cy + pose.scale * (y + h - inset - ZONE[3] / 2) > WINDOW_H


def suit_picture(ink: np.ndarray, pose: Pose, box: Box) -> np.ndarray:
    return cv2.warpAffine(ink, box_matrix(pose, box), SUIT_PICTURE,
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


def suit_shapes(ink: np.ndarray, poses: list[Pose],
                box: Box) -> np.ndarray:
    """The fine shape of `box` at each of `poses` (len(poses), ...), in one pass."""
    return orientation_histograms(np.stack([suit_picture(ink, p, box) for p in poses]),
                                  SUIT_CELL)


@dataclass(frozen=True, eq=False)
class SuitCheck:
    """The four suits as their box shows them (`suit_shapes`): each feature standardised
    (`mean`, `scale`, clamped to `low`..`high` first), and for each two suits the direction
    along which the two differ most against how each varies (`model.Pairs`)."""

    mean: np.ndarray  # (D,) float32
    scale: np.ndarray  # (D,) float32
    low: np.ndarray  # (D,) float32
    high: np.ndarray  # (D,) float32
    pairs: Pairs  # of SUITS' indices, every two

    def lead(self, shape: np.ndarray, suit: str) -> float:
        """How far the box's `shape` lies on `suit`'s side of each other suit, the least of
        the three (in half-distances: +1 at its mean, -1 at the other's); -inf for no suit
        of SUITS."""
        if suit not in SUITS:
            return -np.inf
        embedded = unit((np.clip(shape, self.low, self.high) - self.mean) * self.scale)
        return self.pairs.least_lead(embedded, SUITS.index(suit), len(SUITS))


def learn_suit_check(shapes: np.ndarray, suits: list[str]) -> SuitCheck:
    """The `SuitCheck` of views' box `shapes` (N, D) of the suits `suits` (N). Every view
    counts, those nearest another suit's too (`model.Model.learn` drops them for reading):
    the clubs that look like spades are what the check is for."""
    missing = [suit for suit in SUITS if suit not in suits]
    if missing:
        raise ValueError(f"no views of the suit {', '.join(missing)} to learn the suits from")
    vectors = shapes.astype(np.float32)
    labels = np.array([SUITS.index(s) for s in suits], np.int32)
    # Grouped by suit, as first learned: float sums in another order move the figures.
    order = np.argsort(labels, kind="stable")
    vectors, labels = vectors[order], labels[order]
    mean = vectors.mean(axis=0)
    scale = (1.0 / (vectors.std(axis=0) + 1e-3)).astype(np.float32)
    views = unit((vectors - mean) * scale).astype(np.float32)
    pairs = pairs_of(views, labels, len(SUITS), neighbours=len(SUITS) - 1)
    return SuitCheck(mean.astype(np.float32), scale, vectors.min(axis=0), vectors.max(axis=0),
                     pairs)
