"""A deck profile: everything `Reader` needs to know about one deck design and cut card.

Stored as one NumPy .npz archive (no pickles) holding:
  version          int, PROFILE_VERSION
  templates        (K, 128, 72) float32 the design's index-zone templates (`register`)
  two models (`model.Model`), card_* (the 52 card codes, from the index zone) and kind_*
  ("face", "back", "cut", "empty", "joker": what the whole window shows), each:
    *_mean (D,) float32, *_projection (D, d) float32: the learned projection
    *_views (N, d) float32: projected training views, unit length, grouped by class
    *_labels (N,) int32: class of each view, an index into *_classes (C,) str
    *_low (D,), *_high (D,) float32: each feature's least and greatest value over the
                   learned views; a window's are clamped to them (`model.Model.embed`)
  stages (S,) str, thresholds (S, 2) float: per stage of reading (STAGES), the
                   (score, margin) a reading must reach: its class's nearest view at least
                   this similar, and this much more than any other class's (calibrated at
                   enrolment on held-back views). `glance:<kind>` for the kind model (the
                   whole window: the empty window, a back in the over view, a card
                   passing, a face's side: a card's body passing or a blank face, by its
                   lead over every other kind), `model:<kind>` for the back, the cut card
                   and the empty window by the card model, `card` for a card, `pair` and
                   `suit` (below) for a card's close rivals and its suit
  pose_floor       float: a card is read only where its index zone matched at least this well
  likeness         (52, 1008) float32 each card's mean zone ink (`model.likeness_vector`)
  likeness_floor   float: ... and only when the zone looks at least this much like that card
  likeness_floors  (52,) float32: the same per card, at most likeness_floor (lower for
                   a card whose own views vary, as a court card's art beside its index)
  pair_index (P, 2) int32, pair_directions (P, d) float32, pair_middles (P,) float32,
  pair_halves (P,) float32: for a card and each of the cards nearest it, the direction in
                   the card model's projected space that tells the two apart (`model.Pairs`);
                   stage `pair` (its score is the least lead, in half-distances) accepts a
                   card whose nearest views lead its rivals by less than the card margin
  held_views       int, held_accepted float, held_wrong int, separation float: what the
                   calibration found (views read, share accepted, read wrong, and how far the
                   1st percentile of right readings' scores lies above the best wrong one)
  suit_box         (4,) float32: where in the index zone the design prints its suit (x, y,
                   w, h in the zone's nominal pixels, `suit.learn_box`)
  suit_mean, suit_scale, suit_low, suit_high (D,) float32, suit_pair_index (6, 2) int32,
  suit_pair_directions (6, D), suit_pair_middles (6,), suit_pair_halves (6,) float32:
                   the suit check (`suit.SuitCheck`): the box's shapes standardised, and
                   each two suits' direction; stage `suit` (its score is the least lead of
                   a card's suit over the others there, in half-distances)
  kind_pair_index (Q, 2) int32, kind_pair_directions (Q, d) float32, kind_pair_middles
  (Q,), kind_pair_halves (Q,) float32: every two kinds' direction in the kind model's
                   projected space (`model.Pairs`); stages `surface:<kind>` read the
                   back, the cut card or the empty window the card model names but does not
                   accept: their score is its least lead over every other kind (in
                   half-distances), their margin the least score of the card model
  gate_mean (6,), gate_whiten (6, 6), gate_others (M, 6) float64, gate_reach,
  gate_clearance float: the empty-window gate (`vision.gate`); reach 0 when too few empty
                   windows were learned (the gate shut: every window read in full)
  surface_strokes  (3,) float32: per SURFACE_KINDS (back, cut, empty), the most of a window
                   in dark strokes (`features.stroke_share`) that kind is read with: a
                   share above it is unknown, however near its views (`enrol._stroke_ceilings`;
                   1 for the back, a picture with strokes of its own)
  empty_edges      float: the most a window's card edges step (`features.card_edges`) with
                   which it is read as the empty window (`enrol._edge_ceiling`): past it, a
                   card's edge is in view
"""

from __future__ import annotations

import tokenize
import zipfile
import zlib
from dataclasses import dataclass, field, fields
from itertools import combinations
from pathlib import Path

import numpy as np

from vision.cards import SURFACE_KINDS, split_code
from vision.errors import ProfileError
from vision.features import EDGE_FLOOR
from vision.gate import MAX_REACH, MIN_CLEARANCE, SHUT, WHITENING, EmptyGate
from vision.model import Pairs
from vision.register import DEFAULT_SUIT_BOX, ZONE, Box
from vision.suit import SUITS, SuitCheck

# 7: the glance's hues are of the window's right and lower part (`features.HUE_PART`), so a
# profile learned on the whole window's would read with numbers it never learned. 8: the
# glance and the card model have the corner's contrast (`features.corner_contrast`).
# 9: each model's features are clamped to the range its learned views had (`*_low`,
# `*_high`). 10: a stage for a face's side at a glance (SIDE_STAGE: a body passing or a
# blank face, by its lead over every other kind, `model.glance_of`). 11: the suit check
# (`suit_*`, stage `suit`, `vision.suit`). 12: the surfaces' directions (`kind_pair_*`,
# stages `surface:<kind>`). 13: no new field, but the index search matches the ink doubled
# (`register._SIGNAL`): every threshold and the pose floor were found with poses and pose
# scores of that search. 14: no new field, but the zone is put at the best refinement of the
# scales that matched near the best (`register.Registration.find`): the views were learned
# and the thresholds found where that search put their zones. 15: no new field, but cards
# of which a held-back view was read as another card are learned from more views
# (`views.CONFUSED_CARD_LEARNED`): a profile of 14 holds a model, and thresholds, without them.
# 16: the surfaces' stroke ceilings (`surface_strokes`). 17: the empty window's edge
# ceiling (`empty_edges`). 18: no new field, but the ink is turned upright by the card's
# left edge before the index is searched for (`turn`): the templates, the views and every
# threshold are of upright ink.
PROFILE_VERSION = 18
# The most a window's edges can step (`features.card_edges`: log light, from black plus its
# floor to white): an `empty_edges` this high holds nothing back.
MOST_EDGES = float(np.log((255 + EDGE_FLOOR) / EDGE_FLOOR))
SIDE_STAGE = "glance:side"
STAGES = ("glance:empty", "glance:back", "glance:passing", SIDE_STAGE,
          "model:back", "model:cut", "model:empty", "surface:back", "surface:cut",
          "surface:empty", "card", "pair", "suit")


@dataclass(frozen=True, eq=False)
class Profile:
    templates: np.ndarray
    card_mean: np.ndarray
    card_projection: np.ndarray
    card_views: np.ndarray
    card_labels: np.ndarray
    card_classes: np.ndarray
    kind_mean: np.ndarray
    kind_projection: np.ndarray
    kind_views: np.ndarray
    kind_labels: np.ndarray
    kind_classes: np.ndarray
    card_low: np.ndarray
    card_high: np.ndarray
    kind_low: np.ndarray
    kind_high: np.ndarray
    thresholds: dict[str, tuple[float, float]]  # stage -> (score, margin), every STAGE
    pose_floor: float
    likeness: np.ndarray
    likeness_floor: float
    pair_index: np.ndarray
    pair_directions: np.ndarray
    pair_middles: np.ndarray
    pair_halves: np.ndarray
    held_views: int = 0
    held_accepted: float = 0.0
    held_wrong: int = 0
    separation: float = 0.0
    # The empty-window gate (`vision.gate`) and the per-card floors: every saved profile has
    # them (`load_profile` refuses one without); a Profile made in code without them has the
    # gate shut (reach 0: every window read in full) and the design's floor for every card.
    gate_mean: np.ndarray = field(default_factory=lambda: SHUT.mean)
    gate_whiten: np.ndarray = field(default_factory=lambda: SHUT.whiten)
    gate_others: np.ndarray = field(default_factory=lambda: SHUT.others)
    gate_reach: float = 0.0
    gate_clearance: float = 0.0
    likeness_floors: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_box: np.ndarray = field(default_factory=lambda: np.float32(DEFAULT_SUIT_BOX))
    suit_mean: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_scale: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_low: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_high: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_pair_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int32))
    suit_pair_directions: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 0), np.float32))
    suit_pair_middles: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    suit_pair_halves: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    kind_pair_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), np.int32))
    kind_pair_directions: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 0), np.float32))
    kind_pair_middles: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    kind_pair_halves: np.ndarray = field(default_factory=lambda: np.zeros(0, np.float32))
    # A Profile made in code without them reads a surface whatever its strokes.
    surface_strokes: np.ndarray = field(
        default_factory=lambda: np.ones(len(SURFACE_KINDS), np.float32))
    # ... and reads the empty window whatever its edges.
    empty_edges: float = MOST_EDGES

    @property
    def suit_place(self) -> Box:
        """`suit_box` as `register.Registration` takes it."""
        x, y, w, h = (float(v) for v in self.suit_box)
        return x, y, w, h

    @property
    def suit_check(self) -> SuitCheck:
        return SuitCheck(self.suit_mean, self.suit_scale, self.suit_low, self.suit_high,
                         Pairs(self.suit_pair_index, self.suit_pair_directions,
                               self.suit_pair_middles, self.suit_pair_halves))

    @property
    def card_pairs(self) -> Pairs:
        """Each card's direction to each of the cards nearest it in the card model's space."""
        return Pairs(self.pair_index, self.pair_directions, self.pair_middles,
                     self.pair_halves)

    @property
    def kind_pairs(self) -> Pairs:
        """Every two kinds' direction in the kind model's space (none: no surface is read
        by them)."""
        return Pairs(self.kind_pair_index, self.kind_pair_directions, self.kind_pair_middles,
                     self.kind_pair_halves)

    @property
    def card_likeness_floors(self) -> np.ndarray:
        """Each card's likeness floor (`likeness_floors`, or `likeness_floor` for all)."""
        if len(self.likeness_floors):
            return self.likeness_floors.astype(np.float64)
        return np.full(len(self.likeness), self.likeness_floor, np.float64)

    @property
    def gate(self) -> EmptyGate:
        return EmptyGate(self.gate_mean, self.gate_whiten, self.gate_reach,
                         self.gate_clearance, self.gate_others)

    def accepts(self, stage: str, score: float, margin: float) -> bool:
        least_score, least_margin = self.thresholds[stage]
        return score >= least_score and margin >= least_margin


_SCALARS = {"pose_floor": float, "likeness_floor": float, "held_views": int,
            "held_accepted": float, "held_wrong": int, "separation": float,
            "gate_reach": float, "gate_clearance": float, "empty_edges": float}
_GATE = {"gate_mean", "gate_whiten", "gate_others", "gate_reach", "gate_clearance"}
_ARRAYS = [f.name for f in fields(Profile) if f.name not in _SCALARS and f.name != "thresholds"]
_SHAPES = {"templates": 3, "likeness": 2, "pair_index": 2, "pair_directions": 2,
           "pair_middles": 1, "pair_halves": 1, "gate_mean": 1, "gate_whiten": 2,
           "gate_others": 2, "likeness_floors": 1, "suit_box": 1, "suit_mean": 1,
           "suit_scale": 1, "suit_low": 1, "suit_high": 1, "suit_pair_index": 2,
           "suit_pair_directions": 2, "suit_pair_middles": 1, "suit_pair_halves": 1,
           "kind_pair_index": 2, "kind_pair_directions": 2, "kind_pair_middles": 1,
           "kind_pair_halves": 1, "surface_strokes": 1} | {
    f"{model}_{name}": dims for model in ("card", "kind")
    for name, dims in (("mean", 1), ("projection", 2), ("views", 2), ("labels", 1),
                       ("classes", 1), ("low", 1), ("high", 1))}


def save_profile(profile: Profile, path: str | Path) -> Path:
    out = Path(path)
    with out.open("wb") as file:  # np.savez would append ".npz" to a bare path
        np.savez_compressed(
            file,
            version=np.int32(PROFILE_VERSION),
            **{name: np.asarray(getattr(profile, name)) for name in _SCALARS},
            **{name: getattr(profile, name) for name in _ARRAYS},
            stages=np.array(STAGES),
            thresholds=np.array([profile.thresholds[stage] for stage in STAGES], np.float64),
        )
    return out


def is_profile_file(path: str | Path) -> bool:
    """Whether `path` is a file `save_profile` wrote (an archive holding its version), of
    any version: what `sabot enroll --out` may write over."""
    try:
        with zipfile.ZipFile(path) as archive:
            return "version.npy" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return False


def load_profile(path: str | Path) -> Profile:
    file = Path(path)
    if file.is_dir():
        raise ProfileError(f"{file}: a directory, not a profile (give the .npz file "
                           "`sabot enroll --out` wrote)")
    if not file.is_file():
        raise ProfileError(f"{file}: no such profile (make one with `sabot enroll`)")
    try:
        loaded = np.load(file, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):  # one array (.npy), not an archive
            raise ProfileError(f"{file}: not a Sabot profile (one array, not the archive of "
                               "arrays `sabot enroll` writes)")
        with loaded as data:
            if "version" not in data.files:
                raise ProfileError(f"{file}: not a Sabot profile (an archive of arrays, but "
                                   "without the version every profile has)")
            raw_version = data["version"]
            try:
                version = int(raw_version)
            except (ValueError, TypeError):
                raise ProfileError(f"{file}: not a Sabot profile (its version is not a whole "
                                   "number)") from None
            if version > PROFILE_VERSION:
                raise ProfileError(f"{file}: profile version {version}, made by a newer "
                                   f"Sabot: this one reads version {PROFILE_VERSION} (update "
                                   "Sabot, or enrol the design again with this one)")
            if version != PROFILE_VERSION:
                raise ProfileError(f"{file}: profile version {version}, expected "
                                   f"{PROFILE_VERSION} (enrol the design again)")
            # Version 6 had the gate and the per-card floors added after it was first
            # written, and loaded without them; a profile since version 7 always has them, and
            # without the gate the reader would know nothing of the empty shoe's colour.
            lacking = [name for name in (*_ARRAYS, *_SCALARS, "stages", "thresholds")
                       if name not in data.files]
            if lacking:
                raise ProfileError(f"{file}: not a whole profile: it lacks "
                                   f"{', '.join(lacking)} (enrol the design again)")
            arrays = {name: data[name] for name in _ARRAYS}
            scalars = {name: kind(data[name]) for name, kind in _SCALARS.items()}
            stages, thresholds = data["stages"], data["thresholds"]
    # A damaged file fails wherever numpy's reading meets the damage: the zip, the deflated
    # data, an array's header (parsed as a Python literal: tokenize's and ast's own errors).
    except (OSError, ValueError, KeyError, TypeError, OverflowError, SyntaxError,
            tokenize.TokenError, zipfile.BadZipFile, zlib.error, EOFError) as error:
        if isinstance(error, ProfileError):
            raise
        if type(error) in (OSError, PermissionError, IsADirectoryError):  # not the file's fault
            raise ProfileError(f"{file}: cannot read the profile ({error.strerror or error})"
                               ) from None
        # numpy's own words name its internals (a file of Python objects, they even advise
        # loading it unsafely): the user is told what the file is not, and the damage.
        detail = ("an empty file" if file.stat().st_size == 0
                  else "not an archive of arrays, as `sabot enroll` writes"
                  if "pickle" in str(error) else "a damaged or cut-short archive"
                  if isinstance(error, zipfile.BadZipFile | EOFError) else f"damaged: {error}")
        raise ProfileError(f"{file}: not a Sabot profile ({detail})") from None
    _check(file, arrays, scalars)
    if tuple(str(s) for s in stages) != STAGES or thresholds.shape != (len(STAGES), 2):
        raise ProfileError(f"{file}: its thresholds are not those of the stages "
                           f"{', '.join(STAGES)}")
    if not np.all(np.isfinite(thresholds)):
        raise ProfileError(f"{file}: thresholds holds values that are not finite")
    for stage in ("pair", *(f"surface:{kind}" for kind in SURFACE_KINDS)):
        if thresholds[STAGES.index(stage)][0] < 0:  # a negative lead says another's
            raise ProfileError(f"{file}: the {stage} stage's least lead is below 0")
    for kind in SURFACE_KINDS:  # its margin is the card model's least score there
        if not 0 < thresholds[STAGES.index(f"surface:{kind}")][1] <= 1:
            raise ProfileError(f"{file}: the surface:{kind} stage's least score is not above "
                               "0 and at most 1")
    by_stage = {stage: (float(score), float(margin))
                for stage, (score, margin) in zip(STAGES, thresholds, strict=True)}
    return Profile(**arrays, **scalars, thresholds=by_stage)


# What each array holds (numpy dtype kinds): integers, text, or else real numbers.
_KINDS = {"pair_index": "iu", "suit_pair_index": "iu", "kind_pair_index": "iu", "card_labels": "iu",
          "kind_labels": "iu", "card_classes": "U", "kind_classes": "U"}
_KIND_WORDS = {"f": "real numbers", "iu": "whole numbers", "U": "text"}
_FLOAT32_MOST = float(np.finfo(np.float32).max)


def _check_every_two(file: Path, arrays: dict, prefix: str, classes: int, dims: int,
                     unfit: str) -> None:
    """`{prefix}_index`, `_directions`, `_middles`, `_halves` (`model.Pairs`): a direction
    in a space of `dims` numbers between every two of `classes` classes, once each, the
    lower first, as a suit or a kind is compared with each other (`Pairs.least_lead`);
    `unfit` says what is wrong when they are not."""
    index = arrays[f"{prefix}_index"]
    if (index.ndim != 2 or {tuple(row) for row in index.tolist()}
            != set(combinations(range(classes), 2))
            or len(index) != classes * (classes - 1) // 2
            or arrays[f"{prefix}_directions"].shape != (len(index), dims)
            or not len(arrays[f"{prefix}_middles"]) == len(arrays[f"{prefix}_halves"])
            == len(index)):
        raise ProfileError(f"{file}: {unfit}")
    if not np.all(arrays[f"{prefix}_halves"] > 0):  # a negative half turns every lead round
        raise ProfileError(f"{file}: {prefix}_halves holds values that are not above 0")


def _check(file: Path, arrays: dict, scalars: dict) -> None:
    """A damaged profile is refused here, naming what is wrong, not at the first frame."""
    for name, dims in _SHAPES.items():
        if arrays[name].ndim != dims:
            raise ProfileError(f"{file}: {name} has {arrays[name].ndim} dimensions, not {dims}")
        kind = _KINDS.get(name, "f")
        if arrays[name].dtype.kind not in kind:
            raise ProfileError(f"{file}: {name} holds {arrays[name].dtype} values, not "
                               f"{_KIND_WORDS[kind]}")
        # The reader computes in float32: a value beyond its range would be infinite there.
        if kind == "f" and not np.all(np.abs(arrays[name]) <= _FLOAT32_MOST):
            raise ProfileError(f"{file}: {name} holds values that are not finite")
    if len(arrays["templates"]) == 0 or arrays["templates"].shape[1:] != (ZONE[3], ZONE[2]):
        raise ProfileError(f"{file}: templates are not pictures of the index zone "
                           f"({ZONE[3]} x {ZONE[2]})")
    x, y, w, h = arrays["suit_box"] if arrays["suit_box"].shape == (4,) else (0, 0, 0, 0)
    if not (w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= ZONE[2] and y + h <= ZONE[3]):
        raise ProfileError(f"{file}: suit_box is not a box inside the index zone (x, y, width, "
                           f"height within {ZONE[2]} x {ZONE[3]})")
    shapes = arrays["suit_mean"].shape
    if (len(arrays["suit_mean"]) == 0
            or any(arrays[f"suit_{n}"].shape != shapes for n in ("scale", "low", "high"))):
        raise ProfileError(f"{file}: the suit check's arrays (suit_*) do not fit together")
    _check_every_two(file, arrays, "suit_pair", len(SUITS), shapes[0],
                     "the suit check's arrays (suit_*) do not fit together")
    if np.any(arrays["suit_low"] > arrays["suit_high"]):
        raise ProfileError(f"{file}: suit_low is above suit_high")
    _check_every_two(file, arrays, "kind_pair", len(arrays["kind_classes"]),
                     arrays["kind_views"].shape[1],
                     "the surfaces' directions (kind_pair_*) do not fit the kind model")
    for model in ("card", "kind"):
        views, projection = arrays[f"{model}_views"], arrays[f"{model}_projection"]
        labels, classes = arrays[f"{model}_labels"], arrays[f"{model}_classes"]
        low, high = arrays[f"{model}_low"], arrays[f"{model}_high"]
        if (projection.shape[0] != arrays[f"{model}_mean"].shape[0]
                or views.shape[1] != projection.shape[1] or len(labels) != len(views)
                or low.shape != arrays[f"{model}_mean"].shape or high.shape != low.shape):
            raise ProfileError(f"{file}: the {model} model's arrays do not fit together")
        if np.any(low > high):
            raise ProfileError(f"{file}: {model}_low is above {model}_high")
        if len(labels) == 0 or np.any(np.diff(labels) < 0) or \
                not np.array_equal(np.unique(labels), np.arange(len(classes))):
            raise ProfileError(f"{file}: the {model} model's labels do not index every class")
    strokes = arrays["surface_strokes"]
    if strokes.shape != (len(SURFACE_KINDS),) or not np.all((strokes >= 0) & (strokes <= 1)):
        raise ProfileError(f"{file}: surface_strokes is not a share from 0 to 1 for each of "
                           f"{', '.join(SURFACE_KINDS)}")
    if not 0 < scalars["empty_edges"] <= MOST_EDGES:
        raise ProfileError(f"{file}: empty_edges is not a step from 0 to {MOST_EDGES:g}")
    codes = sum(split_code(str(c)) is not None for c in arrays["card_classes"])
    if len(arrays["likeness"]) != codes:
        raise ProfileError(f"{file}: likeness does not have one row per card")
    floors = arrays["likeness_floors"]
    if (len(floors) != codes or np.any(floors < -1)
            or np.any(floors > scalars["likeness_floor"] + 1e-6)):
        raise ProfileError(f"{file}: likeness_floors is not one floor per card between -1 "
                           "and likeness_floor")
    pairs, directions = arrays["pair_index"], arrays["pair_directions"]
    if (pairs.shape[1:] != (2,) or len(directions) != len(pairs)
            or directions.shape[1] != arrays["card_views"].shape[1]
            or not len(arrays["pair_middles"]) == len(arrays["pair_halves"]) == len(pairs)
            or (len(pairs) and (pairs.min() < 0 or pairs.max() >= codes))):
        raise ProfileError(f"{file}: the pairs of cards do not fit the card model")
    for name in ("pose_floor", "likeness_floor", "held_accepted", "separation", "gate_reach",
                 "gate_clearance"):
        if not np.isfinite(scalars[name]):
            raise ProfileError(f"{file}: {name} is not a finite number")
    if (arrays["gate_mean"].shape != (6,) or arrays["gate_whiten"].shape != (6, 6)
            or arrays["gate_others"].shape[1:] != (6,)):
        raise ProfileError(f"{file}: the empty-window gate (gate_mean, gate_whiten, "
                           "gate_others) is not of six numbers")
    # A whitening that squeezes some direction flat, a reach far past any the empty windows
    # give or a clearance below the least enrolment sets would let windows through the gate
    # as the empty shoe that are not: cards missed. A learned whitening stretches no
    # direction (the camera's noise is in the covariance) and squeezes none below a spread
    # of a thousand grey levels.
    stretches = np.linalg.svd(arrays["gate_whiten"], compute_uv=False)
    if scalars["gate_reach"] > 0 and (
            scalars["gate_clearance"] < MIN_CLEARANCE or scalars["gate_reach"] > MAX_REACH
            or stretches.min() < WHITENING[0] or stretches.max() > WHITENING[1]):
        raise ProfileError(f"{file}: the empty-window gate (gate_whiten, gate_reach, "
                           "gate_clearance) is not one enrolment could have learned")
