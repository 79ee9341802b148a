"""The reading window: what part of the card the camera's window shows, and at what size.

The window shows the top-left corner of the card face with the index upright, plus a
margin of shoe interior above and left of the card edge, so that a card sitting a few
percent off and turned a few degrees never pushes its index off the window's edge. In
card-width / card-height fractions:

    x from -0.04 to 0.36, y from -0.03 to 0.40

i.e. the top-left 36% x 40% of the face. Every image is read at WINDOW_W x WINDOW_H
(128 x 200 pixels, w x h); other sizes are resized first.
"""

from __future__ import annotations

import cv2
import numpy as np

WINDOW_W = 128
WINDOW_H = 200
WINDOW_SIZE = (WINDOW_W, WINDOW_H)  # OpenCV order: (width, height)

# The window's rectangle on the card face, in fractions of the card's width and height.
CARD_X0, CARD_X1 = -0.04, 0.36
CARD_Y0, CARD_Y1 = -0.03, 0.40
# The card's top edge at its nominal place, in window rows (about 14).
CARD_TOP = -CARD_Y0 / (CARD_Y1 - CARD_Y0) * WINDOW_H


# A window cut from the camera's frame is as big as the card is there (`sabot calibrate`),
# rarely the nominal size: every frame is resized. Shrunk by a fraction (1.1 to 1.9 times),
# OpenCV's area averaging took 0.3-0.8 ms here against 0.1 ms bilinear, more than a whole
# empty window's reading, on every frame; up to twice the nominal size bilinear still takes
# every source pixel into some output pixel, and differs from the area average by 0.2-0.4
# grey levels on average (a rendered gnome-berlin 7H). Larger than that it would skip
# pixels (aliasing on the index's strokes): area averaging, as before. Enrolment, which
# resizes each view once, keeps averaging (`averaged`): its views learned bilinear cost
# `bench.vision` 6-7 of the 60 back, cut and empty windows of the designs whose cut card
# is about the interior's colour, the same windows read either way.
AREA_BEYOND = 2.0


def to_window(image: np.ndarray, *, averaged: bool = False) -> np.ndarray:
    """`image` as a BGR uint8 array of the window's nominal size. `averaged`: shrunk by area
    averaging whatever the size (enrolment's views and samples; see AREA_BEYOND)."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.dtype != np.uint8:
        image = np.clip(image, 0, 255).astype(np.uint8)
    if image.shape[1] != WINDOW_W or image.shape[0] != WINDOW_H:
        if averaged:  # shrinking, told by the width as enrolment always has
            area = image.shape[1] > WINDOW_W
        else:
            area = (image.shape[1] > AREA_BEYOND * WINDOW_W
                    or image.shape[0] > AREA_BEYOND * WINDOW_H)
        interpolation = cv2.INTER_AREA if area else cv2.INTER_LINEAR
        image = cv2.resize(image, WINDOW_SIZE, interpolation=interpolation)
    # A window cropped from a camera frame is a view with the frame's row stride: OpenCV's
    # bindings would copy it, slowly, at every call it is passed to.
    return np.ascontiguousarray(image)


def crop_window(frame: np.ndarray, window: tuple[int, int, int, int] | list[int]) -> np.ndarray:
    """The reading window `[x, y, w, h]` (as `sabot calibrate` writes it) of a camera frame."""
    x, y, w, h = (int(v) for v in window)
    return frame[max(0, y) : y + h, max(0, x) : x + w]


# A card's height over its width when the window was defined (63 x 88 mm, a poker card).
STANDARD_ASPECT = 436 / 300


def window_on_card(width: float, height: float) -> tuple[float, float, float, float]:
    """(x0, y0, x1, y1), in pixels of a card face `width` wide, of the reading window. Both
    sides are measured in card widths (the camera sees a fixed area of a card of standard
    width), so a taller design shows less of its height, as it would in the shoe."""
    del height  # the window does not grow with a taller card
    unit_y = width * STANDARD_ASPECT
    return CARD_X0 * width, CARD_Y0 * unit_y, CARD_X1 * width, CARD_Y1 * unit_y
