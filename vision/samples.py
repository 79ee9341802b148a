"""An enrolment samples directory: what each file shows, as a `Source` to render views from.

Files are named by what they show: a card code (`AS.png`, `10h.jpg`, `TD.png`), `back*`,
`cut*`, `empty*`, or `joker*` (a face the deck ships that is not a card of the shoe). Each is
either a reading window (as the shoe's camera sees it) or a whole card face as a deck's
artwork ships; a whole face is told by its transparent corners, or by its index printed
again upside down in the opposite corner, which every card has and no window shows.
Anything else is skipped with a note, never a failure.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from contract import JOKER
from vision.cards import SURFACE_KINDS, split_code
from vision.errors import EnrolmentError
from vision.imageio import IMAGE_SUFFIXES, read_image
from vision.synth import Source, card_source, render, window_source

NOT_A_CARD = JOKER
# Pictures an operator may save that OpenCV does not read here: named, not passed over.
UNREAD_IMAGES = frozenset({".gif", ".heic", ".heif", ".avif", ".svg", ".pdf"})


def kind_of(file: Path) -> str:
    """A card code, back, cut, empty, joker, or "" for a name that says none of these."""
    stem = file.stem.lower()
    for kind in (*SURFACE_KINDS, NOT_A_CARD):
        if stem.startswith(kind):
            return kind
    parts = split_code(file.stem)
    return parts[0] + parts[1] if parts else ""


def is_whole_face(image: np.ndarray) -> bool:
    """Whether `image` is a whole card face rather than a reading window."""
    return has_transparent_corners(image) or repeats_its_index(image)


def has_transparent_corners(image: np.ndarray) -> bool:
    """A face cut out along its rounded outline: no window shows transparency."""
    if image.ndim == 3 and image.shape[2] == 4:
        return int(image[[0, 0, -1, -1], [0, -1, 0, -1], 3].max()) < 128
    return False


def repeats_its_index(image: np.ndarray) -> bool:
    """Whether the top-left corner is printed again upside down in the opposite corner, as
    every card's index is and as a window's never is, but by chance (a window's corner and
    its card's middle matched 0.73-0.77 in photographed samples; whole faces' at least 0.83)."""
    if image.ndim == 3 and image.shape[2] == 4:
        image = image[:, :, :3]
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape
    if not 1.25 <= h / w <= 1.9:
        return False
    corner = (slice(0, h // 4), slice(0, w // 3))
    top_left = gray[corner].astype(np.float32)
    bottom_right = cv2.rotate(gray, cv2.ROTATE_180)[corner].astype(np.float32)
    if min(float(top_left.std()), float(bottom_right.std())) < 15:  # plain paper: no index
        return False
    score = cv2.matchTemplate(top_left, bottom_right, cv2.TM_CCOEFF_NORMED)
    return float(score.max()) > 0.7


def source_of(image: np.ndarray, *, whole: bool | None = None) -> Source:
    """Where views of a sample are rendered from: the whole face, or the window itself.
    `whole`: what the sample was taken for, if the caller decided it (`read_samples`)."""
    if is_whole_face(image) if whole is None else whole:
        return card_source(image)
    return window_source(image[:, :, :3] if image.ndim == 3 and image.shape[2] == 4 else image)


def sample_window(image: np.ndarray) -> np.ndarray:
    """The nominal reading window of a sample (cut from it if it is a whole face)."""
    return render(source_of(image))


@dataclass
class Samples:
    """What a samples directory holds: sources by class (card codes, back, cut, empty), the
    jokers, and notes on what was skipped."""

    directory: Path
    classes: dict[str, list[Source]] = field(default_factory=dict)
    jokers: list[Source] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    whole_faces: int = 0
    skipped: list[str] = field(default_factory=list)  # file names that say no class

    @property
    def cards(self) -> list[str]:
        return [code for code in self.classes if code not in SURFACE_KINDS]


def read_samples(samples_dir: str | Path) -> Samples:
    directory = Path(samples_dir)
    if directory.is_file():
        raise EnrolmentError(f"{directory}: a file; give the directory of samples it is in")
    if not directory.is_dir():
        raise EnrolmentError(f"{directory}: no such samples directory")
    files = sorted(f for f in directory.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise EnrolmentError(f"{directory}: no sample images (.png, .jpg) in it")
    samples = Samples(directory)
    # A picture in a format not read (an operator's AS.gif) is named, or its card would be
    # said to have no sample with nothing to say why.
    for file in sorted(directory.iterdir()):
        if file.suffix.lower() in UNREAD_IMAGES and kind_of(file.with_suffix(".png")):
            samples.notes.append(f"{file.name}: {file.suffix} is not read ("
                                 f"{', '.join(sorted(IMAGE_SUFFIXES))}): skipped; save it "
                                 "as PNG")
            samples.skipped.append(file.name)
    taken = []
    for file in files:
        kind = kind_of(file)
        if not kind:
            samples.notes.append(f"{file.name}: not a card code (AS, 10H, TD...) nor back*, "
                                 "cut*, empty*, joker*: skipped")
            samples.skipped.append(file.name)
            continue
        image = read_image(file, keep_alpha=True)
        taken.append((file, kind, image, is_whole_face(image)))
    # A directory's card samples are taken one way, as a camera's windows or as a design's
    # artwork: a card whose window only seemed to print its index again in the opposite
    # corner (a gnome-slavic_costumes QH photographed with glare, whose window was then cut
    # from it as from a whole card, a blurred corner of it) is read as the window it is when
    # most of the cards' samples are windows. A face cut out along its outline is one anyway.
    # Only a card: a back's or a joker's artwork (8 of 11 shared backs and every joker pass
    # `repeats_its_index` without their transparency) is cut as a whole face, as ever.
    def card(kind: str) -> bool:
        return kind not in (*SURFACE_KINDS, NOT_A_CARD)

    _check_each_its_own(taken)
    cards = [whole for _, kind, _, whole in taken if card(kind)]
    windows = sum(not whole for whole in cards) > len(cards) / 2
    for file, kind, image, whole in taken:
        if whole and windows and card(kind) and not has_transparent_corners(image):
            whole = False
            samples.notes.append(f"{file.name}: looks like a whole card face (its corner seems "
                                 "printed again in the opposite one), but most cards' samples "
                                 "are reading windows: read as a window like them")
        samples.whole_faces += whole and kind not in SURFACE_KINDS
        source = source_of(image, whole=whole)
        if kind == NOT_A_CARD:
            samples.jokers.append(source)
            samples.notes.append(f"{file.name}: a joker, not a card of the shoe: learned as "
                                 "something to read as unknown (which halts the table)")
        else:
            samples.classes.setdefault(kind, []).append(source)
    # Two files of one card (QS.png and qs.PNG, a copy left beside a retake) are both
    # learned, as a card's several samples are: said, in case one was not meant to be.
    names: dict[str, list[str]] = {}
    for file, kind, _, _ in taken:
        if card(kind):
            names.setdefault(kind, []).append(file.name)
    for kind, files in names.items():
        if len(files) > 1:
            samples.notes.append(f"{kind}: {len(files)} samples ({', '.join(files)}), all "
                                 "learned: remove any not meant to be one")
    return samples


def _check_each_its_own(taken: list) -> None:
    """Refuse two files of different things holding the same picture: a card's sample copied
    from another card, the back or a joker (an operator's trial: 6D.png a copy of 9D.png,
    5H.png the back, enrolled with no word, and a 6D then read as 8D with confidence), or
    the cut card's from the empty window's (the one pair a shoe confuses silently). Each is
    learned as what its file is named: one of the two names is wrong."""
    seen: dict[bytes, tuple[str, str]] = {}
    for file, kind, image, _ in taken:
        key = hashlib.sha256(repr(image.shape).encode() + image.tobytes()).digest()
        if key in seen and seen[key][1] != kind:
            raise EnrolmentError(f"{seen[key][0]} and {file.name} hold the same picture, but "
                                 "name different things: each card needs a picture of its "
                                 "own (one of the two is named wrong)")
        seen.setdefault(key, (file.name, kind))
