"""Reading image files with errors that name the file."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageReadError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def read_image(path: str | Path) -> np.ndarray:
    """The image at `path` as BGR uint8."""
    file = Path(path)
    if not file.is_file():
        raise ImageReadError(f"{file}: no such image file")
    image = cv2.imread(str(file), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageReadError(f"{file}: not a readable image")
    return image
