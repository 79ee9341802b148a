"""Deck designs as full card images: the shared public-domain deck, or one drawn here.

A `Deck` maps card codes to BGRA card faces CARD_W pixels wide (CARD_H tall for the drawn
design; a design's own faces keep their proportions), transparent outside the rounded
outline, plus the images every shoe also shows: BACK (a card seen from behind), CUT (the
plastic cutting card), JOKER and BLANK (a face with nothing printed on it).
The synthetic design is drawn with OpenCV primitives only, so the simulator needs no files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards import ALL_CARDS, RED_SUITS, split_code
from vision.errors import DeckError, ImageReadError
from vision.imageio import decode_file

CARD_W, CARD_H = 300, 436
SPECIAL_CODES = ("BACK", "CUT", "JOKER", "BLANK")
SHARED_DECK_NAME = "vector-playing-cards"
RED = (30, 30, 205)
BLACK = (25, 25, 25)
_CORNER = 14


@dataclass(frozen=True, eq=False)  # hashed by identity: renderers cache per deck
class Deck:
    name: str
    cards: dict[str, np.ndarray]  # code -> BGRA face, CARD_H x CARD_W

    def image(self, code: str) -> np.ndarray:
        key = code.upper()
        if key not in self.cards:
            parts = split_code(key)
            key = parts[0] + parts[1] if parts else key
        if key not in self.cards:
            raise DeckError(f"deck {self.name!r} has no card {code!r}")
        return self.cards[key]


def decks_root() -> Path:
    """Where deck designs live: $SABOT_DECKS, else shared/decks beside the repository."""
    override = os.environ.get("SABOT_DECKS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[1].parent / "shared" / "decks"


def rounded_alpha(width: int = CARD_W, height: int = CARD_H, radius: int = _CORNER) -> np.ndarray:
    """A card's outline as an alpha channel: opaque inside its rounded corners."""
    alpha = np.zeros((height, width), np.uint8)
    r = radius
    cv2.rectangle(alpha, (r, 0), (width - 1 - r, height - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (width - 1, height - 1 - r), 255, -1)
    for cx in (r, width - 1 - r):
        for cy in (r, height - 1 - r):
            cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return alpha


def _with_alpha(bgr: np.ndarray) -> np.ndarray:
    return np.dstack([bgr, rounded_alpha()])


def _blank_face() -> np.ndarray:
    return np.full((CARD_H, CARD_W, 3), 246, np.uint8)


def draw_suit(canvas: np.ndarray, suit: str, cx: float, cy: float, size: float,
              color: tuple[int, ...] | None = None) -> None:
    """A suit symbol `size` pixels tall centred on (cx, cy), drawn in place (in the built-in
    design's red or black unless `color` is given)."""
    if color is None:
        color = RED if suit in RED_SUITS else BLACK
    s = size / 2.0

    def pts(points: list[tuple[float, float]]) -> np.ndarray:
        return np.array([[cx + x * s, cy + y * s] for x, y in points], np.int32)

    def disc(x: float, y: float, r: float) -> None:
        centre = (round(cx + x * s), round(cy + y * s))
        cv2.circle(canvas, centre, round(r * s), color, -1, cv2.LINE_AA)

    if suit == "D":
        cv2.fillPoly(canvas, [pts([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])], color, cv2.LINE_AA)
    elif suit == "H":
        disc(-0.42, -0.42, 0.47)
        disc(0.42, -0.42, 0.47)
        cv2.fillPoly(canvas, [pts([(-0.88, -0.27), (0.88, -0.27), (0, 0.95)])], color, cv2.LINE_AA)
    elif suit == "S":
        disc(-0.42, 0.2, 0.42)
        disc(0.42, 0.2, 0.42)
        cv2.fillPoly(canvas, [pts([(-0.82, 0.08), (0.82, 0.08), (0, -0.98)])], color, cv2.LINE_AA)
        cv2.fillPoly(canvas, [pts([(0, 0.3), (0.32, 0.98), (-0.32, 0.98)])], color, cv2.LINE_AA)
    else:  # clubs: three lobes and a flared stem
        disc(0, -0.5, 0.36)
        disc(-0.45, 0.12, 0.36)
        disc(0.45, 0.12, 0.36)
        disc(0, 0.05, 0.22)
        cv2.fillPoly(canvas, [pts([(0, 0.0), (0.3, 0.98), (-0.3, 0.98)])], color, cv2.LINE_AA)


def _draw_index(face: np.ndarray, rank: str, suit: str,
                font: int = cv2.FONT_HERSHEY_DUPLEX) -> None:
    color = RED if suit in RED_SUITS else BLACK
    scale, thick = 1.8, 4
    (w, h), _ = cv2.getTextSize(rank, font, scale, thick)
    centre_x = 37
    cv2.putText(face, rank, (centre_x - w // 2, 18 + h), font, scale, color, thick, cv2.LINE_AA)
    draw_suit(face, suit, centre_x, 18 + h + 40, 46)


PIP_PLACES = {  # rank -> list of (x, y) pip centres in card fractions
    "A": [(0.5, 0.5)],
    "2": [(0.5, 0.2), (0.5, 0.8)],
    "3": [(0.5, 0.2), (0.5, 0.5), (0.5, 0.8)],
    "4": [(0.32, 0.2), (0.68, 0.2), (0.32, 0.8), (0.68, 0.8)],
    "5": [(0.32, 0.2), (0.68, 0.2), (0.5, 0.5), (0.32, 0.8), (0.68, 0.8)],
    "6": [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.5, 0.8)],
    "7": [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.5, 0.8)] + [(0.5, 0.35)],
    "8": [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.5, 0.8)] + [(0.5, 0.35), (0.5, 0.65)],
    "9": [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.4, 0.6, 0.8)] + [(0.5, 0.5)],
    "10": [(x, y) for x in (0.32, 0.68) for y in (0.2, 0.4, 0.6, 0.8)] + [(0.5, 0.3), (0.5, 0.7)],
}


def _draw_court(face: np.ndarray, rank: str, suit: str) -> None:
    color = RED if suit in RED_SUITS else BLACK
    x0, y0, x1, y1 = int(0.22 * CARD_W), int(0.14 * CARD_H), int(0.78 * CARD_W), int(0.86 * CARD_H)
    picture = face[y0:y1, x0:x1]
    picture[:] = (40, 160, 220)
    for y in range(0, y1 - y0, 18):
        cv2.line(picture, (0, y), (x1 - x0, y + 30), (160, 60, 40), 4, cv2.LINE_AA)
    cv2.rectangle(face, (x0, y0), (x1, y1), color, 3)
    draw_suit(face, suit, x0 + 34, y0 + 40, 46)
    centre = (CARD_W // 2 - 30, CARD_H // 2 + 25)
    cv2.putText(face, rank, centre, cv2.FONT_HERSHEY_TRIPLEX, 3, color, 6)


def _draw_face(rank: str, suit: str, font: int = cv2.FONT_HERSHEY_DUPLEX) -> np.ndarray:
    face = _blank_face()
    if rank in ("J", "Q", "K"):
        _draw_court(face, rank, suit)
    else:
        size = 120 if rank == "A" else 58
        for fx, fy in PIP_PLACES[rank]:
            draw_suit(face, suit, fx * CARD_W, fy * CARD_H, size)
    _draw_index(face, rank, suit, font)
    # The other index, upside down in the opposite corner, as on any real card.
    corner = face[:122, :66].copy()
    face[CARD_H - 122 :, CARD_W - 66 :] = cv2.rotate(corner, cv2.ROTATE_180)
    return face


def _draw_joker() -> np.ndarray:
    face = _blank_face()
    for i, letter in enumerate("JOKER"):
        origin = (14, 52 + 48 * i)
        cv2.putText(face, letter, origin, cv2.FONT_HERSHEY_DUPLEX, 1.6, RED, 4, cv2.LINE_AA)
    cv2.circle(face, (CARD_W // 2 + 20, CARD_H // 2), 80, (60, 120, 200), -1, cv2.LINE_AA)
    return face


def draw_back(color: tuple[int, int, int] = (150, 60, 30)) -> np.ndarray:
    """A card back: a lattice in `color` inside a white border."""
    back = np.full((CARD_H, CARD_W, 3), 240, np.uint8)
    inner = back[14:-14, 14:-14]
    inner[:] = color
    light = tuple(min(255, c + 90) for c in color)
    for k in range(-CARD_H, CARD_W + CARD_H, 22):
        cv2.line(inner, (k, 0), (k + CARD_H, CARD_H), light, 3, cv2.LINE_AA)
        cv2.line(inner, (k, 0), (k - CARD_H, CARD_H), light, 3, cv2.LINE_AA)
    return _with_alpha(back)


def draw_cut(color: tuple[int, int, int] = (30, 200, 245)) -> np.ndarray:
    """A plain plastic cutting card of one colour (yellow by default)."""
    return _with_alpha(np.full((CARD_H, CARD_W, 3), color, np.uint8))


def named_deck(name: str, cut: tuple[int, int, int] | None = None) -> Deck:
    """The design a command's `--deck` names: "synthetic" (built in), "shared" (the shared
    public-domain one), a folder of faces, or a shared design's name; with a plain cut card
    of `cut` (BGR) in place of its own, if given."""
    deck = synthetic_deck() if name == "synthetic" else load_deck(
        None if name == "shared" else name)
    return deck if cut is None else with_cut(deck, cut)


def with_cut(deck: Deck, color: tuple[int, int, int]) -> Deck:
    """`deck` with a plain cut card of `color` (BGR) in place of its own: the shoe's cut card
    is the casino's, not the design's."""
    return Deck(deck.name, {**deck.cards, "CUT": draw_cut(color)})


def _specials(back_color: tuple[int, int, int]) -> dict[str, np.ndarray]:
    return {
        "BACK": draw_back(back_color),
        "CUT": draw_cut(),
        "JOKER": _with_alpha(_draw_joker()),
        "BLANK": _with_alpha(_blank_face()),
    }


@cache
def foreign_deck() -> Deck:
    """The built-in design with another typeface for its indices: cards of a design that was
    not enrolled, for enrolment to make sure it never reads them."""
    cards = {code: _with_alpha(_draw_face(*split_code(code), cv2.FONT_HERSHEY_COMPLEX))
             for code in ALL_CARDS}
    return Deck("foreign", cards)


@cache
def synthetic_deck() -> Deck:
    """The built-in design: Hershey-font indices and polygon pips."""
    cards = {}
    for code in ALL_CARDS:
        rank, suit = split_code(code)  # type: ignore[misc]
        cards[code] = _with_alpha(_draw_face(rank, suit))
    cards.update(_specials((150, 60, 30)))
    return Deck("synthetic", cards)


def _read_face(path: Path) -> np.ndarray:
    """A face as BGRA, CARD_W wide, its own height (designs differ in proportion)."""
    try:
        image = decode_file(path, cv2.IMREAD_UNCHANGED)
    except ImageReadError as error:
        raise DeckError(f"cannot read card image: {error}") from None
    if image.dtype != np.uint8:
        image = cv2.convertScaleAbs(image, alpha=255.0 / max(1.0, float(image.max())))
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGRA)
    elif image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    height = max(1, round(image.shape[0] * CARD_W / image.shape[1]))
    return cv2.resize(image, (CARD_W, height), interpolation=cv2.INTER_AREA)


@cache
def load_deck(path: str | None = None) -> Deck:
    """A deck design from a directory of face PNGs named by code (AS.png, 10H.png, ...).

    Without `path`, the shared public-domain design under `decks_root()`. A design without a
    back, cut card or blank face gets the drawn ones; `joker*.png` is its joker.
    """
    directory = Path(path) if path else decks_root() / SHARED_DECK_NAME
    if path and not directory.is_dir() and (decks_root() / path).is_dir():
        directory = decks_root() / path  # a shared design by its name: --deck gnome-berlin
    if directory.is_file():
        raise DeckError(f"deck directory {directory}: a file; give the directory of the "
                        "design's faces it is in")
    if not directory.is_dir():
        where = (f"nor a design in {decks_root()}" if path else "the shared designs are "
                 "looked for in $SABOT_DECKS, else shared/decks beside the repository")
        raise DeckError(f"deck directory {directory} does not exist ({where})")
    cards: dict[str, np.ndarray] = _specials((40, 40, 170))
    jokers = 0
    for file in sorted(directory.glob("*.png")):
        stem = file.stem.upper()
        parts = split_code(stem)
        if parts:
            cards[parts[0] + parts[1]] = _read_face(file)
        elif stem.startswith("JOKER"):
            jokers += 1
            cards["JOKER" if jokers == 1 else f"JOKER{jokers}"] = _read_face(file)
        elif stem in SPECIAL_CODES:
            cards[stem] = _read_face(file)
    missing = [code for code in ALL_CARDS if code not in cards]
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise DeckError(f"deck directory {directory} lacks {', '.join(missing[:5])}{more}")
    return Deck(directory.name, cards)
