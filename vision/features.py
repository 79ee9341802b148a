"""Feature vectors: glyph shapes for the index, surface statistics for backs and cut cards.

Glyph vectors are the ink map inside a box resized to a fixed grid, zero-mean and unit
length, so a dot product is the normalised cross-correlation; a turned card's rank glyph is
set upright first (`glyph_crop`). Surface statistics are global
(colour, brightness, texture), so they do not care where a back's pattern or a cut card's
edge falls in the window.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.index import INK_LEVEL, Box

GLYPH_W, GLYPH_H = 16, 24
MIN_ASPECT = 0.45
SURFACE_NAMES = ("b", "g", "r", "log_brightness", "texture", "saturation", "paper")
# How far apart two surfaces of one kind may be, per feature (see `surface_distance`).
SURFACE_TOLERANCE = np.array([0.06, 0.06, 0.06, 0.9, 0.6, 0.15, 0.15], np.float32)
# The empty window is near black: its colour is noise, only brightness and texture count.
EMPTY_TOLERANCE = np.array([1.0, 1.0, 1.0, 0.9, 1.6, 1.0, 1.0], np.float32)


# Below this turn (degrees) a glyph is taken as it is: its box would change by under a pixel
# (enrolment samples are upright).
DESKEW_MIN = 1.0


def glyph_crop(ink: np.ndarray, box: Box, angle: float = 0.0) -> np.ndarray:
    """The ink in `box`, set upright when the card is turned `angle` degrees and cut to the
    upright glyph's own bounding box. The box of a turned glyph holds its corners' overhang
    (a wide, flat-footed A gains rows and loses width), so without this the glyph would sit
    in the grid unlike its upright template. Only the box's own ink is turned (anything
    around it, the card's edge or a pip, stays out)."""
    crop = ink[box.y : box.bottom, box.x : box.right]
    if abs(angle) < DESKEW_MIN:
        return crop
    # Set upright, a corner may reach past the box by up to half its size times sin(angle).
    pad = math.ceil(max(box.w, box.h) / 2 * math.sin(math.radians(abs(angle)))) + 1
    turn = cv2.getRotationMatrix2D((box.w / 2, box.h / 2), -angle, 1.0)
    turn[:, 2] += pad  # into a frame `pad` pixels wider on every side
    upright = cv2.warpAffine(crop, turn, (box.w + 2 * pad, box.h + 2 * pad),
                             flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    x, y, w, h = cv2.boundingRect(cv2.compare(upright, INK_LEVEL, cv2.CMP_GT))
    if w < 2 or h < 2:
        return crop
    return upright[y : y + h, x : x + w]


def glyph_vector(crop: np.ndarray) -> np.ndarray:
    """The ink of `crop` (`glyph_crop`) on a fixed grid, zero-mean and unit length: a dot
    product of two such vectors is their normalised cross-correlation."""
    h, w = crop.shape
    # A very narrow glyph (J, 1) is padded to MIN_ASPECT first: stretched to the grid's
    # width from a few pixels, it would be mostly blur.
    pad_w = max(0, round(h * MIN_ASPECT) - w)
    if pad_w:
        crop = cv2.copyMakeBorder(crop, 0, 0, pad_w // 2, pad_w - pad_w // 2,
                                  cv2.BORDER_CONSTANT, value=0)
    grid = cv2.resize(crop, (GLYPH_W, GLYPH_H), interpolation=cv2.INTER_AREA).astype(np.float32)
    grid = grid.ravel()
    grid -= grid.sum() / grid.size
    norm = float(np.sqrt(grid @ grid))
    return grid / norm if norm > 1e-6 else grid


def aspect(crop: np.ndarray) -> float:
    return crop.shape[1] / crop.shape[0]


def surface_vector(small: np.ndarray) -> np.ndarray:
    """Chromaticity (3), log brightness, texture relative to brightness, mean saturation,
    and the share of paper (pale pixels near the brightest: a face is mostly paper), of
    the window at a quarter size (`thumbnail`)."""
    b, g, r, _ = cv2.mean(small)
    total = b + g + r + 1.0
    brightness = total / 3.0
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    saturation_map, value = hsv[:, :, 1], hsv[:, :, 2]
    laplacian = cv2.Laplacian(value, cv2.CV_16S)
    texture = cv2.norm(laplacian, cv2.NORM_L1) / laplacian.size / (brightness + 8.0)
    saturation = cv2.mean(saturation_map)[0] / 255.0
    _, brightest, _, _ = cv2.minMaxLoc(value)
    pale = cv2.compare(saturation_map, 64, cv2.CMP_LT)
    bright = cv2.compare(value, 0.7 * brightest, cv2.CMP_GT)
    paper = cv2.countNonZero(cv2.bitwise_and(pale, bright)) / pale.size
    return np.array(
        [b / total, g / total, r / total, np.log(brightness / 255.0 + 0.02),
         np.log(texture + 0.05), saturation, paper],
        np.float32,
    )


def surface_tolerances(kinds: np.ndarray) -> np.ndarray:
    return np.stack([EMPTY_TOLERANCE if k == "empty" else SURFACE_TOLERANCE for k in kinds])


def thumbnail(window: np.ndarray) -> np.ndarray:
    """The window at a quarter of its size, each pixel the mean of a 4 x 4 block (noise and
    JPEG blocks vanish). Two bilinear halvings are exactly that, and 4x cheaper than
    INTER_AREA on three channels."""
    h, w = window.shape[:2]
    half = cv2.resize(window, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(half, (w // 4, h // 4), interpolation=cv2.INTER_LINEAR)


def surface_distance(vectors: np.ndarray, tolerances: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """Distance of `vector` to each row of `vectors`: the worst feature in tolerance units."""
    return np.max(np.abs(vectors - vector) / tolerances, axis=1)


def ink_colour(window: np.ndarray, ink_mask: np.ndarray, paper_mask: np.ndarray) -> float:
    """Redness of the ink against the paper it is printed on: ~0 black, ~0.7 red."""
    ib, ig, ir, _ = cv2.mean(window, ink_mask)
    pb, pg, pr, _ = cv2.mean(window, paper_mask)
    return ir / (pr + 1.0) - max(ig / (pg + 1.0), ib / (pb + 1.0))
