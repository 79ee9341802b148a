"""Synthetic camera windows: a card seen through the shoe's window, across the camera envelope.

One renderer serves the simulator, the benchmark and enrolment (which renders the views it
learns from). A `Source` is an image and where the reading window sits on it: a whole card
face of a deck design, or an enrolment sample that is already a window. `render` cuts the
window with a `Perturbation` applied: geometry (shift, scale, rotation, keystone, the card's
travel through the window), then optics and sensor (defocus, vertical motion blur, gain,
colour cast, a light gradient or hotspot, glare, washed-out exposure, faint ink, gamma,
noise, JPEG) over a surround that need not be dark (a table, the shoe's lip).

Draw direction: the card leaves the shoe with its top edge leading, which in the window is
*up* (decreasing y). `travel` is how far (window pixels) the card sits below its nominal
position: +WINDOW_H means not yet in view, 0 nominal, about -500 means gone past.
All pixel work is OpenCV/numpy; a 128x200 window costs a few hundred microseconds.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards import split_code
from vision.decks import Deck
from vision.geometry import WINDOW_H, WINDOW_SIZE, WINDOW_W, to_window, window_on_card
from vision.imageio import write_image

INTERIOR = (28, 30, 33)  # BGR of the shoe's dark interior
EMPTY = "EMPTY"
SURROUNDS = ("interior", "lit-lip", "felt", "wood", "grey", "mottled")


@dataclass(frozen=True)
class Perturbation:
    """One camera view. Geometry is in window pixels and degrees, about the window's centre."""

    dx: float = 0.0
    dy: float = 0.0
    angle: float = 0.0
    scale: float = 1.0
    keystone: tuple[float, float] = (0.0, 0.0)  # (top narrower, left shorter) fractions
    gain: float = 1.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per-channel gain (B, G, R)
    light: float = 0.0  # +-: gradient (light_dir) or hotspot amplitude, fraction of gain
    light_dir: float = 0.0  # radians
    hotspot: tuple[float, float] | None = None  # centre (fractions of the window): a hotspot
    gamma: float = 1.0
    defocus: float = 0.0  # Gaussian sigma, pixels
    blur: int = 0  # vertical motion blur length, pixels
    noise: float = 0.0  # Gaussian noise sigma, grey levels
    jpeg: int = 0  # JPEG quality, 0 for none
    glare: float = 0.0  # a specular highlight's peak (0..1 of full white)
    glare_at: tuple[float, float, float] = (0.5, 0.5, 0.2)  # centre x, y and radius (fractions)
    washout: float = 0.0  # blacks lifted toward white (over-exposure), 0..1; below 0, the
    # contrast stretched about white instead (a view clearer than a washed-out sample)
    faint: float = 0.0  # ink lightened toward the paper, 0..1
    surround: str = "interior"  # what the camera sees past the card's edge
    size: tuple[int, int] = WINDOW_SIZE  # output (w, h)


NOMINAL = Perturbation()
# The frames of a passage (simulator, tests) are drawn at this severity of the envelope: what
# today's reader reads card by card; `bench/vision.py` measures the whole envelope (1.0).
PASSAGE_SEVERITY = 0.3
_GAP = Perturbation(noise=3.0)  # the empty window between cards


def random_perturbation(rng: np.random.Generator, severity: float = 1.0, *,
                        surround: str = "interior") -> Perturbation:
    """A view drawn from the camera envelope (`severity` scales every range): scale
    0.8-1.25, shift 6% of the window, rotation 6 degrees, keystone 6%, gain 0.65-1.3, cast
    15% per channel, gradient or hotspot +-25%, gamma 0.6-1.6, defocus 1.2 px, motion blur
    7 px, noise sigma 8, JPEG 60-95; and what real cameras add: glare, washed-out exposure,
    faint ink. `surround` is the shoe's own (one installation shows one), not drawn here."""
    s = severity
    u = rng.uniform
    size = WINDOW_SIZE
    if rng.random() < 0.25:
        k = u(0.75, 1.5)
        size = (round(WINDOW_W * k), round(WINDOW_H * k))
    hotspot = (float(u(0.1, 0.9)), float(u(0.1, 0.9))) if rng.random() < 0.4 else None
    real = rng.random() < 0.5  # half the views also get a real camera's faults
    return Perturbation(
        dx=u(-1, 1) * 0.06 * WINDOW_W * s,
        dy=u(-1, 1) * 0.06 * WINDOW_H * s,
        angle=u(-6, 6) * s,
        scale=math.exp(u(math.log(0.8), math.log(1.25)) * s),
        keystone=(float(u(-0.06, 0.06) * s), float(u(-0.06, 0.06) * s)),
        gain=math.exp(u(math.log(0.65), math.log(1.3)) * s),
        tint=tuple(float(t) for t in 1.0 + u(-0.15, 0.15, 3) * s),
        light=float(u(-0.25, 0.25) * s),
        light_dir=float(u(0, 2 * np.pi)),
        hotspot=hotspot,
        gamma=math.exp(u(math.log(0.6), math.log(1.6)) * s),
        defocus=float(u(0, 1.2) * s),
        blur=int(rng.integers(0, round(7 * s) + 1)),
        noise=float(u(0, 8) * s),
        jpeg=int(rng.integers(60, 96)) if rng.random() < 0.7 else 0,
        glare=float(u(0.15, 0.5) * s) if real and rng.random() < 0.35 else 0.0,
        glare_at=(float(u(0, 1)), float(u(0, 1)), float(u(0.06, 0.2))),
        washout=float(u(0, 0.35) * s) if real and rng.random() < 0.4 else 0.0,
        faint=float(u(0, 0.4) * s) if real and rng.random() < 0.4 else 0.0,
        surround=surround,
        size=size,
    )


@dataclass(frozen=True, eq=False)  # hashed by identity: renderers cache per source
class Source:
    """An image to cut windows from (BGRA) and the 3x3 map from its pixels to the nominal
    window's pixels. `extend`: past the image's edge, repeat it (a sample that is already a
    window) instead of showing the surround (a whole card, transparent past its outline)."""

    image: np.ndarray
    to_window: np.ndarray
    extend: bool = False

    @property
    def travel_span(self) -> float:
        """Window pixels from the card's top edge to its bottom edge."""
        return float(self.image.shape[0] * self.to_window[1, 1])


def card_source(face: np.ndarray) -> Source:
    """A whole card face (BGR or BGRA, any size): the window is cut where `geometry` puts it."""
    if face.ndim == 2:
        face = cv2.cvtColor(face, cv2.COLOR_GRAY2BGRA)
    elif face.shape[2] == 3:
        face = cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)
    height, width = face.shape[:2]
    x0, y0, x1, _ = window_on_card(width, height)
    scale = WINDOW_W / (x1 - x0)
    matrix = np.array([[scale, 0, -x0 * scale], [0, scale, -y0 * scale], [0, 0, 1]], np.float64)
    return Source(np.ascontiguousarray(face), matrix)


def window_source(window: np.ndarray) -> Source:
    """An enrolment sample that is already a reading window (any size)."""
    image = cv2.cvtColor(to_window(window, averaged=True), cv2.COLOR_BGR2BGRA)
    return Source(image, np.eye(3), extend=True)


@cache
def _deck_source(deck: Deck, code: str) -> Source:
    return card_source(deck.image(code))


def view_matrix(p: Perturbation, travel: float) -> np.ndarray:
    """3x3 map from nominal window pixels to output pixels."""
    shift = np.array([[1, 0, 0], [0, 1, travel], [0, 0, 1]], np.float64)
    # The turn as cv2.getRotationMatrix2D makes it, written out: its call and the stacking
    # were a fifth of the simulator's rendering. The keystone part is the passage's own.
    angle = p.angle * (math.pi / 180)
    alpha, beta = math.cos(angle) * p.scale, math.sin(angle) * p.scale
    cx, cy = WINDOW_W / 2, WINDOW_H / 2
    turn = np.array([[alpha, beta, (1 - alpha) * cx - beta * cy + p.dx],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy + p.dy],
                     [0, 0, 1]], np.float64)
    return _lens(tuple(p.keystone), tuple(p.size)) @ turn @ shift  # a key, whatever held them


@lru_cache(maxsize=32)
def _lens(keystone: tuple[float, float], size: tuple[int, int]) -> np.ndarray:
    """The keystone and the scaling to the output's size of `view_matrix` (read-only)."""
    kx, ky = keystone
    w, h = WINDOW_W, WINDOW_H
    square = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    # Keystone: the top edge kx narrower than the bottom, the left edge ky shorter.
    skewed = np.float32([[kx * w / 2, ky * h / 2], [w - kx * w / 2, 0], [w, h],
                         [0, h - ky * h / 2]])
    warp = cv2.getPerspectiveTransform(square, skewed).astype(np.float64)
    to_output = np.diag([size[0] / WINDOW_W, size[1] / WINDOW_H, 1.0])
    lens = to_output @ warp
    lens.flags.writeable = False
    return lens


@lru_cache(maxsize=64)
def _surround(style: str, size: tuple[int, int]) -> np.ndarray:
    """What lies past the card's edge, BGR of `size`."""
    width, height = size
    rng = np.random.default_rng(SURROUNDS.index(style) if style in SURROUNDS else 0)
    base = np.empty((height, width, 3), np.float32)
    ys = np.linspace(0, 1, height, dtype=np.float32)[:, None, None]
    if style == "lit-lip":  # the shoe's lip catching the light at the top
        base[:] = np.array(INTERIOR, np.float32) + (1 - ys) ** 2 * 140
    elif style == "felt":
        base[:] = (40, 95, 35)
        base += rng.normal(0, 10, (height, width, 1)).astype(np.float32)
    elif style == "wood":
        streaks = np.sin(np.linspace(0, 40, width, dtype=np.float32))[None, :, None] * 18
        base[:] = np.array((45, 80, 125), np.float32) + streaks
    elif style == "grey":
        base[:] = 120
    elif style == "mottled":
        blobs = cv2.resize(rng.uniform(20, 150, (6, 4, 3)).astype(np.float32), size,
                           interpolation=cv2.INTER_CUBIC)
        base[:] = blobs
    else:
        base[:] = INTERIOR
    return np.clip(base, 0, 255).astype(np.uint8)


GAIN_ONE = 128  # gains are stored as uint8, GAIN_ONE meaning 1.0


def _gain(p: Perturbation) -> np.ndarray:
    return _gain_map(p.gain, p.tint, p.light, p.light_dir, p.hotspot, p.size)


@lru_cache(maxsize=32)  # one per card in flight; every card draws its own light
def _gain_map(gain: float, tint: tuple[float, float, float], light: float, light_dir: float,
              hotspot: tuple[float, float] | None, size: tuple[int, int]) -> np.ndarray:
    """Per-pixel, per-channel gain (x GAIN_ONE): exposure, colour cast and a gradient or a
    hotspot, as uint8 so shading is one saturating multiply."""
    width, height = size
    xs = np.arange(width, dtype=np.float32)[None, :] / width
    ys = np.arange(height, dtype=np.float32)[:, None] / height
    # Both fields are built from a row and a column (the hotspot's Gaussian is their
    # product): every view draws its own light, and the whole-window arithmetic in float
    # with three channels was a sixth of an enrolment.
    if hotspot is not None:
        cx, cy = hotspot
        field = np.exp(-(ys - cy) ** 2 / 0.18) * np.exp(-(xs - cx) ** 2 / 0.18)
    else:
        field = np.cos(light_dir) * (xs - 0.5) + np.sin(light_dir) * (ys - 0.5)
    level = np.float32(1.0) + np.float32(light) * field.astype(np.float32)
    # Each channel scaled, rounded and saturated to uint8 by OpenCV (the level is positive).
    return cv2.merge([cv2.convertScaleAbs(level, alpha=gain * t * GAIN_ONE) for t in tint])


@lru_cache(maxsize=32)
def _glare(glare: float, at: tuple[float, float, float], size: tuple[int, int]) -> np.ndarray:
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    cx, cy, radius = at
    spot = np.exp(-((xs / width - cx) ** 2 + (ys / height - cy) ** 2) / (2 * radius ** 2))
    return np.repeat((spot * glare * 255)[:, :, None], 3, axis=2).astype(np.uint8)


@lru_cache(maxsize=32)
def _tone(gamma: float, washout: float) -> np.ndarray:
    """Look-up table: blacks lifted by `washout`, then `gamma`. A negative `washout` does
    the opposite: the contrast stretched about white, the darkest levels crushed to black."""
    levels = np.arange(256, dtype=np.float32) / 255.0
    levels = np.clip(washout + (1 - washout) * levels, 0.0, 1.0)
    return np.clip(np.rint(255 * levels ** gamma), 0, 255).astype(np.uint8)


NOISE_SIGMA = 16.0  # of the noise bank, around 128


@cache
def _noise_bank() -> np.ndarray:
    """Gaussian noise (sigma NOISE_SIGMA around 128, uint8) to crop from: drawing fresh
    noise per frame costs ~1 ms. Big enough for 1.5 x the window, the largest output."""
    shape = (2 * WINDOW_H, 2 * WINDOW_W, 3)
    noise = np.random.default_rng(12345).normal(128.0, NOISE_SIGMA, shape)
    return np.clip(np.rint(noise), 0, 255).astype(np.uint8)


def _optics(image: np.ndarray, p: Perturbation, rng: np.random.Generator,
            *, flat: bool = False) -> np.ndarray:
    """Defocus, motion blur, light, glare, exposure, gamma, noise and JPEG on an image of
    `p.size`. A `flat` image (the empty window) skips what would not change it."""
    if not flat:
        if p.defocus > 0.3:
            image = cv2.GaussianBlur(image, (0, 0), p.defocus)
        if p.blur > 1:
            image = cv2.blur(image, (1, p.blur))
    out = cv2.multiply(image, _gain(p), scale=1.0 / GAIN_ONE)  # uint8, saturating
    if p.glare > 0:
        out = cv2.add(out, _glare(p.glare, p.glare_at, p.size))
    if p.gamma != 1.0 or p.washout != 0:
        out = cv2.LUT(out, _tone(round(p.gamma, 3), round(p.washout, 3)))
    if p.noise > 0:
        width, height = p.size
        y = rng.integers(0, 2 * WINDOW_H - height + 1)
        x = rng.integers(0, 2 * WINDOW_W - width + 1)
        noise = _noise_bank()[y : y + height, x : x + width]
        k = p.noise / NOISE_SIGMA
        out = cv2.addWeighted(out, 1.0, noise, k, -128.0 * k)
    if p.jpeg and not flat:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, p.jpeg])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def render(source: Source, p: Perturbation = NOMINAL, *, travel: float = 0.0,
           rng: np.random.Generator | None = None) -> np.ndarray:
    """The reading window (BGR, `p.size`) of `source` seen with `p`, the card `travel`
    window pixels below its nominal place."""
    rng = rng if rng is not None else np.random.default_rng(0)
    matrix = view_matrix(p, travel) @ source.to_window
    border = cv2.BORDER_REPLICATE if source.extend else cv2.BORDER_CONSTANT
    card = cv2.warpPerspective(source.image, matrix, p.size, flags=cv2.INTER_LINEAR,
                               borderMode=border, borderValue=(0, 0, 0, 0))
    # Contiguous copies, not views of the BGRA picture: OpenCV's bindings copy a strided
    # view at every call it is passed to, slowly (140 us of a 640 us view).
    bgr, alpha = cv2.cvtColor(card, cv2.COLOR_BGRA2BGR), cv2.extractChannel(card, 3)
    if p.faint > 0:  # ink printed faint: everything on the card pulled toward white
        bgr = cv2.addWeighted(bgr, 1.0 - p.faint, bgr, 0.0, 255.0 * p.faint)
    if not source.extend:
        surround = _surround(p.surround, p.size)
        if cv2.countNonZero(alpha) == 0:
            return _optics(surround, p, rng, flat=True)
        weight = cv2.merge([alpha, alpha, alpha])
        card_part = cv2.multiply(bgr, weight, scale=1 / 255)
        bgr = cv2.add(card_part, cv2.multiply(surround, cv2.bitwise_not(weight), scale=1 / 255))
    return _optics(bgr, p, rng)


def empty_window(p: Perturbation = NOMINAL, *, rng: np.random.Generator | None = None,
                 surround: np.ndarray | None = None) -> np.ndarray:
    """The window with no card in it: the surround (or an enrolled empty sample)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    base = _surround(p.surround, p.size) if surround is None else cv2.resize(surround, p.size)
    return _optics(base, p, rng, flat=True)


def render_window(
    deck: Deck,
    code: str,
    perturbation: Perturbation = NOMINAL,
    *,
    travel: float = 0.0,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """The reading window (BGR) showing `code` of `deck` (a card code, BACK, CUT, JOKER,
    BLANK or EMPTY)."""
    if code.upper() == EMPTY:
        return empty_window(perturbation, rng=rng)
    source = _deck_source(deck, code.upper())
    if not -source.travel_span - 20 < travel < WINDOW_H + 20:
        return empty_window(perturbation, rng=rng)
    return render(source, perturbation, travel=travel, rng=rng)


def _passage(
    rng: np.random.Generator, frames: int, severity: float, span: float
) -> Iterator[tuple[float, Perturbation, bool]]:
    """(travel, perturbation, card_present) of each frame of one card's passage. Frames are
    always of the window's size: the camera's crop is fixed, only the card moves."""
    base = replace(random_perturbation(rng, severity), size=WINDOW_SIZE)
    start, end = WINDOW_H + 10.0, -span - 10.0
    step = (start - end) / frames
    phase = rng.uniform(0, step)
    for k in range(frames):
        travel = start - phase - k * step
        yield travel, _jittered(base, rng), -span - 5 < travel < WINDOW_H + 5


def _jittered(base: Perturbation, rng: np.random.Generator) -> Perturbation:
    """One frame's look of a card moving through the window: `base`, a pixel or so across
    and half a degree off, as a hand's draw shakes it."""
    return replace(base, dx=base.dx + rng.uniform(-1, 1),
                   angle=base.angle + rng.uniform(-0.5, 0.5))


def _span(deck: Deck, code: str) -> float:
    return _deck_source(deck, code.upper()).travel_span if code.upper() != EMPTY else 0.0


def card_frames(
    deck: Deck,
    code: str,
    rng: np.random.Generator,
    *,
    frames: int = 24,
    severity: float = PASSAGE_SEVERITY,
) -> Iterator[tuple[np.ndarray, bool]]:
    """(window, card_present) for each camera frame while `code` slides through the window.

    The card travels from just below the window to just past it in `frames` even steps (with
    a random phase), one perturbation per card plus per-frame jitter and fresh noise.
    `card_present` is what the shoe's card sensor says: some of the card is in the window.
    """
    for travel, perturbation, present in _passage(rng, frames, severity, _span(deck, code)):
        yield render_window(deck, code, perturbation, travel=travel, rng=rng), present


def drawn_half_way(frames: list) -> list:
    """A passage's frames (of `card_frames`, `two_view_frames`) as the card is drawn half
    way into the window and pushed back into the shoe: its first half, then backwards."""
    half = frames[: len(frames) // 2]
    return half + half[::-1]


def pulled_a_little(
    deck: Deck,
    code: str,
    rng: np.random.Generator,
    *,
    reach: float,
    step: float,
    severity: float = PASSAGE_SEVERITY,
    surround: str = "interior",
) -> list[tuple[np.ndarray, bool]]:
    """(window, card_present) for each frame as `code` is drawn up into the window at `step`
    rows a frame until its travel is `reach` (as `render_window`'s: 0 puts the card in its
    place; about 40-60 shows the index just wholly in view), then pushed back down out of
    it: a dealer's shallow pull, seen over `surround`. One perturbation, with per-frame
    jitter as a passage's."""
    base = replace(random_perturbation(rng, severity, surround=surround), size=WINDOW_SIZE)
    start = WINDOW_H + 10.0
    up = np.arange(start, reach, -step)
    return [(render_window(deck, code, _jittered(base, rng), travel=float(travel), rng=rng),
             bool(travel < WINDOW_H + 5)) for travel in [*up, reach, *up[::-1]]]


def pushed_back_a_little(frames: list) -> list:
    """A passage's frames (of `card_frames`) as the card is drawn half way, pushed back most
    of the way with the sensor still covered, then drawn out in the same passage."""
    half = frames[: len(frames) // 2]
    return [(window, True) for window, _ in half + half[::-1][:-2] + frames[2:]]


def two_view_frames(
    deck: Deck,
    code: str,
    rng: np.random.Generator,
    *,
    face_up: bool = False,
    frames: int = 24,
    severity: float = PASSAGE_SEVERITY,
) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """(under, over, card_present) for a shoe with a second camera over the card: the under
    view sees the face of a face-down card and the back of a face-up one, the over view the
    other side. A CUT card looks the same from both sides."""
    under_code, over_code = (code, "BACK") if not face_up else ("BACK", code)
    if code.upper() == "CUT":
        under_code = over_code = code
    for travel, perturbation, present in _passage(rng, frames, severity, _span(deck, code)):
        under = render_window(deck, under_code, perturbation, travel=travel, rng=rng)
        over = render_window(deck, over_code, perturbation, travel=travel, rng=rng)
        yield under, over, present


def shoe_frames(
    deck: Deck,
    codes: Sequence[str],
    rng: np.random.Generator,
    *,
    frames_per_card: int = 24,
    gap_frames: int = 2,
    severity: float = PASSAGE_SEVERITY,
) -> Iterator[tuple[np.ndarray, bool]]:
    """(window, card_present) for a shoe dealt in the order `codes`, empty frames between."""
    for code in codes:
        yield from card_frames(deck, code, rng, frames=frames_per_card, severity=severity)
        for _ in range(gap_frames):
            yield render_window(deck, EMPTY, _GAP, rng=rng), False


def write_samples(deck: Deck, directory: str | Path, *, codes: Sequence[str] | None = None) -> Path:
    """An enrolment samples directory for `deck`: nominal windows named by card code, plus
    back.png, cut.png and empty.png, as an operator would capture them."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    wanted = list(codes) if codes is not None else [c for c in deck.cards if split_code(c)]
    for code in wanted:
        write_image(out / f"{code}.png", render_window(deck, code))
    for code in ("BACK", "CUT", EMPTY):
        write_image(out / f"{code.lower()}.png", render_window(deck, code))
    return out


def write_faces(deck: Deck, directory: str | Path) -> Path:
    """An enrolment samples directory of `deck`'s whole faces (BGRA PNGs named by card code,
    back.png, cut.png, joker*.png), as a design's artwork ships."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for code, face in deck.cards.items():
        name = code if split_code(code) else code.lower()
        if code == "BLANK":
            continue
        write_image(out / f"{name}.png", face)
    return out


def camera_frame(
    deck: Deck,
    code: str,
    *,
    size: tuple[int, int] = (640, 480),
    corner: tuple[float, float] = (180.0, 24.0),
    card_width: float = 260.0,
    angle: float = 0.0,
) -> np.ndarray:
    """A whole camera frame (BGR, `size` = (w, h)) showing `code` with its top-left corner at
    `corner`, `card_width` pixels wide, turned `angle` degrees, over the shoe's interior:
    what `sabot calibrate` is given."""
    face = deck.image(code.upper()).astype(np.float32)
    alpha = face[:, :, 3:4] / 255.0
    card = (face[:, :, :3] * alpha + np.array(INTERIOR, np.float32) * (1 - alpha))
    card = card.astype(np.uint8)
    scale = card_width / face.shape[1]
    matrix = cv2.getRotationMatrix2D((0, 0), -angle, scale)
    matrix[:, 2] += corner
    return cv2.warpAffine(card, matrix, size, flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=INTERIOR)
