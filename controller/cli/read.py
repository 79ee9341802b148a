"""`sabot read`: read reading-window images with a deck profile (DESIGN.md contract)."""

from __future__ import annotations

import json
import sys
from math import ceil

from rich.console import Console
from rich.table import Table

from controller.errors import InputError
from vision.geometry import WINDOW_H, WINDOW_W
from vision.imageio import read_image
from vision.profile import load_profile
from vision.reader import Reader
from vision.samples import is_whole_face, sample_window
from vision.tuning import tune_for_reading


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "read",
        help="read reading-window images",
        description="Read each IMAGE (a reading window) with PROFILE: face (card, rank, "
        "suit), back, cut, empty, or unknown for anything not read with confidence. A whole "
        "card face, as `sabot enroll` takes one, has its window cut from it first (a note "
        "says so). Exit status 2 on a missing or unreadable image or profile, or an image "
        "smaller than a quarter of the window (128 x 200) each way.",
    )
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="window image files")
    parser.add_argument("--profile", required=True, metavar="PROFILE",
                        help="profile made by `sabot enroll`")
    parser.add_argument("--json", action="store_true", help="one JSON object per image")
    parser.set_defaults(func=run)


def run(args) -> int:
    tune_for_reading()
    reader = Reader(load_profile(args.profile))
    # Read every file first, so that a bad one fails the command before any output.
    readings = [(path, reader.read(_window(path))) for path in args.images]
    if args.json:
        for path, reading in readings:
            # An unknown says why (a joker, a blank face, not sure of what): the keys of a
            # reading the contract names are all there, as they always were.
            why = {"note": reading.reason} if reading.kind == "unknown" else {}
            print(json.dumps({"image": path, **reading.as_dict(), **why}))
        return 0
    table = Table("image", "kind", "card", "score", "note")
    table.columns[0].overflow = "fold"
    for path, reading in readings:
        table.add_row(path, reading.kind, reading.card or "-", f"{reading.score:.2f}",
                      reading.reason)
    Console().print(table)
    return 0


# A window smaller than this share of the nominal size each way shows no index to read: a
# 1 x 1 image, resized, is one even colour, and was read as the empty shoe with confidence.
LEAST_SHARE = 0.25
# A window's width over its height is about the nominal window's: a camera's whole frame (4:3,
# 16:9) is not one, and its index, if any, is a small part of it.
ASPECT_REACH = 1.5


def _window(path: str):
    """The reading window in the image at `path`: the image itself, or, for a whole card
    face (a new user's first try: read one of the faces just enrolled), the window cut from
    it as enrolment cuts it (read as a window, a whole face looked like a blank one)."""
    image = read_image(path, keep_alpha=True)
    if is_whole_face(image):
        print(f"note: {path}: a whole card (a face or a back, as a deck's artwork ships); its "
              "reading window is cut from it as `sabot enroll` cuts it", file=sys.stderr)
        return sample_window(image)
    height, width = image.shape[:2]
    if width < LEAST_SHARE * WINDOW_W or height < LEAST_SHARE * WINDOW_H:
        raise InputError(f"{path}: {width} x {height} px, too small to be a reading window "
                         f"(nominal {WINDOW_W} x {WINDOW_H}; at least "
                         f"{ceil(LEAST_SHARE * WINDOW_W)} x {ceil(LEAST_SHARE * WINDOW_H)})")
    aspect = (width / height) / (WINDOW_W / WINDOW_H)
    if not 1 / ASPECT_REACH <= aspect <= ASPECT_REACH:
        print(f"note: {path}: {width} x {height} px is not a reading window's shape (about "
              f"{WINDOW_W} x {WINDOW_H}): read as one all the same, squeezed to it. A whole "
              "camera frame? `sabot calibrate` finds the window in one, and `sabot run` cuts "
              "it from every frame", file=sys.stderr)
    return read_image(path)  # as a window has always been read (a 16-bit one scaled so)
