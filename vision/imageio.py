"""Reading and writing image files, with errors that name the file.

The bytes go through Python's own file I/O and OpenCV only decodes or encodes them in
memory: OpenCV's imread and imwrite take a path as UTF-8 and crash the process (a
segmentation fault, no message) on a file name that is not, which any folder may hold.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.errors import ImageReadError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


def read_image(path: str | Path, *, keep_alpha: bool = False) -> np.ndarray:
    """The image at `path` as BGR uint8 (BGRA when `keep_alpha` and the file has alpha)."""
    file = Path(path)
    if file.is_dir():
        raise ImageReadError(f"{_name(file)}: a directory; give the image files in it")
    if not file.is_file():
        raise ImageReadError(f"{_name(file)}: no such image file")
    image = decode_file(file, cv2.IMREAD_UNCHANGED if keep_alpha else cv2.IMREAD_COLOR)
    if keep_alpha:
        if image.dtype != np.uint8:
            image = cv2.convertScaleAbs(image, alpha=255.0 / max(1.0, float(image.max())))
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.shape[2] == 4 and int(image[:, :, 3].min()) == 255:
            image = image[:, :, :3]
    return image


def decode_file(file: Path, flags: int) -> np.ndarray:
    """The image in `file`, decoded with `flags`; ImageReadError naming it otherwise."""
    try:
        data = np.fromfile(file, np.uint8)
    except OSError as error:
        raise ImageReadError(f"{_name(file)}: cannot read ({error.strerror})") from None
    try:
        image = cv2.imdecode(data, flags) if data.size else None
    except cv2.error as error:  # a header claiming more pixels than OpenCV will allocate
        raise ImageReadError(f"{_name(file)}: not a readable image ({error.err})") from None
    if image is None:
        raise ImageReadError(f"{_name(file)}: not a readable image")
    return image


def write_image(path: str | Path, image: np.ndarray) -> bool:
    """Write `image` to `path` in the format its suffix names; False if it cannot be."""
    file = Path(path)
    try:
        ok, data = cv2.imencode(file.suffix or ".png", image)
    except cv2.error:
        return False
    if not ok:
        return False
    try:
        data.tofile(file)
    except OSError:
        return False
    return True


def _name(file: Path) -> str:
    """`file` as text that can always be printed (undecodable bytes escaped)."""
    return str(file).encode("utf-8", "backslashreplace").decode("utf-8")
