"""`sabot enroll`: make a deck profile from one sample window per card (DESIGN.md contract)."""

from __future__ import annotations

import sys

from vision.enrol import enrol
from vision.profile import save_profile


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "enroll",
        help="make a deck profile from sample reading windows",
        description="Enrol a deck design and cut card: SAMPLES_DIR holds one image per card "
        "named by its code (AS.png, 10H.png, TD.jpg; all 52 or at least one per rank and one "
        "per suit), either a reading window or a whole card face as the deck's artwork ships "
        "(the window is cut from it), plus back*.png, cut*.png and optionally empty*.png. "
        "Jokers, other file names and a missing back or cut card are noted, not fatal. "
        "Writes the profile (.npz) that `sabot read` and the service use. Exit status 2 on "
        "bad input.",
    )
    parser.add_argument("samples_dir", metavar="SAMPLES_DIR", help="directory of sample images")
    parser.add_argument("--out", required=True, metavar="PROFILE", help="profile file to write")
    parser.set_defaults(func=run)


def run(args) -> int:
    notes: list[str] = []
    profile = enrol(args.samples_dir, notes)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    save_profile(profile, args.out)
    ranks = len(set(profile.rank_labels.tolist()))
    kinds = sorted(set(profile.surface_kinds.tolist()))
    print(
        f"enrolled {len(profile.rank_labels)} faces ({ranks} ranks) and {', '.join(kinds)} "
        f"-> {args.out}",
        file=sys.stderr,
    )
    return 0
