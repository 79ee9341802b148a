"""Synthetic camera windows: a card of a deck design seen through the shoe's window.

`render_window` draws one reading window of a card at a given travel position with the
perturbations a real shoe shows (offset, rotation, scale, uneven light, colour cast, motion
blur along the draw direction, noise, JPEG, output resolution). `card_frames` renders a card
sliding through the window; `shoe_frames` a whole shoe of them with empty gaps between.

Draw direction: the card leaves the shoe with its top edge leading, which in the window is
*up* (decreasing y). `travel` is how far (window pixels) the card sits below its nominal
position: +WINDOW_H means not yet in view, 0 nominal, about -500 means gone past.
All pixel work is OpenCV/numpy; a 128x200 window costs a few hundred microseconds.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards import split_code
from vision.decks import CARD_H, CARD_W, Deck
from vision.geometry import CARD_X0, CARD_X1, CARD_Y0, WINDOW_H, WINDOW_SIZE, WINDOW_W

INTERIOR = (28, 30, 33)  # BGR of the shoe's dark interior
EMPTY = "EMPTY"
# Window pixels per card pixel, and the card pixel at the window's origin.
_SCALE = WINDOW_W / ((CARD_X1 - CARD_X0) * CARD_W)
_ORIGIN = (CARD_X0 * CARD_W, CARD_Y0 * CARD_H)
CARD_TRAVEL = CARD_H * _SCALE  # window pixels from a card's top edge to its bottom edge


@dataclass(frozen=True)
class Perturbation:
    dx: float = 0.0  # window offset, pixels
    dy: float = 0.0
    angle: float = 0.0  # degrees
    scale: float = 1.0
    light_low: float = 1.0  # gain at the dark end of a linear light gradient
    light_dir: float = 0.0  # gradient direction, radians
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # per-channel gain (B, G, R)
    blur: int = 0  # motion blur length along the draw direction, pixels
    noise: float = 0.0  # Gaussian noise sigma, grey levels
    jpeg: int = 0  # JPEG quality, 0 for none
    size: tuple[int, int] = WINDOW_SIZE  # output (w, h)


NOMINAL = Perturbation()
_GAP = Perturbation(noise=3.0)  # the empty window between cards


def random_perturbation(rng: np.random.Generator, severity: float = 1.0) -> Perturbation:
    """A perturbation within what a shoe shows; `severity` scales every range."""
    s = severity
    u = rng.uniform
    size = WINDOW_SIZE
    if rng.random() < 0.3:
        k = u(0.75, 1.5)
        size = (round(WINDOW_W * k), round(WINDOW_H * k))
    return Perturbation(
        dx=u(-5, 5) * s,
        dy=u(-7, 7) * s,
        angle=u(-4, 4) * s,
        scale=1.0 + u(-0.08, 0.08) * s,
        light_low=1.0 - u(0, 0.45) * s,
        light_dir=u(0, 2 * np.pi),
        tint=tuple(1.0 + u(-0.08, 0.08, 3) * s),
        blur=int(rng.integers(0, round(5 * s) + 1)),
        noise=u(0, 7) * s,
        jpeg=int(rng.integers(35, 95)) if rng.random() < 0.7 else 0,
        size=size,
    )


@cache
def _card_bgr(deck: Deck, code: str) -> np.ndarray:
    """The card face composited over the shoe interior (alpha outside the outline)."""
    face = deck.image(code).astype(np.float32)
    alpha = face[:, :, 3:4] / 255.0
    interior = np.array(INTERIOR, np.float32)
    return (face[:, :, :3] * alpha + interior * (1 - alpha)).astype(np.uint8)


@cache
def _card_bgrx(deck: Deck, code: str) -> np.ndarray:
    """`_card_bgr` with a fourth, unused channel: OpenCV warps 4 channels twice as fast."""
    return cv2.cvtColor(_card_bgr(deck, code), cv2.COLOR_BGR2BGRA)


GAIN_ONE = 128  # gains are stored as uint8, GAIN_ONE meaning 1.0


@lru_cache(maxsize=16)  # one per card in flight; every card draws its own light
def _gain(
    light_low: float, light_dir: float, tint: tuple[float, float, float], size: tuple[int, int]
) -> np.ndarray:
    """Per-pixel, per-channel gain (x GAIN_ONE) of a linear light gradient times a colour
    cast, as uint8 so shading is one saturating multiply."""
    width, height = size
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    ramp = np.cos(light_dir) * (xs / width - 0.5) + np.sin(light_dir) * (ys / height - 0.5)
    gain = 1.0 - (1.0 - light_low) * (ramp + 0.71) / 1.42
    gain = gain[:, :, None] * np.array(tint) * GAIN_ONE
    return np.ascontiguousarray(np.clip(np.rint(gain), 0, 255), dtype=np.uint8)


NOISE_SIGMA = 16.0  # of the noise bank, around 128


@cache
def _noise_bank() -> np.ndarray:
    """Gaussian noise (sigma NOISE_SIGMA around 128, uint8) to crop from: drawing fresh
    noise per frame costs ~1 ms. Big enough for 1.5 x the window, the largest output."""
    shape = (2 * WINDOW_H, 2 * WINDOW_W, 3)
    noise = np.random.default_rng(12345).normal(128.0, NOISE_SIGMA, shape)
    return np.clip(np.rint(noise), 0, 255).astype(np.uint8)


def _transform(p: Perturbation, travel: float) -> np.ndarray:
    """2x3 matrix from card pixels to output pixels (the window, scaled to `p.size`)."""
    to_window = np.array(
        [[_SCALE, 0, -_ORIGIN[0] * _SCALE], [0, _SCALE, -_ORIGIN[1] * _SCALE + travel]],
        np.float64,
    )
    jitter = cv2.getRotationMatrix2D((WINDOW_W / 2, WINDOW_H / 2), p.angle, p.scale)
    jitter[:, 2] += (p.dx, p.dy)
    to_output = np.diag([p.size[0] / WINDOW_W, p.size[1] / WINDOW_H])
    return to_output @ jitter @ np.vstack([to_window, [0, 0, 1]])


def _shade(
    image: np.ndarray, p: Perturbation, rng: np.random.Generator, *, flat: bool = False
) -> np.ndarray:
    """Blur, light, colour cast, noise and JPEG on an image of `p.size`. A `flat` image
    (the empty interior) skips blur and JPEG, which would not change it."""
    if p.blur > 1 and not flat:
        image = cv2.blur(image, (1, p.blur))
    gain = _gain(p.light_low, p.light_dir, p.tint, p.size)
    out = cv2.multiply(image, gain, scale=1.0 / GAIN_ONE)  # uint8, saturating
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


@cache
def _empty_window(size: tuple[int, int]) -> np.ndarray:
    window = np.empty((size[1], size[0], 3), np.uint8)
    window[:] = INTERIOR
    return window


def render_window(
    deck: Deck,
    code: str,
    perturbation: Perturbation = NOMINAL,
    *,
    travel: float = 0.0,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """The reading window (BGR) showing `code` (a card code, BACK, CUT, JOKER, BLANK or EMPTY)."""
    rng = rng if rng is not None else np.random.default_rng(0)
    if code.upper() == EMPTY or not -CARD_TRAVEL - 20 < travel < WINDOW_H + 20:
        return _shade(_empty_window(perturbation.size), perturbation, rng, flat=True)
    window = cv2.warpAffine(
        _card_bgrx(deck, code.upper()), _transform(perturbation, travel), perturbation.size,
        flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(*INTERIOR, 255),
    )
    return _shade(cv2.cvtColor(window, cv2.COLOR_BGRA2BGR), perturbation, rng)


def _passage(
    rng: np.random.Generator, frames: int, severity: float
) -> Iterator[tuple[float, Perturbation, bool]]:
    """(travel, perturbation, card_present) of each frame of one card's passage. Frames are
    always of the window's size: the camera's crop is fixed, only the card moves."""
    base = replace(random_perturbation(rng, severity), size=WINDOW_SIZE)
    start, end = WINDOW_H + 10.0, -CARD_TRAVEL - 10.0
    step = (start - end) / frames
    phase = rng.uniform(0, step)
    for k in range(frames):
        travel = start - phase - k * step
        jitter = replace(base, dx=base.dx + rng.uniform(-1, 1),
                         angle=base.angle + rng.uniform(-0.5, 0.5))
        yield travel, jitter, -CARD_TRAVEL - 5 < travel < WINDOW_H + 5


def card_frames(
    deck: Deck,
    code: str,
    rng: np.random.Generator,
    *,
    frames: int = 24,
    severity: float = 1.0,
) -> Iterator[tuple[np.ndarray, bool]]:
    """(window, card_present) for each camera frame while `code` slides through the window.

    The card travels from just below the window to just past it in `frames` even steps (with
    a random phase), one perturbation per card plus per-frame jitter and fresh noise.
    `card_present` is what the shoe's card sensor says: some of the card is in the window.
    """
    for travel, perturbation, present in _passage(rng, frames, severity):
        yield render_window(deck, code, perturbation, travel=travel, rng=rng), present


def two_view_frames(
    deck: Deck,
    code: str,
    rng: np.random.Generator,
    *,
    face_up: bool = False,
    frames: int = 24,
    severity: float = 1.0,
) -> Iterator[tuple[np.ndarray, np.ndarray, bool]]:
    """(under, over, card_present) for a shoe with a second camera over the card: the under
    view sees the face of a face-down card and the back of a face-up one, the over view the
    other side. A CUT card looks the same from both sides."""
    under_code, over_code = (code, "BACK") if not face_up else ("BACK", code)
    if code.upper() == "CUT":
        under_code = over_code = code
    for travel, perturbation, present in _passage(rng, frames, severity):
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
    severity: float = 1.0,
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
        cv2.imwrite(str(out / f"{code}.png"), render_window(deck, code))
    for code in ("BACK", "CUT", EMPTY):
        cv2.imwrite(str(out / f"{code.lower()}.png"), render_window(deck, code))
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
    card = _card_bgr(deck, code.upper())
    scale = card_width / CARD_W
    matrix = cv2.getRotationMatrix2D((0, 0), -angle, scale)
    matrix[:, 2] += corner
    return cv2.warpAffine(card, matrix, size, flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=INTERIOR)
