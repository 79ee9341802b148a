"""What a window looks like to the reader, and the per-design model that tells classes apart.

`describe` gives a window's vector for one place of its index zone (`register`): the gradient
orientation histograms of the zone's ink, the redness of that ink, and the window's surface
statistics (colour, brightness, texture, share of paper), which tell backs, cut cards and
the empty window. `Model` is learned per design at enrolment: a linear discriminant
projection (the directions along which the design's classes differ most against how much
each class varies across the camera envelope), and the projected views themselves, so a
window's class is that of its nearest views (cosine similarity). Numbers only: `profile`
stores them, `reader` uses them.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.cards import COUNTERPART, FACE_SIDES, SURFACE_KINDS
from vision.features import (
    HUE_PART,
    INK_LEVEL,
    corner_contrast,
    ink_colour,
    ink_map,
    orientation_histograms,
    surface_vector,
    thumbnail,
)
from vision.geometry import to_window
from vision.register import FINER, ZONE, Pose
from vision.turn import card_turn, turned_upright

ZONE_PICTURE = (48, 84)  # the zone is compared at this size (w, h): 2/3 of nominal
CELL = 6  # pixels per histogram cell of that picture
REDNESS_WEIGHT = 3.0  # so that a pale red is not lost among 1,008 shape numbers
PCA_DIMENSIONS = 200  # before the discriminant: keeps the within-class scatter invertible
SHRINK = 0.05  # share of the mean variance added to the within-class scatter


def surface_of(window: np.ndarray) -> np.ndarray:
    return surface_vector(thumbnail(window))


class Prepared:
    """A window at nominal size, its thumbnail and surface statistics, and (made when first
    asked for: an empty window never needs it) its ink map, turned upright by the card's
    turn (`turn`), and the window turned with it (`upright`)."""

    def __init__(self, image: np.ndarray, small: np.ndarray | None = None,
                 small_gray: np.ndarray | None = None) -> None:
        """`small`: the window's `thumbnail`, and `small_gray` that in grey, if the caller
        made them already (every stage of a read looks at the thumbnail in grey, and two
        in HSV: each is converted once)."""
        self.window = to_window(image)
        self.small = thumbnail(self.window) if small is None else small
        self.small_gray = (cv2.cvtColor(self.small, cv2.COLOR_BGR2GRAY) if small_gray is None
                           else small_gray)
        self.small_hsv = cv2.cvtColor(self.small, cv2.COLOR_BGR2HSV)
        self.surface = surface_vector(self.small, self.small_hsv)
        self.turn = 0.0  # degrees the card is turned (`turn.card_turn`), once the ink is made
        self._ink: np.ndarray | None = None
        self._upright: np.ndarray | None = None

    @property
    def ink(self) -> np.ndarray:
        """The ink map (`features.ink_map`), turned upright: the index is searched for and
        described as the templates and the learned views have it (`turn`)."""
        if self._ink is None:
            gray = cv2.cvtColor(self.window, cv2.COLOR_BGR2GRAY)
            self.turn = card_turn(gray)
            self._ink = turned_upright(ink_map(gray, self.small_gray), self.turn,
                                       cv2.BORDER_CONSTANT)
        return self._ink

    @property
    def upright(self) -> np.ndarray:
        """The window turned as its ink is: the ink's colour is read where the ink is."""
        if self._upright is None:
            if self._ink is None:  # the turn is read where the ink is made
                _ = self.ink
            self._upright = turned_upright(self.window, self.turn)
        return self._upright


def prepare(image: np.ndarray) -> Prepared:
    return Prepared(image)


BLANK_INK = 0.004  # share of a window's pixels that may be ink on an empty window


def blank_of_ink(prepared: Prepared) -> bool:
    """Whether the window shows no ink at all: the empty shoe does not, a card's index does
    (even glared or faint, some of its strokes show)."""
    ink = prepared.ink
    return cv2.countNonZero(cv2.compare(ink, INK_LEVEL, cv2.CMP_GT)) <= BLANK_INK * ink.size


HUES, SATURATIONS = 12, 3
# Where each part of `kind_vector` lies in it.
GLANCE_HUES = slice(7, 7 + HUES * SATURATIONS)
GLANCE_CORNER = slice(GLANCE_HUES.stop, GLANCE_HUES.stop + 3)
GLANCE_COLOUR = GLANCE_CORNER.stop  # the numbers before it say a window's colour


def kind_vector(prepared: Prepared) -> np.ndarray:
    """What kind of thing a window shows (a face, a back, the cut card, nothing), from the
    whole window: surface statistics, a hue and saturation histogram (of the window's right
    and lower part: HUE_PART), its corner against that part (`corner_contrast`) and the
    coarse shape of its light and dark, none of which needs the index to be found."""
    small, hsv = prepared.small, prepared.small_hsv
    h, w = hsv.shape[:2]
    part = np.ascontiguousarray(hsv[h // HUE_PART[1]:, w // HUE_PART[0]:])
    colours = cv2.calcHist([part], [0, 1], None, [HUES, SATURATIONS], [0, 180, 0, 256]).ravel()
    colours /= max(1.0, float(colours.sum()))
    shape = orientation_histograms(prepared.small_gray[1:49], 8)
    return np.concatenate([prepared.surface, np.sqrt(colours), corner_contrast(small),
                           shape]).astype(np.float32)


def colour_of_joint(card_length: int) -> np.ndarray:
    """Indices, in a card vector (`describe`, `card_length` long) followed by the
    `kind_vector`, of the numbers that say a window's colour: the ink's redness, the whole
    window's surface statistics, its hue histogram and its corner's contrast."""
    return np.r_[card_length - 8, card_length + np.arange(GLANCE_COLOUR)]


def kind_weights() -> np.ndarray:
    """How much each part of `kind_vector` counts once standardised: the 216 shape numbers
    (noise, on an empty window) would otherwise outvote the 46 of surface and colour."""
    return np.concatenate([np.ones(GLANCE_COLOUR), np.full(216, 0.3)]).astype(
        np.float32)


# Poses one step of the index search away from a pose, as (scale factor, x, y) with x and y
# in nominal window pixels at the pose's scale: the refinement's scale step (`register.FINER`)
# and its position step (a half-size pixel across; down, the same share of the zone's
# height, which is 1.8 times its width).
NUDGES = ((FINER[1], 0, 0), (FINER[3], 0, 0), (1, -2, 0), (1, 2, 0), (1, 0, -3), (1, 0, 3))
# ... and the corners of the box two such steps away each way at once (8% in scale, 4 px
# across, 6 px down): a frame printed just outside the index pulled a zone that far off its
# index (`Reader._doubt_nearby`).
TWO_STEPS = tuple((k, dx, dy) for k in (FINER[0], FINER[4]) for dx in (-4, 4) for dy in (-6, 6))


def nudged(pose: Pose, steps: tuple[tuple[float, float, float], ...] = NUDGES) -> list[Pose]:
    """The poses `steps` away from `pose` (their score is `pose`'s)."""
    return [Pose(pose.scale * k, pose.cx + dx * pose.scale, pose.cy + dy * pose.scale,
                 pose.score) for k, dx, dy in steps]


def describe_nudged(prepared: Prepared, pose: Pose, vector: np.ndarray,
                    steps: tuple[tuple[float, float, float], ...] = NUDGES) -> np.ndarray:
    """The vectors (len(steps), ...) of the window with its index zone at each of
    `nudged(pose, steps)`: `vector` (`describe` at `pose`, and whatever follows it) with
    the shape taken at the nudged zone, all in one pass (`orientation_histograms`). The
    ink's redness stays the zone's at `pose`: a step moves where the index falls in the
    zone, not the colour of its ink."""
    pictures = np.stack([zone_picture(prepared, near) for near in nudged(pose, steps)])
    shapes = orientation_histograms(pictures, CELL)
    rows = np.repeat(vector[None, :], len(pictures), axis=0)
    rows[:, : shapes.shape[1]] = shapes
    return rows


def zone_picture(prepared: Prepared, pose: Pose) -> np.ndarray:
    """The ink of the index zone at `pose`, at ZONE_PICTURE size."""
    width, height = ZONE_PICTURE
    return cv2.warpAffine(prepared.ink, pose.zone_matrix(width, height), ZONE_PICTURE,
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)


LIKENESS_SIZE = (24, 42)


def likeness_vector(zone: np.ndarray) -> np.ndarray:
    """The zone's ink, softened and at half size, zero-mean and unit length: its dot product
    with a card's mean is how much the window looks like that card at all (a blank window or
    another design's card does not, however the model ranks it)."""
    # Softened in float: OpenCV 5's bit-exact blur of 8-bit pictures took 6 times as long.
    small = cv2.resize(cv2.GaussianBlur(zone.astype(np.float32), (0, 0), 1.5), LIKENESS_SIZE,
                       interpolation=cv2.INTER_AREA).ravel()
    small -= small.mean()
    return small / max(float(np.linalg.norm(small)), 1e-6)


def describe(prepared: Prepared, pose: Pose, zone: np.ndarray | None = None) -> np.ndarray:
    """The feature vector of a window with its index zone at `pose` (`zone`: its picture,
    if the caller has it already)."""
    zone = zone_picture(prepared, pose) if zone is None else zone
    shape = orientation_histograms(zone, CELL)
    redness = REDNESS_WEIGHT * _redness(prepared.upright, prepared.ink, pose)
    # The shape first: `describe_nudged` puts the nudged zones' in its place.
    return np.concatenate([shape, [redness], prepared.surface]).astype(np.float32)


def _redness(window: np.ndarray, ink: np.ndarray, pose: Pose) -> float:
    """Redness of the ink in the zone against the paper around it (~0 black, ~0.7 red)."""
    x0, y0, w, h = _zone_box(pose, window.shape)
    if w < 4 or h < 4:
        return 0.0
    roi = (slice(y0, y0 + h), slice(x0, x0 + w))
    zone_ink = ink[roi]
    inked = cv2.compare(zone_ink, INK_LEVEL, cv2.CMP_GT)
    paper = cv2.compare(zone_ink, 40, cv2.CMP_LT)
    if cv2.countNonZero(inked) < 8 or cv2.countNonZero(paper) < 8:
        return 0.0
    return ink_colour(window[roi], inked, paper)


def _zone_box(pose: Pose, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    half_w, half_h = pose.scale * ZONE[2] / 2, pose.scale * ZONE[3] / 2
    x0, y0 = max(0, round(pose.cx - half_w)), max(0, round(pose.cy - half_h))
    x1 = min(shape[1], round(pose.cx + half_w))
    y1 = min(shape[0], round(pose.cy + half_h))
    return x0, y0, x1 - x0, y1 - y0


def discriminant(vectors: np.ndarray, labels: np.ndarray,
                 keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(mean, projection): Fisher's linear discriminant of `vectors` by `labels`, after a
    principal-component reduction, as `(x - mean) @ projection`. `keep`: indices of features
    that join the reduction as they are, scaled to its components' mean variance."""
    mean = vectors.mean(axis=0)
    centred = vectors - mean
    # The principal components from the features' scatter (D x D, in float64), not an SVD
    # of the N x D views: the same directions in a quarter of the time (3.3 s of an
    # enrolment's minute went on the SVD).
    scatter = centred.T.astype(np.float64) @ centred.astype(np.float64)
    _, directions = np.linalg.eigh(scatter)  # ascending
    count = min(PCA_DIMENSIONS, *centred.shape)
    reduce = directions[:, ::-1][:, :count].astype(centred.dtype)
    if keep is not None and len(keep):
        # A window's colour is a few numbers that vary little beside a thousand of shape:
        # the components leave them out (a purple cut card was read as the dark empty
        # window), and the shrinkage below would drown them even if kept unscaled.
        variance = float((centred @ reduce).var(axis=0).mean())
        scale = np.sqrt(variance / (centred[:, keep].var(axis=0) + 1e-9))
        picked = np.zeros((vectors.shape[1], len(keep)), np.float64)
        picked[keep, np.arange(len(keep))] = scale
        reduce = np.hstack([reduce, picked])
    reduced = centred @ reduce
    classes = np.unique(labels)
    means = np.stack([reduced[labels == c].mean(axis=0) for c in classes])
    spread = reduced - means[np.searchsorted(classes, labels)]
    within = spread.T @ spread / len(reduced)
    within += SHRINK * np.trace(within) / len(within) * np.eye(len(within))
    between = means.T @ means / len(classes)
    whiten = np.linalg.inv(np.linalg.cholesky(within))
    values, vectors_ = np.linalg.eigh(whiten @ between @ whiten.T)
    keep = vectors_[:, ::-1][:, : len(classes) - 1]
    return mean.astype(np.float32), (reduce @ (whiten.T @ keep)).astype(np.float32)


def unit(rows: np.ndarray) -> np.ndarray:
    """`rows` (or one vector) scaled to unit length (a zero one stays near zero)."""
    return rows / np.maximum(np.linalg.norm(rows, axis=-1, keepdims=True), 1e-6)


@dataclass(frozen=True, eq=False)
class Model:
    """The projection and the projected training views (unit length) with their classes."""

    mean: np.ndarray
    projection: np.ndarray
    views: np.ndarray  # (N, D) float32, grouped by class in the order of `classes`
    labels: np.ndarray  # (N,) int, index into `classes`
    classes: tuple[str, ...]  # card codes, "back", "cut", "empty"
    # Each feature's least and greatest value over the views it was learned from (None:
    # not clamped). A window's features are clamped to them before the projection: a
    # feature that hardly varied in the learned views is scaled up to count as much as the
    # rest, and a window where it takes a value never learned (a saturated red beside
    # samples photographed washed out, where no pixel was) was projected hundreds of
    # spreads away, onto whichever class lay furthest that way, with confidence.
    low: np.ndarray | None = None
    high: np.ndarray | None = None

    def __post_init__(self) -> None:
        starts = np.searchsorted(self.labels, np.arange(len(self.classes)))
        object.__setattr__(self, "_starts", starts)

    @classmethod
    def learn(cls, vectors: np.ndarray, labels: np.ndarray, classes: tuple[str, ...],
              *, discriminate: bool = True, weights: np.ndarray | None = None,
              keep: np.ndarray | None = None) -> Model:
        """`labels` index `classes`; every class needs views. `discriminate`: project onto
        the linear discriminant (for many classes); else only standardise each feature (a
        handful of classes, whose discriminant would keep too few directions) and weigh it
        by `weights`."""
        order = np.argsort(labels, kind="stable")
        vectors, labels = vectors[order], labels[order]
        if discriminate:
            mean, projection = discriminant(vectors, labels, keep)
        else:
            mean = vectors.mean(axis=0)
            scale = 1.0 / (vectors.std(axis=0) + 1e-3)
            if weights is not None:
                scale = scale * weights
            projection = np.diag(scale).astype(np.float32)
        views = unit((vectors - mean) @ projection).astype(np.float32)
        low, high = vectors.min(axis=0), vectors.max(axis=0)
        # A view whose nearest other view is of another class shows nothing of its own (the
        # index glared out, cut off, the zone found on a pip): kept, it would be the nearest
        # view of another such window and give it a class with full confidence.
        similarity = views @ views.T
        np.fill_diagonal(similarity, -np.inf)
        keep = labels[similarity.argmax(axis=1)] == labels
        for label in np.unique(labels):  # never all of a class
            if not keep[labels == label].any():
                keep[labels == label] = True
        return cls(mean, projection, views[keep], labels[keep].astype(np.int32), classes,
                   low.astype(np.float32), high.astype(np.float32))

    def embed(self, vector: np.ndarray) -> np.ndarray:
        if self.low is not None:
            vector = np.clip(vector, self.low, self.high)
        return unit((vector - self.mean) @ self.projection)

    def class_scores(self, vector: np.ndarray) -> np.ndarray:
        """Per class, the similarity of its nearest training view (-1 .. 1)."""
        return self.scores_of(self.embed(vector))

    def scores_of(self, embedded: np.ndarray) -> np.ndarray:
        """`class_scores` of a vector already embedded (`embed`); of vectors (K, D), the
        scores (K, classes)."""
        if embedded.ndim == 1:
            return np.maximum.reduceat(self.views @ embedded, self._starts)
        return np.maximum.reduceat(self.views @ embedded.T, self._starts).T


def best_of(model: Model, vector: np.ndarray) -> tuple[str, float, float, str]:
    """The best class for `vector`, its score, its lead over the next class, and that class."""
    return ranked(model, model.class_scores(vector))


def glance_of(model: Model, vector: np.ndarray) -> tuple[str, float, float, float]:
    """`best_of` a whole window's glance (the kind model's class, score and margin), and the
    lead of a face's side (FACE_SIDES, whichever is nearer) over every class that is not
    one; -1 when the nearest class is not a face's side. A body passing and a face with
    nothing printed look alike (the glance ran the two within 0.04 of each other on most
    frames of a card's body passing), and either is a face's side without an index."""
    scores = model.class_scores(vector)
    kind, score, margin, _ = ranked(model, scores)
    if kind not in FACE_SIDES:
        return kind, score, margin, -1.0
    others = [k for k, name in enumerate(model.classes) if name not in FACE_SIDES]
    return kind, score, margin, score - float(scores[others].max()) if others else 1.0


def ranked(model: Model, scores: np.ndarray) -> tuple[str, float, float, str]:
    """`best_of`, from the class scores."""
    order = np.argsort(scores)
    best, runner_up = int(order[-1]), int(order[-2])
    return (model.classes[best], float(scores[best]), float(scores[best] - scores[runner_up]),
            model.classes[runner_up])


PAIR_NEIGHBOURS = 4  # each card gets a pairwise direction to this many of its nearest cards
# Cards within this much of the best one's score are its rivals (or the card stage's margin,
# if that is wider): each must be told from it by their pair's direction.
PAIR_RIVALS = 0.15


@dataclass(frozen=True, eq=False)
class Pairs:
    """For each card and the cards nearest it in the model's projected space, the direction
    along which the two differ most against how each varies across the envelope (Fisher's
    discriminant of the two alone). Two cards that differ in one small place (a suit under a
    large rank, 10S and 10C) have nearest views almost as similar to either; along their own
    direction they lie apart by many times their spread."""

    index: np.ndarray  # (P, 2) int32: class numbers of the two cards, the first the lower
    directions: np.ndarray  # (P, d) float32, unit length, from the second card to the first
    middles: np.ndarray  # (P,) float32: where along it the two classes' means meet
    halves: np.ndarray  # (P,) float32: half the distance between the two means along it

    def __post_init__(self) -> None:
        rows = {(int(a), int(b)): k for k, (a, b) in enumerate(self.index)}
        object.__setattr__(self, "_rows", rows)

    def lead(self, embedded: np.ndarray, card: int, rival: int) -> float | None:
        """How far `embedded` lies on `card`'s side of the two, in half-distances (+1 at its
        mean, -1 at the rival's); None when the two have no direction of their own."""
        a, b = min(card, rival), max(card, rival)
        row = self._rows.get((a, b))  # type: ignore[attr-defined]
        if row is None:
            return None
        along = (float(self.directions[row] @ embedded) - float(self.middles[row]))
        along /= max(float(self.halves[row]), 1e-6)
        return along if card == a else -along

    def least_lead(self, embedded: np.ndarray, own: int, classes: int) -> float:
        """The least `lead` of class `own` over each other of classes 0 .. `classes` - 1;
        -inf when one has no direction to it or a lead is no number (a class never compared
        with another is not told from it)."""
        leads = [self.lead(embedded, own, other) for other in range(classes) if other != own]
        if not leads or any(x is None or not np.isfinite(x) for x in leads):
            return -np.inf
        return float(min(leads))  # type: ignore[type-var]

    def weakest_lead(self, embedded: np.ndarray, scores: np.ndarray, best: int,
                     margin: float) -> float | None:
        """The least `lead` of class `best` over each rival (every other class scoring within
        max(PAIR_RIVALS, `margin`) of it), None when a rival has no direction (not a card, or
        not near enough at enrolment to get one) or there is no rival."""
        return weakest(self.leads(embedded, scores, best, margin))

    def leads(self, embedded: np.ndarray, scores: np.ndarray, best: int, margin: float, *,
              reach: float = PAIR_RIVALS) -> list[float | None]:
        """The `lead` of class `best` over each rival (every other class scoring within
        max(`reach`, `margin`) of it), None for a rival with no direction of its own."""
        within = max(reach, margin)
        rivals = np.flatnonzero(scores >= scores[best] - within)
        return [self.lead(embedded, best, int(r)) for r in rivals if r != best]


def weakest(leads: list[float | None]) -> float | None:
    """The least of a card's `Pairs.leads`, None when there is no rival or one has no
    direction of its own: a card is told from its close rivals only when from every one."""
    if not leads or any(lead is None for lead in leads):
        return None
    return min(leads)  # type: ignore[type-var]


def surface_asked(card: str, kind: str) -> str:
    """What the reader reads a window as, where the one model's nearest class is `card` and
    the glance's nearest kind is `kind`: the glance's back, cut card or empty window where
    the one model's nearest is a face's side (a plain cut card seen washed out is as much
    like paper to the one model), read along the glance's directions alone (`Reader.read`);
    `card` otherwise."""
    return kind if card in FACE_SIDES and kind in SURFACE_KINDS else card


def counterpart_lead(pairs: Pairs, classes: list[str] | tuple[str, ...], glanced: np.ndarray,
                     kind: str) -> float | None:
    """Of the cut card or the empty window (`kind`), its lead over the other of the two
    (`COUNTERPART`) along their own direction in the glance's space: `pairs` and `classes`
    the kind model's, `glanced` the window's glance embedded in it. Below 0, the window lies
    on the other's side. None for another kind, or a design without the two."""
    other = COUNTERPART.get(kind)
    if other is None or kind not in classes or other not in classes:
        return None
    return pairs.lead(glanced, list(classes).index(kind), list(classes).index(other))


def learn_pairs(model: Model, cards: int, neighbours: int = PAIR_NEIGHBOURS) -> Pairs:
    """The `Pairs` of the first `cards` classes of `model` (the card codes), each card with its
    `neighbours` nearest cards by their views' mean."""
    return pairs_of(model.views, model.labels, cards, neighbours)


def pairs_of(views: np.ndarray, labels: np.ndarray, cards: int,
             neighbours: int = PAIR_NEIGHBOURS) -> Pairs:
    """The `Pairs` of classes 0 .. `cards` - 1 of `views` (N, d) labelled `labels` (N), each
    with its `neighbours` nearest classes by their views' mean."""
    dims = views.shape[1]
    means = np.stack([views[labels == c].mean(axis=0) for c in range(cards)])
    near = unit(means) @ unit(means).T
    np.fill_diagonal(near, -np.inf)
    chosen = sorted({(min(a, b), max(a, b)) for a in range(cards)
                     for b in np.argsort(near[a])[-neighbours:].tolist()})
    directions, middles, halves = [], [], []
    for a, b in chosen:
        first, second = views[labels == a], views[labels == b]
        scatter = _scatter(first) + _scatter(second)
        scatter += SHRINK * max(float(np.trace(scatter)), 1e-6) / dims * np.eye(dims)
        direction = np.linalg.solve(scatter, first.mean(axis=0) - second.mean(axis=0))
        direction /= max(float(np.linalg.norm(direction)), 1e-9)
        ends = (float(first.mean(axis=0) @ direction), float(second.mean(axis=0) @ direction))
        directions.append(direction)
        middles.append(sum(ends) / 2)
        halves.append((ends[0] - ends[1]) / 2)
    return Pairs(np.array(chosen, np.int32).reshape(-1, 2),
                 np.array(directions, np.float32).reshape(-1, dims),
                 np.array(middles, np.float32), np.array(halves, np.float32))


def _scatter(views: np.ndarray) -> np.ndarray:
    centred = views - views.mean(axis=0)
    return centred.T @ centred / max(1, len(views) - 1)
