"""Enrolment: a directory of sample windows -> a `Profile` for one deck design.

Samples are named by what they show: a card code (`AS.png`, `10h.jpg`, `TD.png`),
`back*.png`, `cut*.png`, optional `empty*.png`. Each is a reading window, or a whole card
face as a deck's artwork ships (the window is then cut from it). Every rank and every suit
must be read at least once; jokers, other names, a missing back or cut card are notes.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cards import RANKS, RED_SUITS, SUITS, split_code
from vision.errors import EnrolmentError
from vision.features import surface_tolerances
from vision.geometry import WINDOW_H, WINDOW_W, to_window
from vision.imageio import IMAGE_SUFFIXES, read_image
from vision.index import PIP_FRACTIONS
from vision.measure import Measurement, measure
from vision.profile import Profile
from vision.synth import card_source, random_perturbation, render, window_source

SURFACE_KINDS = ("back", "cut", "empty")


NOT_A_CARD = ("joker",)  # faces a deck ships that are not cards of the shoe


def _kind_of(file: Path) -> str:
    """face, back, cut, empty, joker, or "" for a name that says none of these."""
    stem = file.stem.lower()
    for kind in (*SURFACE_KINDS, *NOT_A_CARD):
        if stem.startswith(kind):
            return kind
    return "face" if split_code(file.stem) is not None else ""


def is_whole_face(image: np.ndarray) -> bool:
    """Whether a sample is a whole card face (as a deck's artwork ships) rather than a reading
    window: transparent corners, or the index printed again upside down in the opposite
    corner, as every card has and no window shows."""
    if image.ndim == 3 and image.shape[2] == 4:
        corners = image[[0, 0, -1, -1], [0, -1, 0, -1], 3]
        if int(corners.max()) < 128:
            return True
        image = image[:, :, :3]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape
    if not 1.25 <= h / w <= 1.9:
        return False
    corner = (slice(0, h // 4), slice(0, w // 3))
    top_left = gray[corner].astype(np.float32)
    bottom_right = cv2.rotate(gray, cv2.ROTATE_180)[corner].astype(np.float32)
    if min(float(top_left.std()), float(bottom_right.std())) < 15:  # plain paper: no index
        return False
    score = cv2.matchTemplate(top_left, bottom_right, cv2.TM_CCOEFF_NORMED)
    return float(score.max()) > 0.7


def sample_window(image: np.ndarray) -> np.ndarray:
    """The reading window of a sample: itself, or cut from a whole face where the geometry
    puts the window, over the shoe's dark interior."""
    if is_whole_face(image):
        return render(card_source(image))
    return to_window(image[:, :, :3] if image.ndim == 3 and image.shape[2] == 4 else image)


SURFACE_VIEWS = 32  # envelope views per back / cut / empty sample
COLOUR = [0, 1, 2, 5]  # chromaticity and saturation in `features.surface_vector`


def surface_model(window: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(statistics, tolerance) of one back / cut / empty sample: what the reader accepts as
    that kind. A saturated colour's chromaticity and saturation move with gamma and colour
    cast, so its tolerance is learned from views of the sample rendered across half the
    envelope (4 standard deviations, between 1 and 2 times the fixed tolerance); the
    other features keep the fixed one (learning them too let jokers read as backs)."""
    fixed = surface_tolerances(np.array([kind]))[0]
    rng = np.random.default_rng(len(kind))
    source = window_source(window)
    views = np.stack([measure(render(source, random_perturbation(rng, 0.5), rng=rng)).surface
                      for _ in range(SURFACE_VIEWS)])
    tolerance = fixed.copy()
    tolerance[COLOUR] = np.clip(4 * views[:, COLOUR].std(axis=0), fixed[COLOUR],
                                2 * fixed[COLOUR])
    return measure(window).surface, tolerance


def _likeliest(measured: Measurement, suit: str, separate_suits: dict) -> int:
    """Which split of a sample's index has the pip that looks most like the same suit on
    the cards where it stands apart (the first when there is a gap, or no such card)."""
    reference = separate_suits.get(suit)
    if len(measured.glyphs) == 1 or reference is None:
        return 0
    return max(range(len(measured.glyphs)),
               key=lambda i: float(measured.glyphs[i].suit_vector @ reference))


def _pip_fractions(fractions: list[float]) -> np.ndarray:
    if not fractions:
        return np.array(PIP_FRACTIONS, np.float32)
    low, high = max(PIP_FRACTIONS[0], min(fractions) - 0.15), max(fractions) + 0.15
    return np.array([low, min(PIP_FRACTIONS[1], high)], np.float32)


def _builtin_empty() -> np.ndarray:
    """A flat dark window: the shoe interior when no empty sample was captured."""
    return np.full((WINDOW_H, WINDOW_W, 3), 30, np.uint8)


def enrol(samples_dir: str | Path, notes: list[str] | None = None) -> Profile:
    """The profile of the design in `samples_dir`. What was skipped or is missing (a joker,
    a file name that is no card, a face whose index was not found, no back sample) is
    appended to `notes`, one line each naming the file."""
    notes = [] if notes is None else notes
    directory = Path(samples_dir)
    if not directory.is_dir():
        raise EnrolmentError(f"{directory}: no such samples directory")
    files = sorted(f for f in directory.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise EnrolmentError(f"{directory}: no sample images (.png, .jpg) in it")
    images = {}
    for file in files:
        kind = _kind_of(file)
        if kind in NOT_A_CARD:
            notes.append(f"{file.name}: a {kind}, not a card of the shoe: skipped (it reads "
                         "as unknown, which halts the table)")
        elif not kind:
            notes.append(f"{file.name}: not a card code (AS, 10H, TD...) nor back*, cut*, "
                         "empty*: skipped")
        else:
            images[file] = (kind, sample_window(read_image(file, keep_alpha=True)))
    surfaces = [(kind, *surface_model(image, kind))
                for kind, image in images.values() if kind != "face"]
    face_images = {file: image for file, (kind, image) in images.items() if kind == "face"}
    # First pass: indices whose rank and suit stand apart give the pip's usual height; the
    # second pass uses it to split the indices where a glyph touches its pip.
    first_pass = [measure(image) for image in face_images.values()]
    separate = [m for m in first_pass if m.index is not None]
    if not separate:
        raise EnrolmentError(f"{directory}: no card index found in any face sample")
    suit_height = float(np.median([m.index.suit.h for m in separate]))
    separate_suits = {
        split_code(file.stem)[1]: m.glyphs[0].suit_vector  # type: ignore[index]
        for file, m in zip(face_images, first_pass, strict=True)
        if m.index is not None
    }
    faces = []
    rednesses = []
    fractions: list[float] = []
    unread = []
    for file, image in face_images.items():
        measured = measure(image, suit_height, split_step=2, upright=True)
        if measured.index is None:
            unread.append(f"{file.name} ({measured.why_no_index})")
            continue
        rank, suit = split_code(file.stem)  # type: ignore[misc]
        chosen = _likeliest(measured, suit, separate_suits)
        faces.append((rank, suit, measured.glyphs[chosen]))
        if measured.pip_heights:
            fractions.append(measured.pip_heights[chosen] / suit_height)
        rednesses.append((suit, measured.redness))
    if unread:
        notes.append(f"index not found, sample skipped (that card reads as unknown): "
                     f"{', '.join(unread)}")
    codes = {split_code(file.stem) for file in face_images}
    _check_complete(directory, faces, unread, notes, codes)  # type: ignore[arg-type]
    for kind in ("back", "cut"):
        if not any(k == kind for k, _, _ in surfaces):
            notes.append(f"no {kind}*.png sample: a {kind} will read as unknown")
    if not any(kind == "empty" for kind, _, _ in surfaces):
        surfaces.append(("empty", *surface_model(_builtin_empty(), "empty")))
    faces.sort(key=lambda item: RANKS.index(item[0]))
    red = [redness for s, redness in rednesses if s in RED_SUITS]
    black = [redness for s, redness in rednesses if s not in RED_SUITS]
    red_threshold = float((np.mean(red) + np.mean(black)) / 2)
    if min(red) <= max(black):
        notes.append("red and black suits cannot be told apart by the ink's colour in these "
                     "samples: the colour check is off for this design")
        red_threshold = float("nan")
    return Profile(
        rank_vectors=np.stack([g.rank_vector for _, _, g in faces]).astype(np.float32),
        rank_labels=np.array([r for r, _, _ in faces]),
        rank_aspects=np.array([g.rank_aspect for _, _, g in faces], np.float32),
        rank_ratios=np.array([g.suit_rank_ratio for _, _, g in faces], np.float32),
        rank_offsets=np.array([g.rank_offset for _, _, g in faces], np.float32),
        suit_vectors=np.stack([g.suit_vector for _, _, g in faces]).astype(np.float32),
        suit_labels=np.array([s for _, s, _ in faces]),
        suit_height=suit_height,
        pip_fractions=_pip_fractions(fractions),
        red_threshold=red_threshold,
        surface_vectors=np.stack([v for _, v, _ in surfaces]).astype(np.float32),
        surface_tolerances=np.stack([t for _, _, t in surfaces]).astype(np.float32),
        surface_kinds=np.array([k for k, _, _ in surfaces]),
    )


def _check_complete(directory: Path, faces: list, unread: list[str], notes: list[str],
                    codes: set[tuple[str, str]]) -> None:
    """A rank or suit with no sample at all is an error (a forgotten card); one whose samples
    were all unreadable is a note (every such card reads as unknown, which halts the table:
    it is never guessed). Red and black must both be there."""
    absent_ranks = [r for r in RANKS if r not in {rank for rank, _ in codes}]
    if absent_ranks:
        raise EnrolmentError(f"{directory}: no sample of rank {', '.join(absent_ranks)}")
    absent_suits = [s for s in SUITS if s not in {suit for _, suit in codes}]
    if absent_suits:
        raise EnrolmentError(f"{directory}: no sample of suit {', '.join(absent_suits)}")
    missing_ranks = [r for r in RANKS if r not in {rank for rank, _, _ in faces}]
    missing_suits = [s for s in SUITS if s not in {suit for _, suit, _ in faces}]
    if missing_ranks:
        notes.append(f"no readable sample of rank {', '.join(missing_ranks)}: those cards "
                     "will read as unknown")
    if missing_suits:
        notes.append(f"no readable sample of suit {', '.join(missing_suits)}: those cards "
                     "will read as unknown")
    present = {suit for _, suit, _ in faces}
    if not present & RED_SUITS or not present - RED_SUITS:
        why = f" (index not found in {', '.join(unread)})" if unread else ""
        raise EnrolmentError(f"{directory}: no readable sample of a red and of a black suit"
                             f"{why}")
