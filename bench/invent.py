"""Invented deck designs: faces drawn from a seed, to read designs the reader never saw.

The eleven shared designs are what the reader was developed on; acceptance is measured on
others. This draws as many more as asked, each from its own seed: an index in one of the
machine's typefaces (TrueType through Pillow where fonts are installed, OpenCV's Hershey
faces otherwise) at its own size, weight and width, with its own letters (A K Q J, 1 R D V,
A K D B, Т К Д В, A H V B), the suit under the rank or beside it, drawn or a font's glyph,
its own reds and blacks (or four colours), a paper tint, a frame or none, pips or a picture
crowding the index, and a back of its own pattern. Each is written as a folder of faces
named by code, as in ../shared/decks, so `bench.vision --decks` (or `--invent N`) enrols and
reads them as it does the shared designs.
Run: .venv/bin/python -m bench.invent OUT [--count N] [--seed S] [--sheet PNG]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.cards import ALL_CARDS, split_code
from vision.decks import PIP_PLACES, draw_suit, rounded_alpha
from vision.geometry import CARD_X0, CARD_X1, CARD_Y0, CARD_Y1, STANDARD_ASPECT, WINDOW_H, WINDOW_W
from vision.register import ZONE

WIDTH = 600  # twice the decks' CARD_W, for smooth strokes: load_deck shrinks every face
FONT_FOLDERS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
HERSHEY = {"hershey-simplex": cv2.FONT_HERSHEY_SIMPLEX, "hershey-duplex": cv2.FONT_HERSHEY_DUPLEX,
           "hershey-complex": cv2.FONT_HERSHEY_COMPLEX, "hershey-triplex": cv2.FONT_HERSHEY_TRIPLEX,
           "hershey-plain": cv2.FONT_HERSHEY_PLAIN,
           "hershey-script": cv2.FONT_HERSHEY_SCRIPT_COMPLEX}
# Court and ace letters of real decks' traditions: the file names keep saying K, Q, J, A.
LETTERS = {"english": "AKQJ", "french": "1RDV", "german": "AKDB", "russian": "ТКДВ",
           "dutch": "AHVB"}
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
# Where any index must end, in card widths (the reading window is measured in card widths
# whatever a design's height: `geometry.window_on_card`): 0.02 inside the index zone
# (`register.ZONE`), which reaches 0.235 across and 0.413 down.
INDEX_END = (CARD_X0 + (ZONE[0] + ZONE[2]) / WINDOW_W * (CARD_X1 - CARD_X0) - 0.02,
             (CARD_Y0 + (ZONE[1] + ZONE[3]) / WINDOW_H * (CARD_Y1 - CARD_Y0)) * STANDARD_ASPECT
             - 0.02)
PIP_COLUMNS = 0.18  # PIP_PLACES' columns lie this far either side of the middle
NARROWEST = 0.6  # a rank too wide for the zone ("10") is narrowed this far before shrunk


@cache
def truetype_fonts() -> tuple[Path, ...]:
    """The machine's TrueType and OpenType fonts, but for symbol, maths and emoji faces (by
    name), in name order. The russian letters and the suit glyphs need a face that has them:
    DejaVu and Liberation (Debian's fonts-dejavu-core and fonts-liberation) do; which fonts a
    machine has decides which design a seed draws."""
    found = sorted({f for folder in FONT_FOLDERS if folder.is_dir()
                    for pattern in ("*.ttf", "*.otf") for f in folder.rglob(pattern)},
                   key=lambda f: f.name)
    return tuple(f for f in found if not any(w in f.name for w in ("Math", "Symbol", "Emoji")))


@dataclass(frozen=True)
class Style:
    """Everything that makes one invented design look like itself."""

    name: str
    font: str  # a TrueType file, or a key of HERSHEY
    weight: int  # Hershey stroke width (TrueType: the font's own)
    letters: str  # the glyphs for A, K, Q, J
    rank_height: float  # of the card's height
    rank_width: float  # condensed (< 1) or extended (> 1)
    narrow_ten: float  # "10" squeezed by this much more
    suit_size: float  # of the rank's height
    suit_beside: bool
    suit_from_font: bool
    suit_width: float
    gap: float  # between rank and suit, of the rank's height
    at: tuple[float, float]  # the index's top-left corner, card fractions
    colours: dict  # suit -> BGR
    paper: tuple[int, int, int]
    frame: tuple[float, tuple[int, int, int], int] | None  # inset, colour, width
    aspect: float  # card height / width
    radius: int
    pip_size: float  # of the card's width
    pip_spread: float  # the pip columns' distance from the middle, of the width
    ace_size: float
    court_at: tuple[float, float]  # the picture's top-left corner, card fractions
    palette: tuple[tuple[int, int, int], ...]
    back: str
    back_border: bool  # a paper-coloured border around the pattern
    back_colours: tuple[tuple[int, int, int], tuple[int, int, int]]
    seed: int


def invent(seed: int, index: int = 0) -> Style:
    """The design of this seed."""
    rng = np.random.default_rng(seed)
    fonts = [str(f) for f in truetype_fonts()]
    font = str(rng.choice(fonts)) if fonts and rng.random() < 0.75 else str(
        rng.choice(list(HERSHEY)))
    traditions = ["english"] * 5 + ["french", "german", "dutch"] + (
        ["russian"] if font not in HERSHEY else [])
    tradition = str(rng.choice(traditions))
    red = _colour(rng, hue=(172, 185), saturation=(170, 255), value=(150, 235))
    black = _colour(rng, hue=(100, 130), saturation=(0, 160), value=(10, 60))
    colours = {"H": red, "D": red, "S": black, "C": black}
    if rng.random() < 0.15:  # a four-colour deck
        colours["D"] = _colour(rng, hue=(100, 120), saturation=(170, 255), value=(130, 210))
        colours["C"] = _colour(rng, hue=(50, 75), saturation=(170, 255), value=(90, 170))
    paper_tint = rng.integers(0, 18, 3)
    paper = tuple(int(255 - t) for t in paper_tint) if rng.random() < 0.5 else (250, 250, 250)
    u = rng.uniform
    aspect = float(u(1.39, 1.56))
    at = (float(u(0.03, 0.075)), float(u(0.025, 0.06)))
    frame = None
    if rng.random() < 0.35:  # a thin frame inside the card's edge, the index inside it
        inset = float(u(0.02, 0.035))
        frame = (inset, _colour(rng, hue=(0, 180), saturation=(60, 255), value=(40, 200)),
                 int(rng.integers(2, 7)))
        at = (max(at[0], inset + 0.025), max(at[1], (inset + 0.025) / aspect))
    palette = tuple(_colour(rng, hue=(0, 180), saturation=(80, 255), value=(60, 240))
                    for _ in range(4))
    beside = bool(rng.random() < 0.2)
    name = Path(font).stem if font not in HERSHEY else font
    return Style(
        name=f"invented-{index:02d}-{name}-{tradition}",
        font=font, weight=int(rng.integers(5, 19)), letters=LETTERS[tradition],
        rank_height=float(u(0.065, 0.11)), rank_width=float(u(0.75, 1.2)),
        narrow_ten=float(u(0.6, 1.0)), suit_size=float(u(0.6, 1.05) * (0.8 if beside else 1)),
        suit_beside=beside, suit_from_font=bool(rng.random() < 0.4 and fonts),
        suit_width=float(u(0.85, 1.15)), gap=float(u(0.05, 0.35)),
        at=at, colours=colours,
        paper=paper, frame=frame,  # type: ignore[arg-type]
        aspect=aspect, radius=int(rng.integers(10, 40)),
        pip_size=float(u(0.12, 0.19)), pip_spread=float(u(0.15, 0.2)),
        ace_size=float(u(0.22, 0.5)),
        court_at=(float(u(0.2, 0.27)), float(u(0.07, 0.14))), palette=palette,
        back=str(rng.choice(["lattice", "stripes", "dots", "checks", "rings", "mottle"])),
        back_border=bool(rng.random() < 0.67),
        back_colours=(_colour(rng, hue=(0, 180), saturation=(80, 255), value=(40, 200)),
                      _colour(rng, hue=(0, 180), saturation=(0, 255), value=(120, 255))),
        seed=seed,
    )


def _colour(rng: np.random.Generator, *, hue: tuple[int, int], saturation: tuple[int, int],
            value: tuple[int, int]) -> tuple[int, int, int]:
    return hsv_colour(int(rng.integers(*hue)) % 180, int(rng.integers(*saturation)),
                      int(rng.integers(*value)))


def hsv_colour(hue: int, saturation: int, value: int) -> tuple[int, int, int]:
    """OpenCV's HSV (hue 0-179) as a BGR colour."""
    hsv = np.uint8([[[hue, saturation, value]]])
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])  # type: ignore


# --- glyphs: white on black masks, cropped to their ink -------------------------------------


def _cropped(mask: np.ndarray) -> np.ndarray:
    points = cv2.findNonZero(cv2.compare(mask, 24, cv2.CMP_GT))
    x, y, w, h = cv2.boundingRect(points)
    return mask[y:y + h, x:x + w]


@cache
def _text_mask(text: str, font: str, weight: int) -> np.ndarray:
    """`text` in `font`, about 200 pixels tall, cropped."""
    if font in HERSHEY:
        canvas = np.zeros((300, 200 * len(text) + 100), np.uint8)
        cv2.putText(canvas, text, (30, 240), HERSHEY[font], 6.0, 255, weight, cv2.LINE_AA)
        return _cropped(canvas)
    from PIL import Image, ImageDraw, ImageFont  # lazily: only for TrueType designs

    face = ImageFont.truetype(font, 200)
    left, top, right, bottom = face.getbbox(text)
    image = Image.new("L", (right - left + 40, bottom - top + 40), 0)
    ImageDraw.Draw(image).text((20 - left, 20 - top), text, font=face, fill=255)
    return _cropped(np.asarray(image))


@cache
def _suit_mask(suit: str, from_font: bool) -> np.ndarray:
    if from_font and truetype_fonts():
        dejavu = [f for f in truetype_fonts() if f.name == "DejaVuSans.ttf"]
        return _text_mask(SUIT_GLYPHS[suit], str((dejavu or truetype_fonts())[0]), 1)
    canvas = np.zeros((240, 240), np.uint8)
    draw_suit(canvas, suit, 120, 120, 200, (255,))
    return _cropped(canvas)


def _sized(mask: np.ndarray, height: float, width_factor: float = 1.0) -> np.ndarray:
    h = max(2, round(height))
    w = max(2, round(mask.shape[1] * h / mask.shape[0] * width_factor))
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA)


def _stamp(face: np.ndarray, mask: np.ndarray, x: float, y: float,
           colour: tuple[int, ...]) -> None:
    """`mask` inked onto `face` in `colour`, its top-left corner at (x, y)."""
    x, y = round(x), round(y)
    h = min(mask.shape[0], face.shape[0] - y)
    w = min(mask.shape[1], face.shape[1] - x)
    if h <= 0 or w <= 0 or x < 0 or y < 0:
        return
    alpha = mask[:h, :w, None].astype(np.float32) / 255.0
    region = face[y:y + h, x:x + w]
    region[:] = (region * (1 - alpha) + np.float32(colour) * alpha).astype(np.uint8)


# --- faces ----------------------------------------------------------------------------------


def _height(style: Style) -> int:
    return round(WIDTH * style.aspect)


def _index(face: np.ndarray, style: Style, rank: str, suit: str) -> None:
    """The corner index, fitted inside INDEX_END."""
    height = _height(style)
    letter = dict(zip("AKQJ", style.letters, strict=True)).get(rank, rank)
    squeeze = style.rank_width * (style.narrow_ten if rank == "10" else 1.0)
    rank_h = style.rank_height * height
    rank_mask = _sized(_text_mask(letter, style.font, style.weight), rank_h, squeeze)
    suit_mask = _sized(_suit_mask(suit, style.suit_from_font), rank_h * style.suit_size,
                       style.suit_width)
    x0, y0 = style.at[0] * WIDTH, style.at[1] * height
    room = (INDEX_END[0] * WIDTH - x0, INDEX_END[1] * WIDTH - y0)
    gap = style.gap * rank_h

    def size() -> tuple[float, float]:
        if style.suit_beside:
            return (rank_mask.shape[1] + gap + suit_mask.shape[1],
                    max(rank_mask.shape[0], suit_mask.shape[0]))
        return (max(rank_mask.shape[1], suit_mask.shape[1]),
                rank_mask.shape[0] + gap + suit_mask.shape[0])

    width, tall = size()
    if width > room[0]:  # a wide "10": narrowed first, as designs print it, then made smaller
        narrower = max(NARROWEST * rank_mask.shape[1], rank_mask.shape[1] - (width - room[0]))
        rank_mask = cv2.resize(rank_mask, (max(2, round(narrower)), rank_mask.shape[0]),
                               interpolation=cv2.INTER_AREA)
        width, tall = size()
    fit = min(1.0, room[0] / width, room[1] / tall)
    if fit < 1.0:  # a tall index: the whole of it smaller
        rank_mask = _sized(rank_mask, rank_mask.shape[0] * fit, 1.0)
        suit_mask = _sized(suit_mask, suit_mask.shape[0] * fit, 1.0)
        gap = gap * fit
        width, tall = size()
    colour = style.colours[suit]
    if style.suit_beside:
        _stamp(face, rank_mask, x0, y0, colour)
        _stamp(face, suit_mask, x0 + rank_mask.shape[1] + gap,
               y0 + (rank_mask.shape[0] - suit_mask.shape[0]) / 2, colour)
    else:
        middle = x0 + width / 2
        _stamp(face, rank_mask, middle - rank_mask.shape[1] / 2, y0, colour)
        _stamp(face, suit_mask, middle - suit_mask.shape[1] / 2,
               y0 + rank_mask.shape[0] + gap, colour)


def _pip(face: np.ndarray, style: Style, suit: str, cx: float, cy: float, size: float,
         upside_down: bool = False) -> None:
    mask = _sized(_suit_mask(suit, style.suit_from_font), size, style.suit_width)
    if upside_down:
        mask = cv2.rotate(mask, cv2.ROTATE_180)
    _stamp(face, mask, cx - mask.shape[1] / 2, cy - mask.shape[0] / 2, style.colours[suit])


def _court(face: np.ndarray, style: Style, suit: str, rng: np.random.Generator) -> None:
    """A picture of shapes and a head in the design's palette, mirrored top to bottom as a
    double-headed court card is, framed, with a small suit in its corner."""
    height = _height(style)
    x0, y0 = round(style.court_at[0] * WIDTH), round(style.court_at[1] * height)
    x1, y1 = WIDTH - x0, height - y0
    picture = face[y0:y1, x0:x1]
    palette = [*style.palette, style.colours[suit]]
    ph, pw = picture.shape[:2]
    for _ in range(14):
        colour = palette[int(rng.integers(len(palette)))]
        kind = rng.random()
        cx, cy = int(rng.integers(0, pw)), int(rng.integers(0, ph // 2))
        if kind < 0.4:
            axes = (int(rng.integers(pw // 10, pw // 2)), int(rng.integers(ph // 12, ph // 4)))
            cv2.ellipse(picture, (cx, cy), axes, float(rng.uniform(0, 180)), 0, 360, colour,
                        -1, cv2.LINE_AA)
        elif kind < 0.7:
            points = rng.integers(0, [pw, ph // 2], (5, 2)).astype(np.int32)
            cv2.fillPoly(picture, [points], colour, cv2.LINE_AA)
        else:
            cv2.line(picture, (cx, cy), (int(rng.integers(0, pw)), int(rng.integers(0, ph // 2))),
                     colour, int(rng.integers(3, 14)), cv2.LINE_AA)
    cv2.circle(picture, (pw // 2, ph // 5), pw // 7, (170, 200, 240), -1, cv2.LINE_AA)
    # The lower half mirrors the upper, as a double-headed court card does.
    picture[ph - ph // 2:] = cv2.rotate(picture[: ph // 2], cv2.ROTATE_180)
    cv2.rectangle(face, (x0, y0), (x1, y1), style.colours[suit], 4, cv2.LINE_AA)
    _pip(face, style, suit, x0 + pw * 0.15, y0 + ph * 0.08, WIDTH * 0.08)


def draw_face(style: Style, code: str) -> np.ndarray:
    rank, suit = split_code(code)  # type: ignore[misc]
    rng = np.random.default_rng([style.seed, ALL_CARDS.index(code)])
    height = _height(style)
    face = np.full((height, WIDTH, 3), style.paper, np.uint8)
    if style.frame:
        inset, colour, width = style.frame
        d = round(inset * WIDTH)
        cv2.rectangle(face, (d, d), (WIDTH - d, height - d), colour, width, cv2.LINE_AA)
    if rank in ("J", "Q", "K"):
        _court(face, style, suit, rng)
    elif rank == "A":
        _pip(face, style, suit, WIDTH / 2, height / 2, style.ace_size * WIDTH)
    else:
        for fx, fy in PIP_PLACES[rank]:
            x = 0.5 + (fx - 0.5) / PIP_COLUMNS * style.pip_spread
            _pip(face, style, suit, x * WIDTH, (0.1 + 0.8 * fy) * height,
                 style.pip_size * WIDTH, upside_down=fy > 0.5)
    _index(face, style, rank, suit)
    face = cv2.rotate(face, cv2.ROTATE_180)  # the other index, in the opposite corner
    _index(face, style, rank, suit)
    return _with_outline(style, cv2.rotate(face, cv2.ROTATE_180))


def draw_back(style: Style) -> np.ndarray:
    height = _height(style)
    ink, ground = style.back_colours
    back = np.full((height, WIDTH, 3), ground, np.uint8)
    step = 36
    if style.back == "lattice":
        for k in range(-height, WIDTH + height, step):
            cv2.line(back, (k, 0), (k + height, height), ink, 6, cv2.LINE_AA)
            cv2.line(back, (k, 0), (k - height, height), ink, 6, cv2.LINE_AA)
    elif style.back == "stripes":
        for k in range(0, WIDTH + height, step):
            cv2.line(back, (k, 0), (k - height, height), ink, 14, cv2.LINE_AA)
    elif style.back == "dots":
        for y in range(0, height, step):
            for x in range(0, WIDTH, step):
                cv2.circle(back, (x + (y // step % 2) * step // 2, y), 9, ink, -1, cv2.LINE_AA)
    elif style.back == "checks":
        cells = (np.indices((height, WIDTH)) // step).sum(axis=0) % 2 == 1
        back[cells] = ink
    elif style.back == "rings":
        for r in range(0, 2 * height, step // 2):
            cv2.circle(back, (WIDTH // 2, height // 2), r, ink, 5, cv2.LINE_AA)
    else:  # a photograph-like mottle of the two colours
        noise = np.random.default_rng(style.seed).random((height // 24 + 1, WIDTH // 24 + 1))
        blend = cv2.resize(noise.astype(np.float32), (WIDTH, height),
                           interpolation=cv2.INTER_CUBIC).clip(0, 1)[..., None]
        back = (blend * np.float32(ink) + (1 - blend) * np.float32(ground)).astype(np.uint8)
    if style.back_border:
        border = round(0.045 * WIDTH)
        framed = np.full_like(back, style.paper)
        framed[border:-border, border:-border] = back[border:-border, border:-border]
        back = framed
    return _with_outline(style, back)


def draw_joker(style: Style, number: int) -> np.ndarray:
    height = _height(style)
    face = np.full((height, WIDTH, 3), style.paper, np.uint8)
    colour = style.colours["H" if number == 1 else "S"]
    y = style.at[1] * height
    for letter in "JOKER":
        mask = _sized(_text_mask(letter, style.font, style.weight), 0.05 * height)
        _stamp(face, mask, style.at[0] * WIDTH, y, colour)
        y += 0.06 * height
    cv2.ellipse(face, (WIDTH // 2 + 30, height // 2), (WIDTH // 4, height // 4), 20, 0, 360,
                style.palette[0], -1, cv2.LINE_AA)
    return _with_outline(style, face)


def _with_outline(style: Style, face: np.ndarray) -> np.ndarray:
    """BGRA, transparent outside the card's rounded corners."""
    return np.dstack([face, rounded_alpha(WIDTH, face.shape[0], style.radius)])


def write_design(style: Style, root: Path) -> Path:
    """The design as a folder of faces named by code, a back and two jokers."""
    folder = root / style.name
    folder.mkdir(parents=True, exist_ok=True)
    for code in ALL_CARDS:
        cv2.imwrite(str(folder / f"{code}.png"), draw_face(style, code))
    cv2.imwrite(str(folder / "back.png"), draw_back(style))
    for number in (1, 2):
        cv2.imwrite(str(folder / f"joker_{number}.png"), draw_joker(style, number))
    return folder


def write_designs(root: Path, count: int, seed: int) -> list[Path]:
    """`count` designs, the i-th from seed + i."""
    return [write_design(invent(seed + i, i), root) for i in range(count)]


def contact_sheet(folders: list[Path], codes: tuple[str, ...] = ("AS", "10H", "7D", "QC",
                                                                  "KH", "back")) -> np.ndarray:
    """One row per design: a few of its faces and its back, at a third of their size."""
    rows = []
    for folder in folders:
        cells = []
        for code in codes:
            image = cv2.imread(str(folder / f"{code}.png"), cv2.IMREAD_UNCHANGED)
            image = cv2.resize(image, (100, round(100 * image.shape[0] / image.shape[1])),
                               interpolation=cv2.INTER_AREA)
            tile = np.full((160, 110, 3), 60, np.uint8)
            alpha = image[..., 3:4].astype(np.float32) / 255
            h = min(150, image.shape[0])
            tile[5:5 + h, 5:105] = (image[:h, :, :3] * alpha[:h] + tile[5:5 + h, 5:105]
                                    * (1 - alpha[:h])).astype(np.uint8)
            cells.append(tile)
        label = np.full((160, 260, 3), 255, np.uint8)
        cv2.putText(label, folder.name[:30], (5, 80), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0),
                    1, cv2.LINE_AA)
        rows.append(np.hstack([label, *cells]))
    return np.vstack(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder to write the designs into")
    parser.add_argument("--count", type=int, default=8, help="how many designs (default 8)")
    parser.add_argument("--seed", type=int, default=1, help="of the first design (default 1)")
    parser.add_argument("--sheet", type=Path, help="also draw a contact sheet PNG of them")
    args = parser.parse_args()
    if args.count < 1:
        parser.error(f"--count must be at least 1, not {args.count}")
    folders = write_designs(args.out, args.count, args.seed)
    for folder in folders:
        print(folder)
    if args.sheet:
        cv2.imwrite(str(args.sheet), contact_sheet(folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
