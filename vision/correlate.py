"""Normalised correlation of a few fixed templates, as `cv2.matchTemplate(..., TM_CCOEFF_NORMED)`
gives it, at a third of the cost.

Registration matches six templates at three scales, then refines at five for each scale near
the best (`Registration.find`): 23 to 33 calls of `matchTemplate`, which on images this
small spends most of its time transforming the template and the image again for every call.
Here each template's spectrum is computed once per transform size and kept, an image's once
for all the templates it is matched with, and the normalisation (each place's mean and
spread) once per image from two box filters. Several images matched with the same templates
(the coarse search's three scales, a refinement's five) are stacked into one and
transformed once (`match_each`): on images this small, each transform's cost is mostly its
call's.
"""

from __future__ import annotations

import cv2
import numpy as np

# Below this spread (grey levels) a place is flat: its correlation is scaled down with its
# spread instead of noise being blown up to a full match.
FLAT = 1.0


class Correlator:
    """`templates`: (K, h, w) float32, all of one size."""

    def __init__(self, templates: list[np.ndarray] | np.ndarray) -> None:
        zero_mean = [np.float32(t) - np.float32(t).mean() for t in templates]
        self._templates = zero_mean
        self._norms = [max(float(np.linalg.norm(t)), 1e-6) for t in zero_mean]
        self.shape = zero_mean[0].shape
        self._spectra: dict[tuple[int, int, int], np.ndarray] = {}

    def spread(self, image: np.ndarray) -> np.ndarray:
        """The standard deviation of `image` over the template's size at every place a
        template fits in it wholly (indexed as the results of `match`)."""
        th, tw = self.shape
        sums, squares = cv2.integral2(image)
        n = th * tw
        total = sums[th:, tw:] - sums[:-th, tw:] - sums[th:, :-tw] + sums[:-th, :-tw]
        square = squares[th:, tw:] - squares[:-th, tw:] - squares[th:, :-tw] + squares[:-th, :-tw]
        return np.sqrt(np.maximum(square - total * total / n, 0.0) / n).astype(np.float32)

    def match(self, image: np.ndarray, which: list[int], spread: np.ndarray | None = None,
              floors: list[float] | None = None) -> list[np.ndarray]:
        """For each template in `which`, its normalised correlation at every place in
        `image` (float32) where it fits: rows h - th + 1, columns w - tw + 1. `spread`:
        this image's `spread`, if the caller has it already. `floors`: per template, the
        spread below which a place counts as flat (its correlation is scaled down by its
        spread against the floor; default FLAT)."""
        th, tw = self.shape
        h, w = image.shape
        size = (cv2.getOptimalDFTSize(h), cv2.getOptimalDFTSize(w))
        padded = cv2.copyMakeBorder(image, 0, size[0] - h, 0, size[1] - w,
                                    cv2.BORDER_CONSTANT, value=0)
        spectrum = cv2.dft(padded, nonzeroRows=h)
        spread = self.spread(image) if spread is None else spread
        rows, cols = spread.shape
        # The template is zero-mean, so the sum of its products with the raw image is the
        # sum with the image less its mean: only the spread is left to divide by.
        root = float(np.sqrt(th * tw))
        results = []
        for k in which:
            products = cv2.mulSpectrums(spectrum, self._template_spectrum(k, size), 0,
                                        conjB=True)
            sums = cv2.idft(products, flags=cv2.DFT_SCALE | cv2.DFT_REAL_OUTPUT,
                            nonzeroRows=rows)[:rows, :cols]
            floor = FLAT if floors is None else floors[k]
            # np.maximum, not cv2.max: OpenCV takes a 1 x 1 array beside a number for a
            # 4-element scalar (a result the size of the template came out 4 x 1).
            results.append(cv2.divide(sums, np.maximum(spread, np.float32(floor)),
                                      scale=1.0 / (root * self._norms[k])))
        return results

    def match_each(self, images: list[np.ndarray], which: list[int],
                   floors: list[float] | None = None) -> list[list[np.ndarray]]:
        """`match` of each of `images` (float32, each at least the templates' size), as one
        image: they are stacked one under the other, each padded with zeros on its right to
        the widest, and of the results only the places where a template lies wholly within
        one image are kept. Those see that image's pixels alone, as matched on its own (to
        the transform's rounding)."""
        th, tw = self.shape
        width = max(image.shape[1] for image in images)
        stacked = np.vstack([cv2.copyMakeBorder(image, 0, 0, 0, width - image.shape[1],
                                                cv2.BORDER_CONSTANT, value=0)
                             for image in images])
        results = self.match(stacked, which, floors=floors)
        each, top = [], 0
        for image in images:
            h, w = image.shape
            each.append([result[top : top + h - th + 1, : w - tw + 1] for result in results])
            top += h
        return each

    def _template_spectrum(self, k: int, size: tuple[int, int]) -> np.ndarray:
        key = (k, *size)
        if key not in self._spectra:
            t = self._templates[k]
            padded = cv2.copyMakeBorder(t, 0, size[0] - t.shape[0], 0, size[1] - t.shape[1],
                                        cv2.BORDER_CONSTANT, value=0)
            self._spectra[key] = cv2.dft(padded)
        return self._spectra[key]
