"""Features of a window: its ink, gradient orientation histograms, surface statistics.

The ink map measures darkness against the local paper white, so light and exposure do not
move it; orientation histograms describe the shape of the ink in a picture of the index
zone; surface statistics are global (colour, brightness, texture, share of paper), so they
do not care where a back's pattern or a cut card's edge falls in the window.
"""


from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import WINDOW_H, WINDOW_W

INK_LEVEL = 90  # ink map value (0 paper .. 255 black) above which a pixel is ink
# Paper white is the max over 44 px at full size: wider than the index's pip, so the pip
# is ink to its centre (a smaller kernel would leave it hollow, unevenly from frame to frame).
_WHITE_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (11, 11))
_SMALL = (WINDOW_W // 4, WINDOW_H // 4)


def _local_white(gray: np.ndarray, small: np.ndarray | None) -> tuple[np.ndarray, float]:
    """The paper white near each pixel (a max filter over a quarter-size copy), and the floor
    below which there is no paper near."""
    if small is None:
        small = cv2.resize(gray, _SMALL, interpolation=cv2.INTER_AREA)
    white = cv2.dilate(small, _WHITE_KERNEL)
    _, brightest, _, _ = cv2.minMaxLoc(white)
    return white, max(45.0, 0.45 * brightest)


def ink_map(gray: np.ndarray, small: np.ndarray | None = None) -> np.ndarray:
    """Ink darkness (0 paper .. 255 black) relative to the local paper white, so that uneven
    light, glare and exposure do not move what counts as ink.

    Where the local white is far below the window's brightest, there is no paper near: that
    is the surround past the card's edge (the shoe's interior, a table), or a dark picture.
    It is no ink of the card's, and its edge against the card would look like a long stroke,
    so it reads as blank (0). `small`: the window in grey at a quarter size, if the caller
    has it already."""
    white, floor = _local_white(gray, small)
    no_paper = cv2.resize(cv2.compare(white, floor, cv2.CMP_LT), (WINDOW_W, WINDOW_H),
                          interpolation=cv2.INTER_NEAREST)
    white = cv2.resize(cv2.max(white, floor), (WINDOW_W, WINDOW_H),
                       interpolation=cv2.INTER_LINEAR)
    ink = cv2.subtract(255, cv2.divide(gray, white, scale=255))
    return cv2.subtract(ink, no_paper)  # no_paper is 255 where there is none: ink 0 there


# Dark strokes, as an index's are: at half size, narrower than the kernel (10 px at full
# size), darker than the window closed over them by a fifth of it and STROKE_FLOOR grey
# levels. Glare, a hotspot and a gradient are broad and leave none. Specks of noise are
# none either: a 3 x 3 median takes them out first, and leaves strokes 2 px wide and more
# (without it, cut cards seen with noise of sigma 12, past the envelope's 8, showed 1.8-2.8%
# of the window in specks, as much as faces taken for a cut card there show in strokes).
_STROKE_KERNEL = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
STROKE_DEPTH, STROKE_FLOOR = 0.2, 12
# The surround between the window's edge and the card's, where it is narrower than the
# kernel, is closed over as a stroke would be: a band this wide (half-size pixels) round
# the window is left out.
_STROKE_BORDER = 5
_HALF = (WINDOW_W // 2, WINDOW_H // 2)


def stroke_share(window: np.ndarray) -> float:
    """The share of the window (at nominal size, less a band round its edges) in dark
    strokes: a face's index has some wherever it shows, a plain cut card and the empty
    shoe next to none, whatever their light. The kind model's glance and the card model
    weigh colour and shape, and a face seen in a green cast can look like a green cut card
    to both (`bench.vision --severity 1.6`)."""
    gray = cv2.medianBlur(cv2.resize(cv2.cvtColor(window, cv2.COLOR_BGR2GRAY), _HALF,
                                     interpolation=cv2.INTER_AREA), 3)
    closed = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, _STROKE_KERNEL)
    depth = np.maximum(cv2.convertScaleAbs(closed, alpha=STROKE_DEPTH), np.uint8(STROKE_FLOOR))
    b = _STROKE_BORDER
    strokes = cv2.compare(cv2.subtract(closed, gray)[b:-b, b:-b], depth[b:-b, b:-b],
                          cv2.CMP_GT)
    return cv2.countNonZero(strokes) / strokes.size


ORIENTATIONS = 9  # unsigned gradient directions per cell
GRADIENT_FLOOR = 8.0  # grey levels per pixel: weaker gradients are noise, not strokes
_BINS_PER_RADIAN = np.float32(ORIENTATIONS / np.pi)
_ACROSS = np.float32([[-1, 0, 1]])  # the central difference across, as a filter
_MOST_CHANNELS = 128  # of an image OpenCV filters (OpenCV 5.1; 4.x allowed 512)


def orientation_histograms(picture: np.ndarray, cell: int) -> np.ndarray:
    """Gradient orientation histograms (as HOG has them) of `picture`, whose sides are
    multiples of `cell`: per cell, the gradient magnitude by direction (soft-binned into
    ORIENTATIONS unsigned bins), normalised by the energy of the 3 x 3 cells around it, square
    rooted. Ink that moves a pixel or two changes little; a stroke that is not there does.
    The normalisation never divides by less than a cell of GRADIENT_FLOOR would give, so
    blank paper stays blank instead of its noise being blown up to look like strokes.

    Of pictures (N, h, w), one row of histograms each (N, ...), in one pass: an accepted
    face's index zone is described again at six places a step away
    (`model.describe_nudged`), and each call has a cost of its own beside its pixels' (a
    zone picture's pixels are 4,032)."""
    image = picture.astype(np.float32)
    pictures = image.reshape(-1, *image.shape[-2:])
    n, h, w = pictures.shape
    if n > _MOST_CHANNELS:  # the normalisation takes the pictures as an image's channels
        return np.concatenate([orientation_histograms(pictures[k : k + _MOST_CHANNELS], cell)
                               for k in range(0, n, _MOST_CHANNELS)])
    # Central differences, zero at the borders. Across, by OpenCV over the pictures one under
    # the other, its default border (reflected about the edge pixel) giving the zero: NumPy
    # steps slowly along rows this short. Down, by NumPy within each picture.
    gx = cv2.filter2D(pictures.reshape(n * h, w), -1, _ACROSS)
    gy = np.zeros_like(pictures)
    np.subtract(pictures[:, 2:], pictures[:, :-2], out=gy[:, 1:-1])
    gy = gy.reshape(n * h, w)
    magnitude, angle = cv2.cartToPolar(gx, gy)
    # The direction in bins, unsigned (0 .. 2 pi folded onto 0 .. pi), less half a bin: each
    # pixel's magnitude is shared between the two bins whose centres it lies between, the
    # bins `low` and `low + 1`, counted in ORIENTATIONS + 2 slots per cell (from bin -1 to
    # bin ORIENTATIONS) and the two outer slots folded onto the bins they wrap round to
    # afterwards: no masks over the pixels (in float32 throughout).
    position = angle.ravel()  # cv2's own array: worked on in place
    position *= _BINS_PER_RADIAN
    position -= np.float32(ORIENTATIONS) * (position >= ORIENTATIONS)
    position -= np.float32(0.5)
    low = np.floor(position)
    slot = _cell_slots(n, h, w, cell) + low.astype(np.intp)
    position -= low  # now the upper bin's share
    m = magnitude.ravel()
    upper = position
    upper *= m
    m -= upper  # the lower bin's
    rows, cols = h // cell, w // cell
    slots = ORIENTATIONS + 2
    # Summed by NumPy's unbuffered scatter, in float32: bincount's, in float64, took half
    # as long again (36 pixels to a cell: float32's rounding is a millionth of a sum).
    counted = np.zeros(n * rows * cols * slots, np.float32)
    np.add.at(counted, slot, m)
    slot += 1
    np.add.at(counted, slot, upper)
    counted = counted.reshape(n, rows, cols, slots)
    hist = counted[..., 1:-1].copy()
    hist[..., -1] += counted[..., 0]
    hist[..., 0] += counted[..., -1]
    # Each cell's energy summed over the 3 x 3 cells around it, the pictures as the channels
    # of one image (so that none reaches into the next).
    energy = np.ascontiguousarray((hist * hist).sum(axis=3).transpose(1, 2, 0))
    around = cv2.boxFilter(energy, -1, (3, 3), normalize=False, borderType=cv2.BORDER_REFLECT)
    around = around.reshape(rows, cols, n).transpose(2, 0, 1)
    floor = 9.0 * (cell * cell * GRADIENT_FLOOR) ** 2
    hist /= np.sqrt(around + np.float32(floor))[..., None]
    shapes = np.sqrt(np.minimum(hist, 0.4)).reshape(n, -1)
    return shapes[0] if picture.ndim == 2 else shapes


_CELL_SLOTS: dict[tuple[int, int, int, int], np.ndarray] = {}


def _cell_slots(n: int, h: int, w: int, cell: int) -> np.ndarray:
    """For each pixel of N pictures h x w, the first histogram slot of its cell, plus one
    (so that a pixel's `low` bin, -1 .. ORIENTATIONS - 1, lands on slots 0 .. ORIENTATIONS)."""
    key = (n, h, w, cell)
    if key not in _CELL_SLOTS:
        ys, xs = np.mgrid[0:h, 0:w]
        cells = ((ys // cell) * (w // cell) + xs // cell).ravel()
        per_picture = (h // cell) * (w // cell)
        every = (np.arange(n)[:, None] * per_picture + cells[None, :]).ravel()
        _CELL_SLOTS[key] = every * (ORIENTATIONS + 2) + 1
    return _CELL_SLOTS[key]


def surface_vector(small: np.ndarray, hsv: np.ndarray | None = None) -> np.ndarray:
    """Chromaticity (3), log brightness, texture relative to brightness, mean saturation,
    and the share of paper (pale pixels near the brightest: a face is mostly paper), of
    the window at a quarter size (`thumbnail`; `hsv`: it in HSV, if the caller has it)."""
    b, g, r, _ = cv2.mean(small)
    total = b + g + r + 1.0
    brightness = total / 3.0
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV) if hsv is None else hsv
    # Planes of their own: OpenCV's bindings copy a strided view at every call, slowly.
    _, saturation_map, value = cv2.split(hsv)
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


def thumbnail(window: np.ndarray) -> np.ndarray:
    """The window at a quarter of its size, each pixel the mean of a 4 x 4 block (noise and
    JPEG blocks vanish). Two bilinear halvings are exactly that, and 4x cheaper than
    INTER_AREA on three channels."""
    h, w = window.shape[:2]
    half = cv2.resize(window, (w // 2, h // 2), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(half, (w // 4, h // 4), interpolation=cv2.INTER_LINEAR)


# The hue histogram is taken from the window's right and lower part only (in thumbnail
# pixels: right of its first quarter, below its first fifth). A card in place shows the
# surround left of its edge and above its top, the shoe's and not the design's: over a
# colourful surround (a table, the mottled lip of `synth.SURROUNDS`) the whole window's hues
# had the card model read 5 of 104 gnome-rheinland faces as another (9S, 9C as 9D), and 1-2
# of gnome-berlin's; with its right and lower part, none. At nominal that part shows only
# the card; at the envelope's corners (scale 0.8, shifted 6% down and right) a strip of the
# surround a few pixels wide is still in it.
HUE_PART = (4, 5)  # (leave out 1/4 of the width, 1/5 of the height)
# The window's top-left corner (thumbnail pixels, 8 x 8 window pixels) shows the surround
# above and left of a card in place, whatever the card. Its colour against the card's part
# (HUE_PART) says whether the window shows one surface or two: the empty shoe is the same
# surround everywhere, a cut card about the interior's colour (gnome-dondorf's dark brown)
# still differs from it in hue, where the whole window's colour, moved by the camera's cast
# and a washed-out exposure, does not. Not where a card seen large and shifted up and left
# covers the corner too: there the other numbers decide, as before.
CORNER = 2
CONTRAST_FLOOR = 4.0  # grey levels added to both sides: noise on black is no contrast


def corner_contrast(small: np.ndarray) -> np.ndarray:
    """Per colour channel, the log ratio of the thumbnail's top-left corner (CORNER) to its
    right and lower part (HUE_PART): ~0 for one surface, the card's colour against the
    surround's for a card in place."""
    h, w = small.shape[:2]
    corner = np.float32(cv2.mean(small[:CORNER, :CORNER])[:3])
    body = np.float32(cv2.mean(small[h // HUE_PART[1]:, w // HUE_PART[0]:])[:3])
    return np.log((corner + CONTRAST_FLOOR) / (body + CONTRAST_FLOOR))


# A card in place shows its top and left edges against the surround, straight across the
# window's top part and straight down its left part (its corner is where the window was
# calibrated to be); the empty shoe shows none, whatever its light. Where the whole window's
# colour hardly tells a dark cut card from the interior, its edges still do: of 300 fresh
# views each, the cut card of four shared designs (gnome-dondorf's dark brown among them)
# stepped by 0.17-0.67 at the median, the empty window by 0.13 at the most. A card seen
# large and shifted up and left has its edges out of view, and shows none (5% of those
# views). Used to keep the empty window from being read with a card's edge in view
# (`reader.Reader._past_edges`); in the glance, as two more numbers, they changed no
# reading of gnome-dondorf's or gnome-tigullio's.
EDGE_TOP = 14  # thumbnail rows searched for the top edge (the top 56 window pixels)
EDGE_LEFT = 10  # thumbnail columns searched for the left edge (the left 40)
EDGE_GROUPS = 3, 4  # lengths of either edge looked at apart: a straight edge steps in all
EDGE_FLOOR = 8.0  # grey levels added before the log: noise on black is no edge
EDGE_SLACK = 2  # places (thumbnail rows or columns) an edge may move from one length to the next
_SLACK = np.ones((2 * EDGE_SLACK + 1, 1), np.uint8)
# Grey level -> log light (a step in it is a contrast, whatever the light): `cv2.LUT`'s table.
LOG_LIGHT = np.log(np.arange(256, dtype=np.float32) + np.float32(EDGE_FLOOR))


def card_edges(small: np.ndarray) -> np.ndarray:
    """(top, left): the step a card's top edge and its left edge make in the thumbnail
    `small` (log contrast, ~0 for one surface). Each edge is looked at in EDGE_GROUPS
    lengths along it (the top edge right of the left one's columns, the left edge below the
    top one's rows), each a mean profile across it, and its step is the greatest one that
    every length makes (`_straight_step`): a straight edge steps in all, a glare blob or a
    hotspot in some, a gradient by little."""
    h, w = small.shape[:2]
    across, down = EDGE_GROUPS
    width, height = (w - EDGE_LEFT) // across, (h - EDGE_TOP) // down
    light = cv2.LUT(small, LOG_LIGHT)
    # Each length's mean by area averaging to one pixel across it (a whole factor: exact).
    top = cv2.resize(light[:EDGE_TOP, w - across * width :], (across, EDGE_TOP),
                     interpolation=cv2.INTER_AREA)
    left = cv2.resize(light[h - down * height :, :EDGE_LEFT], (EDGE_LEFT, down),
                      interpolation=cv2.INTER_AREA)
    return np.array([_straight_step(top), _straight_step(left.transpose(1, 0, 2))],
                    np.float32)


def _straight_step(profiles: np.ndarray) -> float:
    """The greatest step (either way, any channel, two places apart) that every length
    along an edge makes within EDGE_SLACK places of one place across it: `profiles`
    (places, lengths, channels), each length's mean across the edge. A card turned 6
    degrees moves its edge by about a place from one length to the next."""
    steps = profiles[2:] - profiles[:-2]
    places, lengths = steps.shape[:2]
    flat = steps.reshape(places, -1)
    up = cv2.dilate(flat, _SLACK).reshape(places, lengths, -1).min(axis=1).max()
    down = cv2.erode(flat, _SLACK).reshape(places, lengths, -1).max(axis=1).min()
    return max(float(up), -float(down))


def ink_colour(window: np.ndarray, ink_mask: np.ndarray, paper_mask: np.ndarray) -> float:
    """Redness of the ink against the paper it is printed on: ~0 black, ~0.7 red."""
    ib, ig, ir, _ = cv2.mean(window, ink_mask)
    pb, pg, pr, _ = cv2.mean(window, paper_mask)
    return ir / (pr + 1.0) - max(ig / (pg + 1.0), ib / (pb + 1.0))


# A card in place shows the shoe's surround above its top edge, across the window's top row;
# a card's body passing shows paper there somewhere (its picture or a pip may cover the rest).
PAPER_AT_TOP = 0.1  # share of the thumbnail's top row, right half, that must be paper
PAPER_FLOOR = 45  # grey level: darker is never paper, however dim the frame


def card_above_window(small: np.ndarray, gray: np.ndarray | None = None) -> bool:
    """Whether the card reaches above the window (`small`: its `thumbnail`; `gray`: that in
    grey, if the caller has it): some of the top row of its right half is paper
    (`paper_right`). A card's index is printed just below its top edge, so a card whose
    edge is in view, the surround above it, has not passed its index out of view."""
    _, paper = paper_right(small, gray)
    return float(np.mean(paper[0])) >= PAPER_AT_TOP


def paper_right(small: np.ndarray, gray: np.ndarray | None = None) -> tuple[np.ndarray,
                                                                             np.ndarray]:
    """The right half of the thumbnail `small` in grey, where no index is printed, and
    where it is paper: brighter than half the thumbnail's brightest (PAPER_FLOOR at
    least). `gray`: the thumbnail in grey, if the caller has it."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if gray is None else gray
    level = max(PAPER_FLOOR, 0.5 * float(gray.max()))
    right = gray[:, gray.shape[1] // 2 :]
    return right, right > level
