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
that are stretched about their paper white, channel by channel (the inverse of ink faded
toward the paper), by one factor for all of them, as one camera took them; window samples
of jokers by the same. Whole faces (the artwork, as clear as a card gets) are left as they
are.

The back, cut card and empty window are told apart by their colour, which is the shoe's as
much as the print's: not stretched about a paper they do not have. But taken washed out by
the camera that took the cards washed out (their darkest, the shoe's interior about the
card, lifted well above the CLEAR_DARKEST of a clear window), their blacks are brought down
by as much (`unwash_surfaces`): learned as taken, views of them were never as dark as the
shoe's interior and a dark cut card are, and most were read unknown (`bench.vision --from
photos`: gnome-tigullio photographed with a washout of 0.23, 21 of 60 backs, cut cards and
empty windows read; 37 brought back; every other design the same or better, none wrong).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import SURFACE_KINDS, SURFACE_NAMES
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
RETAKE = "if many cards go unread, take them again with less exposure or light"


def ink_strength(window: np.ndarray) -> float:
    """How much darker than its paper the darkest percent of the index zone of a nominal
    window is (0 no ink .. 1 black; each pixel's darkest channel, so that red ink counts;
    the paper is the zone's 90th percentile of grey)."""
    zone = _zone(window)
    paper = float(np.percentile(cv2.cvtColor(zone, cv2.COLOR_BGR2GRAY), 90))
    darkest = float(np.percentile(zone.min(axis=2), 1))
    return 1.0 - darkest / max(paper, 1.0)


def paper_colour(window: np.ndarray) -> np.ndarray:
    """The paper of a nominal window's index zone, per channel (B, G, R: each its 90th
    percentile): ink fades toward it channel by channel, under the camera's cast."""
    return np.percentile(_zone(window).reshape(-1, 3), 90, axis=0)


def _zone(window: np.ndarray) -> np.ndarray:
    x, y, w, h = ZONE
    return window[y + INSET : y + h - INSET, x + INSET : x + w - INSET]


def restore_contrast(classes: dict[str, list[Source]], cards: tuple[str, ...],
                     jokers: list[Source] | None = None, *, advise: bool = True) -> list[str]:
    """Stretch the window samples of `cards` in `classes` (in place) when their ink is
    fainter than a printed card's; a note for the operator when they were (`advise`: with
    the advice to take them again, unless a note before it gave it). Window samples of
    `jokers` (learned as no card of the shoe, beside the cards) by the same factor."""
    found = {(code, k): render(source)
             for code in cards for k, source in enumerate(classes[code]) if source.extend}
    if not found:
        return []
    strength = float(np.median([ink_strength(window) for window in found.values()]))
    stretch = min(MOST_STRETCH, RESTORED_STRENGTH / max(strength, 1e-3))
    if stretch < LEAST_STRETCH:
        return []
    for (code, k), window in found.items():
        classes[code][k] = stretched(classes[code][k], paper_colour(window), stretch)
    jokers = [] if jokers is None else jokers
    for k, source in enumerate(jokers):
        if source.extend:
            jokers[k] = stretched(source, paper_colour(render(source)), stretch)
    return [f"the cards' ink in their samples is faint (the darkest of an index {strength:.0%} "
            f"darker than the paper, where a printed card's is {RESTORED_STRENGTH:.0%} or "
            f"more): their contrast was raised {stretch:.1f} times to learn from"
            + (f"; {RETAKE}" if advise else "")]


def stretched(source: Source, paper: np.ndarray, stretch: float) -> Source:
    """`source` with each channel's distance below its `paper` level multiplied by
    `stretch` (the inverse of fading toward the paper, which the camera's cast tints: one
    grey level for all three channels stretched the cast with the ink)."""
    levels = np.arange(256, dtype=np.float32)[:, None]
    table = np.clip(paper[None, :] - stretch * (paper[None, :] - levels), 0, 255)
    return _through(source, np.rint(table).astype(np.uint8).reshape(256, 1, 3))


def _through(source: Source, lut: np.ndarray) -> Source:
    """`source` with its colour (not its outline) through the look-up table `lut` (256
    levels, one for every channel or one per channel)."""
    image = source.image.copy()
    image[:, :, :3] = cv2.LUT(np.ascontiguousarray(image[:, :, :3]), lut)
    return Source(image, source.to_window, source.extend)


# The darkest of a clear window of a printed card: the shoe's interior about the card (the
# renderer's, grey 26 in the darkest percent of each pixel's darkest channel; a design's black
# ink is darker still, so a washout judged from it is judged short, never long).
CLEAR_DARKEST = 26.0


def unwash_surfaces(classes: dict[str, list[Source]], darkest: float) -> list[str]:
    """Bring the window samples of the back, cut card and empty window in `classes` (in
    place) back from the washout that lifted the cards' samples' `darkest` from
    CLEAR_DARKEST: blacks lifted toward white by a share w are `w + (1 - w) x`, undone for
    every channel alike. A note for the operator when any was."""
    lift = (darkest - CLEAR_DARKEST) / (255.0 - CLEAR_DARKEST)
    if lift <= 0:
        return []
    levels = np.arange(256, dtype=np.float32)
    table = np.clip((levels - 255.0 * lift) / (1.0 - lift), 0, 255)
    lut = np.rint(table).astype(np.uint8)
    done = []
    for kind in SURFACE_KINDS:
        for k, source in enumerate(classes.get(kind, [])):
            if source.extend:  # a window a camera took, not a design's artwork
                classes[kind][k] = _through(source, lut)
                done.append(kind)
    if not done:
        return []
    named = ", ".join(dict.fromkeys(f"the {SURFACE_NAMES[kind]}" for kind in done))
    return [f"{named}: taken as washed out as the cards' samples (their darkest grey "
            f"{darkest:.0f}), learned brought back by as much"]
