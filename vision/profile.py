"""A deck profile: everything `Reader` needs to know about one deck design and cut card.

Stored as one NumPy .npz archive (no pickles) holding:
  version            int, PROFILE_VERSION
  rank_vectors       (N, 384) float32 glyph vectors of the rank, grouped by rank
  rank_labels        (N,) str, e.g. "10"
  rank_aspects       (N,) float32 width / height of the rank box
  suit_vectors       (M, 384) float32, suit_labels (M,) str
  rank_ratios        (N,) float32 height of the suit over the height of the rank
  rank_offsets       (N,) float32 rank centre right of the suit centre, in suit heights
  suit_height        float32, median height of the suit pip in window pixels
  pip_fractions      (2,) float32, range of the visible pip height (in suit heights) of the
                     samples whose rank glyph touches its pip, widened by 0.15; (0.4, 1.2)
                     when none does
  red_threshold      float32, ink redness between the enrolled black and red suits (NaN
                     when the samples did not separate them: no colour check)
  surface_vectors    (K, 7) float32 surface statistics of back / cut / empty samples
  surface_tolerances (K, 7) float32 how far each feature may stray from them: the fixed
                     tolerance, the colour features' learned from envelope views (enrol.py)
  surface_kinds      (K,) str, "back" | "cut" | "empty"
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.errors import ProfileError

PROFILE_VERSION = 2


@dataclass(frozen=True, eq=False)
class Profile:
    rank_vectors: np.ndarray
    rank_labels: np.ndarray
    rank_aspects: np.ndarray
    rank_ratios: np.ndarray
    rank_offsets: np.ndarray
    suit_vectors: np.ndarray
    suit_labels: np.ndarray
    suit_height: float
    pip_fractions: np.ndarray
    red_threshold: float
    surface_vectors: np.ndarray
    surface_tolerances: np.ndarray
    surface_kinds: np.ndarray


_SCALARS = ("suit_height", "red_threshold")
_ARRAYS = ("rank_vectors", "rank_labels", "rank_aspects", "rank_ratios", "rank_offsets",
           "suit_vectors", "suit_labels", "surface_vectors", "surface_tolerances", "surface_kinds",
           "pip_fractions")


def save_profile(profile: Profile, path: str | Path) -> Path:
    out = Path(path)
    with out.open("wb") as file:  # np.savez would append ".npz" to a bare path
        np.savez_compressed(
            file,
            version=np.int32(PROFILE_VERSION),
            suit_height=np.float32(profile.suit_height),
            red_threshold=np.float32(profile.red_threshold),
            **{name: getattr(profile, name) for name in _ARRAYS},
        )
    return out


def load_profile(path: str | Path) -> Profile:
    file = Path(path)
    if not file.is_file():
        raise ProfileError(f"{file}: no such profile (make one with `sabot enroll`)")
    try:
        with np.load(file, allow_pickle=False) as data:
            version = int(data["version"])
            if version != PROFILE_VERSION:
                raise ProfileError(f"{file}: profile version {version}, expected {PROFILE_VERSION}")
            arrays = {name: data[name] for name in _ARRAYS}
            scalars = {name: float(data[name]) for name in _SCALARS}
    except (OSError, ValueError, KeyError, zipfile.BadZipFile, EOFError) as error:
        if isinstance(error, ProfileError):
            raise
        raise ProfileError(f"{file}: not a Sabot profile ({error})") from None
    return Profile(**arrays, **scalars)
