"""Where the card's index corner is in a window: scale and position, learned per design.

The camera sees the card a little bigger or smaller, shifted and turned from one card to the
next (the envelope in `synth`), so before anything is compared the reader finds the *index
zone* (ZONE, the corner of the card face that holds the index, just inside its edges) in the
window. What it looks for is learned at enrolment: the design's faces are grouped by how
their zone looks (k-means over the nominal windows' ink, so that an ace, a court card and a
ten whose big pips crowd the index each have a template of their own), and the group means
are the templates. A window is searched coarsely (at 1/4 size, every template, scale and
position), then refined (at 1/2 size, up to five finer scales) around the best match of
each scale that came near the best of all (`Registration.find`), and the zone is put where
a refinement matched best; the reader asks for the other near scale's refined place too
(`Registration.next_scale`).
Nothing here depends on how a design lays out its index: only on where its zone is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.correlate import Correlator
from vision.geometry import CARD_TOP, WINDOW_H, WINDOW_W
from vision.top_edge import card_top_row

# The index zone in nominal window pixels (x, y, w, h): from just inside the card's top-left
# corner (at 12.8, 14 in the nominal window) over the top-left 0.22 x 0.4 card widths, where
# every design this was tried on prints rank and suit. The surround past the card's edge is
# left out: it is the shoe's, not the design's (with it, matches drifted by up to 65 px).
ZONE = (16, 18, 72, 128)
SCALES = (0.84, 1.0, 1.19)  # the envelope's 0.8-1.25 in steps of 19%
FINER = (0.92, 0.96, 1.0, 1.04, 1.08)  # refinement steps around the coarse scale
# The scales the refinement may reach: down to the envelope's smallest, 0.8 (a card seen at
# 0.80-0.82 was held at 0.84, 5% off, and 2 of `bench.vision`'s 14 rejects were such views,
# found too big). At stop 23, 0.8-1.25 with the wider INDEX_X read a vector 6S as 5S (views
# found too small taught the model); 0.8-1.19 with this INDEX_X read none wrong at seeds
# 20261201 and 77. 1.25 was not tried again.
REFINE_RANGE = (0.8, SCALES[-1])
CLUSTERS = 6
_COARSE, _FINE = 4, 2  # downscaling of the coarse and the fine search
_COARSE_PAD, _FINE_PAD = 3, 8  # zero ink around the window: a zone may stick out of it
# The next best coarse scale is refined too (`Registration.next_scale`) when it matched
# within this of the best, its zone's centre within SECOND_PLACE (x, y window pixels) of
# the best's for each step of SCALES between the two: between scales 0.84 and 1.0 the zone
# of one index moves about 6 px across and 11 down (its card's corner stays); two steps
# apart, as far again is allowed (`_close`). Of the coarse matches of one invented seed's
# views, 47% came within 0.05 (before the place is asked).
SECOND_SCALE, SECOND_PLACE = 0.05, (9, 16)
# Each scale whose coarse match came within this of the best is refined too, and the zone
# is put at the best refined match (`Registration.find`): at 1/4 size the scales' matches
# are told by little, and the best of them was often at the wrong scale or on a big pip
# beside the index. Of the 21 faces of `bench.vision` left unknown at stop 42, 11 had
# their zone found so, and read right with the zone where the card put it (0.84-0.97,
# leading by 0.15 or more); 7 of them read right refined at a scale whose coarse match was
# 0.004-0.069 behind the best (a vector 6C seen at 1.08, matched best at 1.19 on its big
# pip: refined, 0.66 there against 0.80 at 1.0, 1 px from its index).
CANDIDATE_REACH = 0.08
# ... but the zone leaves the best coarse match's place only for a refinement that matched
# better by this much: two about as good leave the choice to chance, and a card of another
# design (the built-in one's 6D before the vector design's reader, its zone found on its
# pips at two scales 0.001 apart) was read as 9D at the one and left unknown at the other.
# The 7 faces above were each refined 0.033 or more better at their own scale.
CANDIDATE_LEAD = 0.02
_SCALE_STEP = math.log(SCALES[1] / SCALES[0])
_FINE_REACH = 3  # fine search: +- this many half-size pixels around the coarse position
# Where the zone's centre is searched for across the window (window pixels, x): a card's
# index is at its left edge, and the card moves only up and down the window as it is drawn.
# Across the whole camera envelope (shift, scale, turn, keystone; `synth.view_matrix`) the
# centre was at 38-64 with the card in place and at 33-70 anywhere along its travel, in
# 20,000 draws each; the refinement reaches 6 px further (at scale 1; 7 at 1.19). Beyond,
# a court card's frame or a big pip further in, or the surround's strip beside the card,
# can match a template better than a faint or blurred index: with 24-80, 7 of the 19
# rejected views of `bench.vision` had been found there (gnome-tigullio's 7D at x 79, beside
# its big pip), and 8 of 312 views of the vector design's court cards with 22-78 (one QD
# read as QH). Keeping the refinement within 28-74 too cost a silent error (a vector card
# read as another).
INDEX_X = (28, 74)


# A card coming up into the window with its top edge at or below this row (window pixels)
# cannot show its whole index zone yet, however small it is seen: the zone reaches ZONE's
# bottom less the card's top below the edge, at the least scale the index is searched at
# (the envelope's least). The zone has a margin below the printed suit: a frame or two a
# passage that would have been read right (67 of 768 such frames of the vector design's
# cards, none wrong) are not, and the card is decided a frame later.
ENTERING_BELOW = WINDOW_H - (ZONE[1] + ZONE[3] - CARD_TOP) * REFINE_RANGE[0]


def card_top(small: np.ndarray, gray: np.ndarray | None = None) -> float | None:
    """The window row (nominal pixels) of the top edge of a card straight across the
    window whose thumbnail is `small` (`gray`: that in grey, if the caller has it), as
    `top_edge.card_top_row` finds it; None where it finds none."""
    top = card_top_row(small, gray)
    return None if top is None else top * WINDOW_H / small.shape[0]


def entering(top: float | None) -> bool:
    """Whether a card whose top edge is at window row `top` (`card_top`) is coming up into
    the window, at or below ENTERING_BELOW: its index zone is not wholly in view, and the
    reader does not look for it there."""
    return top is not None and top >= ENTERING_BELOW


# The index zone's centre lies this far below the card's top edge at scale 1 (nominal
# window pixels): the zone is the corner just inside the card's edges, whatever the design.
ZONE_BELOW_TOP = ZONE[1] - CARD_TOP + ZONE[3] / 2
# Where the card's top edge is seen (`card_top`), the coarse search keeps each scale's
# zone centre within this many window pixels of ZONE_BELOW_TOP at that scale below it.
# Over the eleven shared designs' cards in place, the true centre lay 12 px above to 14
# px below that at the true scale (severity 1.0 and 1.6, 1,535 views whose edge was seen);
# a coarse scale is up to 10% off (7 px) and a coarse place 4 px. Without it a big pip or
# a court card's frame low on the card can match better than a faint or blurred index:
# a vector QH seen at 0.88 and blurred was found 66 px below its index, on its big heart
# (`bench.vision`), and 56 of 1,200 views at severity 1.6 of four designs were found more
# than 12 px off, most of them 40-90 px below.
TOP_REACH = 28.0


class _Searched(NamedTuple):
    """A part of the ink searched at one scale, as matched: `picture`, scaled so that the
    templates fit it at `scale`; where it lies in the picture it was cut from (`left`,
    `top`, in that picture's pixels) and how many of those pixels one of its own spans
    (`fx`, `fy`)."""

    scale: float
    left: float
    top: float
    fx: float
    fy: float
    picture: np.ndarray

    def centre(self, x: int, y: int, shape: tuple[int, int], pad: int, factor: int
               ) -> tuple[float, float]:
        """The window pixels (x, y) of the centre of a template of `shape` (h, w) matched
        at (`x`, `y`) in `picture`, cut from a picture `factor` times smaller than the
        window with `pad` pixels of border."""
        th, tw = shape
        return ((self.left + (x + tw / 2) * self.fx - pad) * factor,
                (self.top + (y + th / 2) * self.fy - pad) * factor)

    def rows_below(self, centre: float, reach: float, th: int, pad: int, factor: int,
                   rows: int) -> tuple[int, int]:
        """The rows (first, past the last) of the matches, of a template `th` high, in
        `picture` whose centre (`centre` above) lies within `reach` window pixels of
        `centre`, among `rows`; all of them where none does (the edge was not the card's)."""
        def row(y: float) -> float:
            return (y / factor + pad - self.top) / self.fy - th / 2
        first, last = max(0, math.ceil(row(centre - reach))), min(rows, math.floor(
            row(centre + reach)) + 1)
        return (first, last) if last > first else (0, rows)


class CoarseMatch(NamedTuple):
    """The best match of any template at one scale of the coarse search."""

    score: float
    scale: float
    cx: float  # the zone's centre, window pixels
    cy: float
    template: int


@dataclass(frozen=True)
class Pose:
    """Where the zone is: its scale against nominal and its centre in window pixels."""

    scale: float
    cx: float
    cy: float
    score: float  # normalised correlation of the best template there

    def zone_matrix(self, width: int, height: int) -> np.ndarray:
        """2x3 map from a `width` x `height` picture of the zone to window pixels (for
        `cv2.warpAffine(..., WARP_INVERSE_MAP)`)."""
        k = self.scale * ZONE[2] / width
        k_y = self.scale * ZONE[3] / height
        return np.float32([[k, 0, self.cx - k * width / 2], [0, k_y, self.cy - k_y * height / 2]])


class Found(NamedTuple):
    """Where `Registration.find` put the index zone: `pose`; `order`, the coarse matches
    (`Registration.coarse_matches`), the one refined to `pose` first and then the others
    best first; `refined`, the pose each of those refined has."""

    pose: Pose
    order: list[CoarseMatch]
    refined: dict[CoarseMatch, Pose]


NOMINAL_POSE = Pose(1.0, ZONE[0] + ZONE[2] / 2, ZONE[1] + ZONE[3] / 2, 1.0)


CONTRAST_FLOOR = 0.35  # of the template's spread: below it a patch's match is discounted



def zone_of(ink: np.ndarray) -> np.ndarray:
    """The index zone of a nominal window's ink map, float32."""
    x, y, w, h = ZONE
    return ink[y : y + h, x : x + w].astype(np.float32)


def learn_templates(zones: np.ndarray, clusters: int = CLUSTERS) -> np.ndarray:
    """(K, h, w) float32 templates: the mean zone of each group of similar faces."""
    count = len(zones)
    k = max(1, min(clusters, count))
    if k == 1:
        return zones.mean(axis=0, keepdims=True).astype(np.float32)
    x, y, w, h = ZONE
    small = np.stack([cv2.resize(z, (w // 4, h // 4), interpolation=cv2.INTER_AREA).ravel()
                      for z in zones]).astype(np.float32)
    cv2.setRNGSeed(7)  # k-means seeds with OpenCV's RNG: the same design, the same templates
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
    _, labels, _ = cv2.kmeans(small, k, None, criteria, 5, cv2.KMEANS_PP_CENTERS)
    labels = labels.ravel()
    return np.stack([zones[labels == j].mean(axis=0) for j in range(k)
                     if np.any(labels == j)]).astype(np.float32)


# A part of the index zone, (x, y, w, h) in its nominal pixels (`zone_of`'s crop).
Box = tuple[float, float, float, float]
# Where a suit is in the zone when the design's own cards do not say (`suit.learn_box`): the
# lower part, where a suit under the rank is.
DEFAULT_SUIT_BOX: Box = (8.0, 56.0, 40.0, 40.0)


# The ink is matched doubled and clipped (min(2 x ink, 255)): a thin stroke's faint ink
# counts nearly as much as a bold pip's. With the ink as it is, an invented mono italic
# design (`bench.vision --invent 12 --invent-seed 701`) had its zones found on a pip or
# the card's frame at the wrong scale, and read 71.7% of its faces; with it, 96.5%.
_SIGNAL = np.clip(np.arange(256) * 2.0, 0, 255).astype(np.uint8)


def _signal(ink: np.ndarray) -> np.ndarray:
    """The ink map (uint8, `features.ink_map`) as the search matches it."""
    return cv2.LUT(ink, _SIGNAL)


class Registration:
    """Finds the index zone's `Pose` in a window's ink map (`features.ink_map`, uint8: it is
    matched doubled, `_SIGNAL`), and knows where in that zone the design prints its suit
    (`suit_box`, `suit.learn_box`). The templates are kept as learned (the zones' raw ink)."""

    def __init__(self, templates: np.ndarray, suit_box: Box = DEFAULT_SUIT_BOX) -> None:
        self.templates = templates
        self.suit_box = suit_box
        _, h, w = templates.shape
        signal = np.interp(templates, np.arange(256), _SIGNAL).astype(np.float32)
        coarse = [cv2.resize(t, (w // _COARSE, h // _COARSE), interpolation=cv2.INTER_AREA)
                  for t in signal]
        self._coarse = Correlator(coarse)
        self._fine = Correlator([cv2.resize(t, (w // _FINE, h // _FINE),
                                            interpolation=cv2.INTER_AREA) for t in signal])
        # Where the window is nearly flat (below CONTRAST_FLOOR of a template's own spread:
        # blank paper, the zero border) normalising blows specks of noise up into chance
        # matches as good as a faint index, so the coarse match is discounted there.
        self._flat_below = [CONTRAST_FLOOR * float(t.std()) for t in coarse]

    def locate(self, ink: np.ndarray, top: float | None = None) -> Pose:
        """The best place for the zone (`find`)."""
        return self.find(ink, top).pose

    def find(self, ink: np.ndarray, top: float | None = None) -> Found:
        """The zone's place: each scale's coarse match within CANDIDATE_REACH of the best
        refined, and the pose of the best refined match where it matched better than the
        best coarse match's refinement by CANDIDATE_LEAD; that one's otherwise. `top`: the
        card's top edge (`card_top`), where it is seen: the coarse matches are looked for
        below it (`coarse_matches`)."""
        matches = self.coarse_matches(ink, top)
        first = matches[0]
        half = self._half(ink)
        refined = {m: self.refined(ink, m, half=half) for m in matches
                   if m.score >= first.score - CANDIDATE_REACH}
        best = max(refined, key=lambda m: refined[m].score)
        chosen = best if refined[best].score >= refined[first].score + CANDIDATE_LEAD else first
        return Found(refined[chosen], [chosen, *(m for m in matches if m != chosen)], refined)

    def refined(self, ink: np.ndarray, match: CoarseMatch, *,
                half: np.ndarray | None = None) -> Pose:
        """The pose of a coarse match (one of `coarse_matches`), refined. `half`: the ink as
        the refinement searches it (`_half`), if the caller has it."""
        half = self._half(ink) if half is None else half
        return self._refine(half, match.scale, match.cx, match.cy, match.template)

    def next_scale(self, ink: np.ndarray, matches: list[CoarseMatch], *,
                   spare: float = 0.0, refined: dict[CoarseMatch, Pose] | None = None
                   ) -> Pose | None:
        """The pose refined at the next best coarse scale of `matches` (the one the zone
        was put at first, then the others best first: `Found.order`) where that matched
        nearly as well as the first (SECOND_SCALE) at about the same place; None otherwise.
        `refined`: poses already refined (`Found.refined`), not refined again.

        A coarse match at 1/4 size tells scales 19% apart by little: a bold serif 6D of an
        invented design (`bench.vision --invent 12 --invent-seed 601`), seen at about 1.06,
        matched best at 0.84 (0.697 against 1.0's 0.685, 3 px away), was refined there to
        0.87 with the top of its 6 cut off and read as 5D at 0.90; refined at 1.0 it read
        6D at 0.98. Nor does the refined match alone tell which is right: kept where it
        matched better (stop 38), the 6D was read right, but a held-back 5S of another
        design, seen at about 1.1, was found at 0.91 and read as 9S at 0.88, which raised
        that design's card floor from 0.75 to 0.91. So the other pose is a doubt for the
        reader (`Reader`) wherever the zone is put; since stop 43 the zone is put at the
        best refinement (`find`), and this is the pose of the scale it was not put at.
        Only at about the same place: elsewhere a court card's frame can match better than
        its index (a vector QD seen at 0.82, its next scale's match 82 px off). `find` has
        refined that scale already wherever this asks for it (within SECOND_SCALE of the
        first, or the best of all), and its pose is taken from `refined`; asked without,
        it costs a refinement, about 0.2 ms. `spare`: the share of SECOND_SCALE and
        SECOND_PLACE left to spare (enrolment counts on the reader asking only where a
        fresh view a little off would be asked too)."""
        if len(matches) > 1 and _close(matches[0], matches[1], spare):
            known = (refined or {}).get(matches[1])
            return known if known is not None else self.refined(ink, matches[1])
        return None

    def coarse_matches(self, ink: np.ndarray, top: float | None = None
                       ) -> list[CoarseMatch]:
        """The best match of any template at each scale, the best first. `top`: the card's
        top edge (`card_top`), where it is seen: each scale's match is then looked for only
        with the zone's centre within TOP_REACH of ZONE_BELOW_TOP below it."""
        size = (WINDOW_W // _COARSE, WINDOW_H // _COARSE)
        small = cv2.resize(_signal(ink), size, interpolation=cv2.INTER_AREA).astype(np.float32)
        p = _COARSE_PAD
        small = cv2.copyMakeBorder(small, p, p, p, p, cv2.BORDER_CONSTANT, value=0)
        th, tw = self._coarse.shape
        everyone = list(range(len(self._flat_below)))
        bands = []  # each scale's band of columns
        for s in SCALES:
            # The window is scaled, not the templates: every scale is then judged on the
            # same number of pixels (a smaller template matches more things a little better).
            scaled = cv2.resize(small, (round(small.shape[1] / s), round(small.shape[0] / s)),
                                interpolation=cv2.INTER_AREA)
            if scaled.shape[0] < th or scaled.shape[1] < tw:
                continue
            fy, fx = small.shape[0] / scaled.shape[0], small.shape[1] / scaled.shape[1]
            # Only where a card's index can be across the window (INDEX_X): the columns a
            # template placed there covers are all that is correlated.
            first = max(0, math.ceil((INDEX_X[0] / _COARSE + p) / fx - tw / 2))
            last = min(scaled.shape[1] - tw + 1,
                       math.floor((INDEX_X[1] / _COARSE + p) / fx - tw / 2) + 1)
            if last > first:
                bands.append(_Searched(s, first * fx, 0.0, fx, fy,
                                       scaled[:, first : last + tw - 1]))
        matched = (self._coarse.match_each([band.picture for band in bands], everyone,
                                           floors=self._flat_below) if bands else [])
        found = []
        for band, results in zip(bands, matched, strict=True):
            best = CoarseMatch(-2.0, band.scale, 0.0, 0.0, 0)
            rows = (0, len(results[0])) if top is None else band.rows_below(
                top + ZONE_BELOW_TOP * band.scale, TOP_REACH, th, p, _COARSE, len(results[0]))
            for template, result in zip(everyone, results, strict=True):
                _, score, _, (x, y) = cv2.minMaxLoc(result[rows[0] : rows[1]])
                y += rows[0]
                if score > best.score:
                    best = CoarseMatch(score, band.scale,
                                       *band.centre(x, y, (th, tw), p, _COARSE), template)
            found.append(best)
        # By score alone, stably: on a tie (a window with no ink at all) the first of SCALES.
        return sorted(found, key=lambda match: match.score, reverse=True) or [
            CoarseMatch(-2.0, 1.0, 0.0, 0.0, 0)]

    def _half(self, ink: np.ndarray) -> np.ndarray:
        """The ink map as the refinement searches it: at half size, with a border of zero
        ink round it."""
        half = cv2.resize(_signal(ink), (WINDOW_W // _FINE, WINDOW_H // _FINE),
                          interpolation=cv2.INTER_AREA).astype(np.float32)
        p = _FINE_PAD
        return cv2.copyMakeBorder(half, p, p, p, p, cv2.BORDER_CONSTANT, value=0)

    def _refine(self, half: np.ndarray, scale: float, cx: float, cy: float,
                template: int) -> Pose:
        """The best position within _FINE_REACH half-size pixels of the coarse one, at
        each of the FINER scales around the coarse scale, in the search's half-size ink
        (`_half`). All the scales are matched at once (`Correlator.match_each`)."""
        # Steps past REFINE_RANGE are held at its ends, and each scale is tried once: a coarse
        # match at an end used to try that end three times (2 of its 5 places).
        low, high = REFINE_RANGE
        steps = dict.fromkeys(min(high, max(low, scale * f)) for f in FINER)
        places = [place for place in (self._surroundings(half, s, cx, cy) for s in steps)
                  if place is not None]
        best = Pose(scale, cx, cy, -1.0)
        if not places:
            return best
        matched = self._fine.match_each([place.picture for place in places], [template])
        for place, (result,) in zip(places, matched, strict=True):
            # Near the coarse place the index is in view: no flat patch to discount here.
            _, score, _, (x, y) = cv2.minMaxLoc(result)
            if score > best.score:
                best = Pose(place.scale,
                            *place.centre(x, y, self._fine.shape, _FINE_PAD, _FINE),
                            float(score))
        return best

    def _surroundings(self, half: np.ndarray, s: float, cx: float, cy: float
                      ) -> _Searched | None:
        """The part of the half-size ink the zone may be in within _FINE_REACH of (cx, cy)
        at scale `s`, scaled to nominal; None where it is smaller than the template."""
        reach, p = _FINE_REACH, _FINE_PAD
        th, tw = self._fine.shape
        x0 = (cx - s * ZONE[2] / 2) / _FINE + p - reach * s
        y0 = (cy - s * ZONE[3] / 2) / _FINE + p - reach * s
        xa, ya = max(0, round(x0)), max(0, round(y0))
        xb = min(half.shape[1], round(x0 + s * (tw + 2 * reach)) + 1)
        yb = min(half.shape[0], round(y0 + s * (th + 2 * reach)) + 1)
        sub = half[ya:yb, xa:xb]
        size = (round(sub.shape[1] / s), round(sub.shape[0] / s))
        if size[0] < tw or size[1] < th:
            return None
        sub = cv2.resize(sub, size, interpolation=cv2.INTER_LINEAR)
        return _Searched(s, xa, ya, (xb - xa) / size[0], (yb - ya) / size[1], sub)


def _close(best: CoarseMatch, second: CoarseMatch, spare: float = 0.0) -> bool:
    """Whether the second coarse match is close enough to the best to refine too
    (SECOND_SCALE, SECOND_PLACE for each step of SCALES between them, with the share
    `spare` of each left to spare). An invented design's QH seen at 1.18
    (`--invent-seed 801`) matched best at 0.84 and at 1.19 0.016 behind, 10.6 px across
    and 3 up from it: with one step's reach the next scale was not looked at, and refined
    at 0.87 the QH was read as JH at 0.79, 0.18 ahead; at 1.19's pose it scored QH 0.97."""
    within = 1.0 - spare
    steps = max(1, round(abs(math.log(second.scale / best.scale)) / _SCALE_STEP))
    return (second.score >= best.score - SECOND_SCALE * within
            and abs(second.cx - best.cx) <= SECOND_PLACE[0] * steps * within
            and abs(second.cy - best.cy) <= SECOND_PLACE[1] * steps * within)
