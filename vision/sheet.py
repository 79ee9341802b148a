"""The enrolment contact sheet: what was enrolled, and the held-back views it got wrong or
would not read, for the operator to look at (`sabot enroll --sheet PNG`)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from contract import JOKER
from vision.cards import ALL_CARDS, BLANK
from vision.errors import EnrolmentError
from vision.geometry import WINDOW_H, WINDOW_W
from vision.imageio import write_image

TILE = (WINDOW_W // 2, WINDOW_H // 2)  # each window at half size
COLUMNS = 13
LABEL_H = 14
MAX_PROBLEMS = 52


def _tile(window: np.ndarray, label: str, colour: tuple[int, int, int]) -> np.ndarray:
    tile = cv2.resize(window, TILE, interpolation=cv2.INTER_AREA)
    band = np.full((LABEL_H, TILE[0], 3), 255, np.uint8)
    cv2.putText(band, label[:12], (2, LABEL_H - 3), cv2.FONT_HERSHEY_SIMPLEX, 0.33, colour, 1,
                cv2.LINE_AA)
    return np.vstack([tile, band])


def _grid(tiles: list[np.ndarray]) -> np.ndarray:
    blank = np.full_like(tiles[0], 255)
    while len(tiles) % COLUMNS:
        tiles.append(blank)
    rows = [np.hstack(tiles[i : i + COLUMNS]) for i in range(0, len(tiles), COLUMNS)]
    return np.vstack(rows)


def _title(text: str, width: int) -> np.ndarray:
    band = np.full((24, width, 3), 255, np.uint8)
    cv2.putText(band, text, (4, 17), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    return band


def misread(enrolment, most: int | None = None,
            progress=lambda done, total: None) -> list[tuple[object, str, str]]:
    """The held-back views (`acceptance.HeldOut`) the enrolled profile reads wrong or does not
    read, as (view, truth, what was read), at most `most` of them. Not those whose right
    reading is no card: a card sliding past or a face with nothing printed read as unknown
    or the empty window, a joker as unknown (a stop 34 sheet of gnome-berlin showed 49 such
    blank faces of its 52 tiles, and the 4 views that needed looking at). `progress(done,
    total)` is called as the views are read: they are thousands, and take as long as half
    the enrolment (a trial, stop 52, waited 38 s with nothing shown)."""
    from vision.reader import Reader  # noqa: PLC0415 - the sheet reads as the reader does

    reader = Reader(enrolment.profile)
    found = []
    total = len(enrolment.held_out)
    for done, held in enumerate(enrolment.held_out):
        if done % 64 == 0:
            progress(done, total)
        if most is not None and len(found) == most:
            break
        reading = reader.read(held.window)
        said = reading.card or reading.kind
        truth = held.truth_card if held.truth_kind == "face" else held.truth_kind
        no_card = ("unknown", "empty") if held.sliding or held.truth == BLANK else (
            ("unknown",) if held.truth == JOKER else ())
        if said != truth and said not in no_card:
            found.append((held, truth, said))
    return found


def problem_label(truth: str, said: str) -> str:
    """A held-back view's label: what it shows, and what it was read as when read wrong. Not
    read (orange) says so by its colour: "empty>unknown" was cut to "empty>unkno" (a tile
    holds 12 characters)."""
    return truth if said == "unknown" else f"{truth}>{said}"


def sheet_order(names) -> list[str]:
    """The enrolled classes as the sheet shows them: the cards a suit a row (13 columns) in
    rank order, ace first, then the rest as they came (a samples folder's file names put
    10C before 2C, and the aces after the nines)."""
    rank = {code: k for k, code in enumerate(ALL_CARDS)}
    return sorted(names, key=lambda name: rank.get(name, len(rank)))


def write_sheet(enrolment, path: str | Path, progress=lambda done, total: None) -> Path:
    """A PNG: every enrolled class's nominal window, then up to MAX_PROBLEMS held-back views
    that were read wrong (red: the reading) or not accepted (orange). `progress`: `misread`'s."""
    enrolled = _grid([_tile(enrolment.nominal[name], name, (0, 0, 0))
                      for name in sheet_order(enrolment.nominal)])
    problems = [_tile(held.window, problem_label(truth, said),
                      (0, 140, 255) if said == "unknown" else (0, 0, 220))
                for held, truth, said in misread(enrolment, MAX_PROBLEMS, progress)]
    width = enrolled.shape[1]
    more = f" (the first {MAX_PROBLEMS})" if len(problems) == MAX_PROBLEMS else ""
    heading = f"held-back views read wrong (red) or not read (orange): {len(problems)}{more}"
    parts = [_title("enrolled (nominal windows)", width), enrolled, _title(heading, width)]
    if problems:
        parts.append(_grid(problems))
    out = Path(path)
    if not write_image(out, np.vstack(parts)):
        raise EnrolmentError(f"{out}: cannot write the sheet (is it a .png path?)")
    return out
