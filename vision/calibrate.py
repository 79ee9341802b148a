"""Find the reading window in a full camera frame, and write it to the service's config.

The installer puts a card face at its reading position (index corner toward the camera) and
grabs one frame. The card is the largest bright region against the dark shoe interior; its
top-left corner and its width place the window exactly as `vision.geometry` defines it
(CARD_X0..CARD_X1 x CARD_Y0..CARD_Y1 of the card). If the card is not wholly in view its
width cannot be measured, and must be given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.errors import CalibrationError
from vision.geometry import CARD_X0, CARD_X1, CARD_Y0, CARD_Y1

CARD_ASPECT = 436 / 300  # height / width assumed when only the width is known
MIN_CARD_FRACTION = 0.02  # of the frame's area
# A card shows against the shoe's dark interior: a region brighter than the rest covering
# nearly the whole frame is no card but the frame itself (a blank or overexposed frame, a
# card held so near it fills the view), and a frame this flat shows nothing at all.
MAX_CARD_FRACTION = 0.9
MIN_SPREAD = 6.0  # grey levels


@dataclass(frozen=True)
class Calibration:
    window: tuple[int, int, int, int]  # x, y, w, h in frame pixels
    card: np.ndarray  # 4x2 float corners of the card (or of what is seen of it)
    corner: tuple[float, float]  # the card's top-left (index) corner
    angle: float  # degrees the card is turned from upright
    clipped: bool  # the window ran past the frame's edge and was cut


def _card_outline(gray: np.ndarray) -> np.ndarray:
    if float(gray.std()) < MIN_SPREAD:
        raise CalibrationError("the frame is all one shade: no card against the shoe's "
                               "interior in it; is a card face in front of the camera, and "
                               "the light on?")
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    _, bright = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    # Close the index and pips so the card is one solid region.
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25))
    solid = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, kernel)
    outlines, _ = cv2.findContours(solid, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not outlines:
        raise CalibrationError("no bright card region in the frame")
    outline = max(outlines, key=cv2.contourArea)
    if cv2.contourArea(outline) < MIN_CARD_FRACTION * gray.size:
        raise CalibrationError("the brightest region is too small to be a card; is a card "
                               "face in front of the camera, and the light on?")
    if cv2.contourArea(outline) > MAX_CARD_FRACTION * gray.size:
        raise CalibrationError("the frame is bright nearly everywhere: no card against the "
                               "shoe's dark interior in it (a card this near would fill the "
                               "view); show one card face at its reading position")
    return outline


# A card wholly in view, upright: its height over its width (poker cards 1.40, bridge 1.56,
# with room for the camera's perspective), and the share of its outline's rectangle it fills
# (rounded corners take little). A glare spot or a lit strip of the shoe, the brightest
# thing in a frame with no card, gave a window and no word of doubt (an engineer's trial).
CARD_SHAPE = (1.2, 1.85)
CARD_FILL = 0.9


def _check_card_shape(outline: np.ndarray, width: float, height: float) -> None:
    """Refuse a bright region wholly in view that is not shaped like an upright card."""
    ratio = height / max(width, 1.0)
    fill = cv2.contourArea(outline) / max(width * height, 1.0)
    if not CARD_SHAPE[0] <= ratio <= CARD_SHAPE[1] or fill < CARD_FILL:
        shape = ("turned on its side" if 1 / CARD_SHAPE[1] <= ratio <= 1 / CARD_SHAPE[0]
                 and fill >= CARD_FILL else "not a card's shape")
        raise CalibrationError(
            f"the brightest region is {width:.0f} x {height:.0f} pixels, {ratio:.2f} times as "
            f"tall as wide and filling {fill:.0%} of its outline: {shape} (an upright card "
            f"is {CARD_SHAPE[0]}-{CARD_SHAPE[1]} times as tall as wide); is a card face at "
            "its reading position, upright, or is this a glare or the shoe's lit edge?")


def find_window(frame: np.ndarray, card_width: float | None = None) -> Calibration:
    """The reading window for the card shown in `frame` (BGR or grey)."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    outline = _card_outline(gray)
    box = cv2.boxPoints(cv2.minAreaRect(outline))
    corner = box[np.argmin(box.sum(axis=1))]  # top-left: smallest x + y
    others = box[np.argsort(np.linalg.norm(box - corner, axis=1))[1:3]]
    # Of the corner's two neighbours, the one more to the right lies along the top edge.
    top, side = sorted(others, key=lambda p: p[0] - corner[0], reverse=True)
    angle = math.degrees(math.atan2(top[1] - corner[1], top[0] - corner[0]))
    x, y, w, h = cv2.boundingRect(outline)
    frame_h, frame_w = gray.shape
    touches = x <= 1 or y <= 1 or x + w >= frame_w - 1 or y + h >= frame_h - 1
    if card_width is None:
        if touches:
            raise CalibrationError("the card runs off the frame, so its width cannot be "
                                   "measured: show a whole card, or give --card-width")
        card_width = float(np.linalg.norm(top - corner))
        card_height = float(np.linalg.norm(side - corner))
        _check_card_shape(outline, card_width, card_height)
    else:
        card_height = card_width * CARD_ASPECT
    x0 = corner[0] + CARD_X0 * card_width
    y0 = corner[1] + CARD_Y0 * card_height
    x1 = corner[0] + CARD_X1 * card_width
    y1 = corner[1] + CARD_Y1 * card_height
    left, top_y = max(0, round(x0)), max(0, round(y0))
    right, bottom = min(frame_w, round(x1)), min(frame_h, round(y1))
    clipped = (left, top_y, right, bottom) != (round(x0), round(y0), round(x1), round(y1))
    if x1 - x0 > frame_w or y1 - y0 > frame_h:
        # Cut to the frame, such a window would show the reader another part of the card
        # than the one it learned: a wrong --card-width, not a camera a little off centre.
        raise CalibrationError(f"the window would be {x1 - x0:.0f} x {y1 - y0:.0f} pixels, "
                               f"larger than the {frame_w} x {frame_h} frame: is --card-width "
                               f"{card_width:g} right?")
    if right - left < 16 or bottom - top_y < 16:
        raise CalibrationError("the window would be under 16 pixels: is the camera that far?")
    window = (left, top_y, right - left, bottom - top_y)
    return Calibration(window, box, (float(corner[0]), float(corner[1])), angle, clipped)


def annotate(frame: np.ndarray, calibration: Calibration) -> np.ndarray:
    """The frame with the card outline (green), its index corner (red) and the window (yellow)."""
    image = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    cv2.polylines(image, [calibration.card.astype(np.int32)], True, (0, 200, 0), 2)
    cx, cy = (round(v) for v in calibration.corner)
    cv2.circle(image, (cx, cy), 6, (0, 0, 255), -1)
    x, y, w, h = calibration.window
    cv2.rectangle(image, (x, y), (x + w - 1, y + h - 1), (0, 230, 255), 2)
    label = f"window {x},{y} {w}x{h}  card turned {calibration.angle:+.1f} deg"
    cv2.putText(image, label, (8, image.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                (0, 230, 255), 1, cv2.LINE_AA)
    return image
