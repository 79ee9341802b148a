"""Reading image files with errors that name the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageReadError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def read_image(path: str | Path, *, keep_alpha: bool = False) -> np.ndarray:
    """The image at `path` as BGR uint8 (BGRA when `keep_alpha` and the file has alpha)."""
    file = Path(path)
    if not file.is_file():
        raise ImageReadError(f"{file}: no such image file")
    image = cv2.imread(str(file), cv2.IMREAD_UNCHANGED if keep_alpha else cv2.IMREAD_COLOR)
    if image is None:
        raise ImageReadError(f"{file}: not a readable image")
    if keep_alpha:
        if image.dtype != np.uint8:
            image = cv2.convertScaleAbs(image, alpha=255.0 / max(1.0, float(image.max())))
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.shape[2] == 4 and int(image[:, :, 3].min()) == 255:
            image = image[:, :, :3]
    return image
