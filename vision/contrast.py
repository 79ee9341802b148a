"""A camera's card samples printed faint or washed out, brought back to a card's contrast.

An operator's samples are windows a camera took (`sabot enroll` of photographs, or of a
recording), and a camera may take them faint: its exposure lifts the blacks, its light
fades the ink. Enrolment renders every learned and held-back view from the samples, the
camera envelope's own washout and faint ink on top: a deck photographed faint was learned
fainter still, and its held-back views, many past reading, set acceptance thresholds that
rejected most clear cards (`bench.vision --from photos`: gnome-tigullio photographed with a
washout of 0.23 and faint ink of 0.37 read 62% of its cards).

How faint a deck's samples are is measured where every design prints ink: in the index
zone, the darkest ink against the paper around it. Printed indices are dark: in the darkest
percent of their zone, the whole faces of every design tried are RESTORED_STRENGTH darker
than their paper or more (the median of a design's cards). A deck's card samples well below
that are stretched about their paper
white (the inverse of ink faded toward the paper) by one factor for all of them, as one
camera took them. Whole faces (the artwork, as clear as a card gets) and the back, cut card
and empty window (told apart by their colour, which is the shoe's as much as the print's)
are left as they are.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.register import ZONE
from vision.synth import Source, render

# The darkest percent of the index zone is at least this much darker than its paper, on the
# whole faces of the eleven shared designs (0.75-1.0; their median 0.81).
RESTORED_STRENGTH = 0.75
MOST_STRETCH = 4.0  # beyond it a sample's noise and JPEG blocks would be stretched into ink
# Less than this is within what the camera envelope's gain and gamma vary anyway: the samples
# are left as taken (the photographs of three shared designs, 0.68-0.73, read as well either
# way).
LEAST_STRETCH = 1.15
INSET = 4  # window pixels inside the zone's edges: the card's edge and the surround stay out


def ink_strength(window: np.ndarray) -> tuple[float, float]:
    """(strength, paper): how much darker than its paper the darkest percent of the index
    zone of a nominal window is (0 no ink .. 1 black; each pixel's darkest channel, so that
    red ink counts), and that paper's grey level (the zone's 90th percentile)."""
    x, y, w, h = ZONE
    zone = window[y + INSET : y + h - INSET, x + INSET : x + w - INSET]
    paper = float(np.percentile(cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY), 90))
    darkest = float(np.percentile(zone.min(axis=2), 1))
    return 1.0 - darkest / max(paper, 1.0), paper


def restore_contrast(classes: dict[str, list[Source]], cards: tuple[str, ...]) -> list[str]:
    """Stretch the window samples of `cards` in `classes` (in place) when their ink is
    fainter than a printed card's; a note for the operator when they were."""
    found = {(code, k): ink_strength(render(source))
             for code in cards for k, source in enumerate(classes[code]) if source.extend}
    if not found:
        return []
    strength = float(np.median([s for s, _ in found.values()]))
    stretch = min(MOST_STRETCH, RESTORED_STRENGTH / max(strength, 1e-3))
    if stretch < LEAST_STRETCH:
        return []
    for (code, k), (_, paper) in found.items():
        classes[code][k] = stretched(classes[code][k], paper, stretch)
    return [f"the cards' ink in their samples is faint (the darkest of an index {strength:.0%} "
            f"darker than the paper, where a printed card's is {RESTORED_STRENGTH:.0%} or "
            f"more): their contrast was raised {stretch:.1f} times to learn from; if many "
            "cards go unread, take them again with less exposure or light"]


def stretched(source: Source, paper: float, stretch: float) -> Source:
    """`source` with every level's distance below `paper` multiplied by `stretch`."""
    image = source.image.copy()
    levels = np.clip(paper - stretch * (paper - np.arange(256, dtype=np.float32)), 0, 255)
    image[:, :, :3] = cv2.LUT(image[:, :, :3], np.rint(levels).astype(np.uint8))
    return Source(image, source.to_window, source.extend)
