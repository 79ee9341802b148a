"""Enrolment: a directory of sample windows -> a `Profile` for one deck design.

Samples are named by what they show: a card code (`AS.png`, `10h.jpg`, `TD.png`),
`back*.png`, `cut*.png`, optional `empty*.png`. Every rank and every suit must appear at
least once, and at least one back and one cut card.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.cards import RANKS, RED_SUITS, SUITS, split_code
from vision.errors import EnrolmentError
from vision.geometry import WINDOW_H, WINDOW_W
from vision.imageio import IMAGE_SUFFIXES, read_image
from vision.index import PIP_FRACTIONS
from vision.measure import Measurement, measure
from vision.profile import Profile

SURFACE_KINDS = ("back", "cut", "empty")


def _kind_of(file: Path) -> str:
    stem = file.stem.lower()
    for kind in SURFACE_KINDS:
        if stem.startswith(kind):
            return kind
    parts = split_code(file.stem)
    if parts is None:
        raise EnrolmentError(
            f"{file}: file name is not a card code (AS, 10H, TD...) nor back*, cut*, empty*"
        )
    return "face"


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


def enrol(samples_dir: str | Path) -> Profile:
    directory = Path(samples_dir)
    if not directory.is_dir():
        raise EnrolmentError(f"{directory}: no such samples directory")
    files = sorted(f for f in directory.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise EnrolmentError(f"{directory}: no sample images (.png, .jpg) in it")
    images = {file: (_kind_of(file), read_image(file)) for file in files}
    surfaces = [(kind, measure(image).surface) for kind, image in images.values() if kind != "face"]
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
    for file, image in face_images.items():
        measured = measure(image, suit_height, split_step=2, upright=True)
        if measured.index is None:
            raise EnrolmentError(f"{file}: cannot find the card index ({measured.why_no_index})")
        rank, suit = split_code(file.stem)  # type: ignore[misc]
        chosen = _likeliest(measured, suit, separate_suits)
        faces.append((rank, suit, measured.glyphs[chosen]))
        if measured.pip_heights:
            fractions.append(measured.pip_heights[chosen] / suit_height)
        rednesses.append((suit, measured.redness))
    _check_complete(directory, faces, surfaces)
    if not any(kind == "empty" for kind, _ in surfaces):
        surfaces.append(("empty", measure(_builtin_empty()).surface))
    faces.sort(key=lambda item: RANKS.index(item[0]))
    red = [redness for s, redness in rednesses if s in RED_SUITS]
    black = [redness for s, redness in rednesses if s not in RED_SUITS]
    if min(red) <= max(black):
        raise EnrolmentError(f"{directory}: red and black suits cannot be told apart by colour")
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
        red_threshold=float((np.mean(red) + np.mean(black)) / 2),
        surface_vectors=np.stack([v for _, v in surfaces]).astype(np.float32),
        surface_kinds=np.array([k for k, _ in surfaces]),
    )


def _check_complete(directory: Path, faces: list, surfaces: list) -> None:
    missing_ranks = [r for r in RANKS if r not in {rank for rank, _, _ in faces}]
    if missing_ranks:
        raise EnrolmentError(f"{directory}: no sample of rank {', '.join(missing_ranks)}")
    missing_suits = [s for s in SUITS if s not in {suit for _, suit, _ in faces}]
    if missing_suits:
        raise EnrolmentError(f"{directory}: no sample of suit {', '.join(missing_suits)}")
    for kind in ("back", "cut"):
        if not any(k == kind for k, _ in surfaces):
            raise EnrolmentError(f"{directory}: no {kind}*.png sample")
