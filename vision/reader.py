"""Reading one window: face (with rank and suit), back, cut, empty, or unknown.

A face is accepted only when every test passes: the rank's best template beats the
threshold AND beats every other rank by a margin, the same for the suit, the ink colour
agrees with the suit's colour, and the suit's size relative to the rank is the enrolled one.
A rank left unsure on a turned card is tried once more with its glyph set upright (the turn
is measured on the card's edge), and must then clear its tests by UPRIGHT_EXTRA more.
Anything else is `unknown`: a wrong rank read with confidence is the one error not allowed.
Backs, cut cards and the empty window are recognised from global surface statistics, within
tolerances learned at enrolment from views rendered across the camera envelope.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import RANKS, SUITS, is_red
from vision.features import surface_distance
from vision.measure import Glyphs, Measurement, glyphs_of, measure, set_upright
from vision.profile import Profile

RANK_MIN, RANK_MARGIN = 0.60, 0.25
SUIT_MIN, SUIT_MARGIN = 0.65, 0.25
ASPECT_WEIGHT = 0.6  # score lost per unit of |log(aspect ratio)| away from a template
RATIO_TOLERANCE = 0.3  # suit/rank height may differ this much (relative) from enrolment
OFFSET_TOLERANCE = 0.25  # rank centre vs suit centre may move this much (suit heights)
# A rank touching its pip is split many ways and the best taken: more chances of a chance
# match, so it must score this much higher.
MERGED_EXTRA = 0.05
# A rank tried again set upright (the card is turned) has had a second chance: it must clear
# the rank threshold and margin by this much more. (The suit is matched as it was.)
UPRIGHT_EXTRA = 0.05
# Plain correlation with the winning template (same deck, 1st percentile: rank 0.73 and
# suit 0.89 even for a rank touching its pip; another deck's cards: rank about 0.6).
PLAIN_RANK_MIN, PLAIN_SUIT_MIN = 0.66, 0.82
SURFACE_MAX = 1.0  # surface distance (tolerance units) within which a kind is recognised


@dataclass(frozen=True)
class Reading:
    kind: str  # face | back | cut | empty | unknown
    card: str | None = None
    rank: str | None = None
    suit: str | None = None
    score: float = 0.0
    reason: str = ""  # why unknown

    def as_dict(self) -> dict:
        return {"kind": self.kind, "card": self.card, "rank": self.rank, "suit": self.suit,
                "score": round(self.score, 3)}


def _best_two(
    scores: np.ndarray, starts: np.ndarray, names: list[str]
) -> list[tuple[str, float, float]]:
    """Per row of `scores` (columns grouped by class, each group beginning at `starts`):
    the best class, its score, and the best score of any other class."""
    per_class = np.maximum.reduceat(scores, starts, axis=1)
    rows = np.arange(len(per_class))
    winners = per_class.argmax(axis=1)
    best = per_class[rows, winners]
    per_class[rows, winners] = -np.inf
    second = per_class.max(axis=1)
    return [(names[c], float(b), float(n)) for c, b, n in zip(winners, best, second, strict=True)]


def _grouped(
    labels: np.ndarray, order: tuple[str, ...]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """(permutation grouping labels by class, start of each group, class names)."""
    ids = np.array([order.index(label) for label in labels])
    permutation = np.argsort(ids, kind="stable")
    present, starts = np.unique(ids[permutation], return_index=True)
    return permutation, starts, [order[i] for i in present]


def _centred(vectors: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """Rows of `vectors` minus `centre`, scaled to unit length."""
    shifted = vectors - centre
    norms = np.sqrt(np.einsum("ij,ij->i", shifted, shifted))[:, None]
    return shifted / np.maximum(norms, 1e-6)


def _class_centre(vectors: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Mean of the class means: what all glyphs of the deck have in common."""
    return np.mean([vectors[ids == i].mean(axis=0) for i in np.unique(ids)], axis=0)


class Reader:
    """Matching is done on glyph vectors minus the mean glyph of the deck, so that what
    every rank (or suit) shares - a blob of ink in the middle of the box - adds nothing to
    a score and only the differences count: a spade and a club correlate 0.9 as silhouettes
    and far less once their common shape is removed."""

    def __init__(self, profile: Profile, *, opencv_threads: int | None = 1) -> None:
        """`opencv_threads`: OpenCV's worker threads (process-wide). On windows this small
        they only spin: the default 1 halves the CPU a read costs for the same wall time.
        None leaves OpenCV's setting alone."""
        if opencv_threads is not None:
            cv2.setNumThreads(opencv_threads)
        self.profile = profile
        rank_order, self._rank_starts, self._ranks = _grouped(profile.rank_labels, RANKS)
        suit_order, self._suit_starts, self._suits = _grouped(profile.suit_labels, SUITS)
        rank_vectors = profile.rank_vectors[rank_order]
        suit_vectors = profile.suit_vectors[suit_order]
        self._log_aspects = np.log(profile.rank_aspects[rank_order])
        self._rank_centre = _class_centre(rank_vectors, profile.rank_labels[rank_order])
        self._suit_centre = _class_centre(suit_vectors, profile.suit_labels[suit_order])
        # Plain correlation, for a second opinion on the winner (see `_agrees`).
        self._rank_raw = np.ascontiguousarray(rank_vectors.T)
        self._suit_raw = np.ascontiguousarray(suit_vectors.T)
        # Transposed once here: every read multiplies by them.
        self._rank_templates = np.ascontiguousarray(_centred(rank_vectors, self._rank_centre).T)
        self._suit_templates = np.ascontiguousarray(_centred(suit_vectors, self._suit_centre).T)
        self._layouts = {
            rank: (profile.rank_ratios[profile.rank_labels == rank],
                   profile.rank_offsets[profile.rank_labels == rank])
            for rank in self._ranks
        }
        self._pip_fractions = tuple(float(f) for f in profile.pip_fractions)

    def read(self, image: np.ndarray) -> Reading:
        m = measure(image, self.profile.suit_height, pip_fractions=self._pip_fractions)
        surface_kind, surface_distance_ = self._surface(m)
        face = self._face(m) if m.index is not None else Reading("unknown", reason=m.why_no_index)
        if face.kind == "face":
            if surface_distance_ <= SURFACE_MAX and surface_kind != "empty":
                return Reading("unknown", reason=f"reads as {face.card} and as {surface_kind}")
            return face
        if surface_distance_ <= SURFACE_MAX:
            return Reading(surface_kind, score=max(0.0, 1.0 - surface_distance_ / 2))
        return face

    def _surface(self, m: Measurement) -> tuple[str, float]:
        distances = surface_distance(self.profile.surface_vectors, self.profile.surface_tolerances,
                                     m.surface)
        best = int(np.argmin(distances))
        return str(self.profile.surface_kinds[best]), float(distances[best])

    def rank_candidates(self, glyphs: list[Glyphs]) -> list[tuple[str, float, float]]:
        """For each glyphs: the best rank, its score and the best score of any other rank."""
        vectors = _centred(np.stack([g.rank_vector for g in glyphs]), self._rank_centre)
        log_aspects = np.log([g.rank_aspect for g in glyphs])[:, None]
        scores = vectors @ self._rank_templates
        scores -= ASPECT_WEIGHT * np.abs(self._log_aspects[None, :] - log_aspects)
        return _best_two(scores, self._rank_starts, self._ranks)

    def suit_candidates(self, glyphs: list[Glyphs]) -> list[tuple[str, float, float]]:
        vectors = _centred(np.stack([g.suit_vector for g in glyphs]), self._suit_centre)
        return _best_two(vectors @ self._suit_templates, self._suit_starts, self._suits)

    def best_split(self, m: Measurement) -> tuple[tuple[str, float, float],
                                                 tuple[str, float, float], Glyphs]:
        """Rank and suit candidates of the way of splitting the index whose rank and suit
        both match best (there is one way, unless the rank touches its pip), and its glyphs.
        A touching pip is tried at coarse heights, then refined around the best."""
        glyphs = list(m.glyphs)
        scored = list(zip(self.rank_candidates(glyphs), self.suit_candidates(glyphs),
                          glyphs, strict=True))
        best = max(range(len(scored)), key=lambda i: min(scored[i][0][1], scored[i][1][1]))
        merged = m.index.merged if m.index is not None else None
        if merged is not None:
            finer = [merged.split(m.pip_heights[best] + d) for d in (-2, 2)]
            more = [glyphs_of(m.index.ink, *split, m.angle) for split in finer if split is not None]
            if more:
                scored += zip(self.rank_candidates(more), self.suit_candidates(more), more,
                              strict=True)
                best = max(range(len(scored)),
                           key=lambda i: min(scored[i][0][1], scored[i][1][1]))
        return scored[best]

    def _agrees(self, g: Glyphs, rank: str, suit: str) -> bool:
        """Whether plain correlation (without removing the deck's common shape) also ranks
        `rank` and `suit` first, and high: the glyphs must look like the enrolled ones, not
        merely differ from the other ranks the same way. This is what turns away a card of
        another design (a foreign card), whose glyphs correlate far less."""
        rank_scores = g.rank_vector @ self._rank_raw
        rank_scores -= ASPECT_WEIGHT * np.abs(self._log_aspects - np.log(g.rank_aspect))
        by_rank = np.maximum.reduceat(rank_scores, self._rank_starts)
        by_suit = np.maximum.reduceat(g.suit_vector @ self._suit_raw, self._suit_starts)
        best_rank, best_suit = int(by_rank.argmax()), int(by_suit.argmax())
        return (self._ranks[best_rank] == rank and by_rank[best_rank] >= PLAIN_RANK_MIN
                and self._suits[best_suit] == suit and by_suit[best_suit] >= PLAIN_SUIT_MIN)

    def _face(self, m: Measurement) -> Reading:
        (rank, rank_score, rank_next), (suit, suit_score, suit_next), g = self.best_split(m)
        extra = MERGED_EXTRA if m.index is not None and m.index.merged is not None else 0.0
        if rank_score < RANK_MIN + extra or rank_score - rank_next < RANK_MARGIN:
            # On a turned card, a glyph's box holds its corners' overhang: try again with
            # the rank set upright (rarely needed, and measuring the turn costs time).
            turned = set_upright(m, pip_fractions=self._pip_fractions)
            if turned is None:
                why = f"rank unsure ({rank} {rank_score:.2f}/{rank_next:.2f})"
                return Reading("unknown", reason=why)
            m, again = turned, extra + UPRIGHT_EXTRA
            (rank, rank_score, rank_next), (suit, suit_score, suit_next), g = self.best_split(m)
            if rank_score < RANK_MIN + again or rank_score - rank_next < RANK_MARGIN + again:
                why = f"rank unsure ({rank} {rank_score:.2f}/{rank_next:.2f}, set upright)"
                return Reading("unknown", reason=why)
        # The index's layout must be that of some enrolled sample of this rank: a "10" whose
        # "1" was lost at the card's edge is a "0" sitting right of its suit, not a Q.
        ratios, offsets = self._layouts[rank]
        ratio_off = np.abs(g.suit_rank_ratio / ratios - 1.0) / RATIO_TOLERANCE
        offset_off = np.abs(g.rank_offset - offsets) / OFFSET_TOLERANCE
        if np.min(np.maximum(ratio_off, offset_off)) > 1.0:
            return Reading("unknown", reason=f"index layout unlike any enrolled {rank}")
        if suit_score < SUIT_MIN + extra or suit_score - suit_next < SUIT_MARGIN:
            why = f"suit unsure ({suit} {suit_score:.2f}/{suit_next:.2f})"
            return Reading("unknown", reason=why)
        threshold = self.profile.red_threshold  # NaN: the design's colours were not separable
        if threshold == threshold and is_red(suit) != (m.redness > threshold):
            return Reading("unknown", reason=f"ink colour disagrees with suit {suit}")
        if not self._agrees(g, rank, suit):
            why = f"glyphs not close enough to the enrolled {rank}{suit}"
            return Reading("unknown", reason=why)
        return Reading("face", rank + suit, rank, suit, min(rank_score, suit_score))
