"""`features.orientation_histograms`: the description every zone picture and glance gets,
one picture at a time or many in one pass (the reader's nudged zones)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.features import GRADIENT_FLOOR, ORIENTATIONS, orientation_histograms


def _by_the_book(picture: np.ndarray, cell: int) -> np.ndarray:
    """The histograms as their docstring says, pixel by pixel: Sobel gradients, each
    pixel's magnitude shared between the two unsigned bins whose centres its direction
    lies between, each cell divided by the root of the energy of the 3 x 3 cells around it
    (mirrored at the borders) plus the floor, capped at 0.4, square rooted."""
    image = picture.astype(np.float32)
    gx = cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=1)
    gy = cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=1)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    h, w = image.shape
    hist = np.zeros((h // cell, w // cell, ORIENTATIONS), np.float64)
    where = np.float32(ORIENTATIONS / np.pi) * angle
    where = np.where(where >= ORIENTATIONS, where - ORIENTATIONS, where) - 0.5
    low = np.floor(where)
    share = where - low
    ys, xs = np.mgrid[0:h, 0:w]
    cells = (ys // cell, xs // cell)
    np.add.at(hist, (*cells, low.astype(int) % ORIENTATIONS), magnitude * (1 - share))
    np.add.at(hist, (*cells, (low.astype(int) + 1) % ORIENTATIONS), magnitude * share)
    hist = hist.astype(np.float32)
    energy = cv2.boxFilter((hist * hist).sum(axis=2), -1, (3, 3), normalize=False,
                           borderType=cv2.BORDER_REFLECT)
    hist /= np.sqrt(energy + 9.0 * (cell * cell * GRADIENT_FLOOR) ** 2)[:, :, None]
    return np.sqrt(np.minimum(hist, 0.4)).ravel()


def _pictures(seed: int, count: int, shape: tuple[int, int]) -> np.ndarray:
    """Strokes on paper, blurred a little, and one blank sheet among them."""
    rng = np.random.default_rng(seed)
    pictures = np.zeros((count, *shape), np.uint8)
    for picture in pictures[1:]:
        for _ in range(6):
            a, b = rng.integers(0, shape[::-1], size=(2, 2))
            cv2.line(picture, tuple(map(int, a)), tuple(map(int, b)), int(rng.integers(90, 256)),
                     int(rng.integers(1, 5)))
        picture[:] = cv2.GaussianBlur(picture, (0, 0), float(rng.uniform(0.3, 1.5)))
    return pictures


@pytest.mark.parametrize(("shape", "cell"), [((84, 48), 6), ((48, 32), 8)])
def test_each_picture_is_described_as_the_book_says(shape, cell):
    """The zone picture (84 x 48, 6 px cells) and the glance's thumbnail (48 x 32, 8 px)."""
    for picture in _pictures(3, 8, shape):
        assert np.allclose(orientation_histograms(picture, cell), _by_the_book(picture, cell),
                           atol=1e-5)


def test_many_pictures_in_one_pass_are_each_described_as_alone():
    """The reader describes its nudged zones in one call: no picture's border reaches into
    the next one's histograms or normalisation."""
    pictures = _pictures(11, 7, (84, 48))
    together = orientation_histograms(pictures, 6)
    assert together.shape == (7, 14 * 8 * ORIENTATIONS)
    for picture, row in zip(pictures, together, strict=True):
        assert np.allclose(row, orientation_histograms(picture, 6), atol=1e-6)
    assert not together[0].any()  # the blank sheet: below the gradient floor everywhere


def test_more_pictures_than_an_image_has_channels_are_described_in_turn():
    """The normalisation filters the pictures as one image's channels, of which OpenCV takes
    at most 128: a longer stack is described 128 at a time, each picture as alone."""
    pictures = np.concatenate([_pictures(5, 7, (84, 48))] * 19)  # 133
    together = orientation_histograms(pictures, 6)
    assert together.shape == (133, 14 * 8 * ORIENTATIONS)
    assert np.allclose(together[128:], together[np.arange(128, 133) % 7], atol=1e-6)
    assert np.allclose(together[132], orientation_histograms(pictures[132], 6), atol=1e-6)
