"""Vision benchmark: every deck design in shared/decks, read across the camera envelope.

For each design: enrol from its whole faces (plus a solid-colour cut card of a random
colour), then read windows rendered across the whole envelope (`random_perturbation` at
severity 1.0, a fixed seed, never the enrolment images): `--views` per card, and as many
back, cut and empty windows per kind (`--surfaces N` for another number). One row per
design and a total.
`--from recording` enrols each design as a real shoe learns one instead: from a recording
of the deck run through the window in the new-deck order (frames rendered at the
simulator's passage severity, pasted into camera frames, with the card sensor's edges),
cut into samples by `sabot enroll --recording`'s own code.
`--from photos` enrols each design from windows as a camera photographs them instead: one
camera's light and exposure for the whole deck (drawn from the envelope, washed out or with
faint ink half the time each), each card a little off its place, with noise, JPEG and now and
then glare; then reads the whole envelope as from faces. The reader learns what the samples
show, and a camera's reads may be clearer than its samples.
`--invent N` reads N designs invented for the run (`bench.invent`: typefaces, letters,
layouts, colours and backs of no shared design) instead: the reader's figures on designs it
was never developed on.
Run: .venv/bin/python -m bench.vision [--views N] [--seed S] [--severity X]
     [--from recording|photos]
     [--invent N [--invent-seed S]]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import zlib
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from bench.invent import hsv_colour, write_designs
from controller.service.enrol_recording import ORDERS, parse_order, write_recorded_samples
from controller.service.recording import open_recording
from controller.sim.recording import write_synthetic_recording
from vision.cards import ALL_CARDS, split_code
from vision.decks import Deck, decks_root, draw_cut, load_deck
from vision.enrol import enrol
from vision.geometry import WINDOW_SIZE
from vision.imageio import write_image
from vision.reader import Reader
from vision.synth import EMPTY, Perturbation, random_perturbation, render_window
from vision.tuning import tune_for_reading

OTHERS = {"BACK": "back", "CUT": "cut", EMPTY: "empty"}


DEFAULT_SEED = 20261201  # of the views; each design's own is drawn from it (`design_seed`)


def design_seed(seed: int, name: str) -> int:
    """Each design's own seed: the same with or without --only, and the same cut card colour
    in every benchmark that enrols the designs."""
    return seed + zlib.crc32(name.encode()) % 10_000


# A dark cut card's value (HSV, the end left out): about the shoe's interior (`bench.gate`).
DARK_VALUES = (20, 90)


def solid_colour(rng: np.random.Generator) -> tuple[int, int, int]:
    """A cut card's colour: any hue, saturated or dark, never paper white (a white cut card
    is a blank face: see docs/vision.md)."""
    hue = int(rng.integers(0, 180))
    saturation, value = (int(rng.integers(130, 256)), int(rng.integers(60, 256))) \
        if rng.random() < 0.8 else (int(rng.integers(0, 256)), int(rng.integers(*DARK_VALUES)))
    return hsv_colour(hue, saturation, value)


def enrolment_dir(deck_dir: Path, out: Path, cut_colour: tuple[int, int, int]) -> Path:
    """The design's own folder of whole faces, plus a cut card sample of one colour (in
    place of any the folder has: written through its link, it would overwrite the design's)."""
    out.mkdir(parents=True, exist_ok=True)
    for file in deck_dir.glob("*.png"):
        if not file.stem.lower().startswith("cut"):
            (out / file.name).symlink_to(file.resolve())
    cv2.imwrite(str(out / "cut.png"), draw_cut(cut_colour))
    return out


def recorded_dir(deck, has_back: bool, out: Path, seed: int) -> Path:
    """Samples cut from a synthetic recording of `deck` in the new-deck order, with a card
    dealt face up (its back) and the cut card at the end."""
    order = ORDERS["new-deck"] + (" ^AS" if has_back else "") + " CUT"
    window = (40, 30, 128, 200)
    recording = write_synthetic_recording(deck, order.split(), out / "recording", seed=seed,
                                          window=window[:2])
    samples = out / "samples"
    write_recorded_samples(open_recording(recording), parse_order(order), samples, window)
    return samples


def photo_session(rng: np.random.Generator) -> Perturbation:
    """One camera's light and exposure, as an operator photographs a deck's samples with it:
    the envelope's gain, cast, gradient or hotspot, gamma and defocus (at most 0.6 px: a
    photograph taken to be a sample is in focus), a washed-out exposure and faint ink half
    the time each; the card at its nominal place (`photographed`)."""
    p = random_perturbation(rng, 1.0)
    u = rng.uniform
    return replace(p, dx=0.0, dy=0.0, angle=0.0, scale=1.0, keystone=(0.0, 0.0), blur=0,
                   defocus=min(p.defocus, 0.6), noise=0.0, jpeg=0, glare=0.0,
                   washout=float(u(0.1, 0.35)) if rng.random() < 0.5 else 0.0,
                   faint=float(u(0.1, 0.4)) if rng.random() < 0.5 else 0.0,
                   surround="interior", size=WINDOW_SIZE)


def photographed(deck: Deck, code: str, session: Perturbation,
                 rng: np.random.Generator) -> np.ndarray:
    """`code`'s window as photographed in `session`: a little off its place (2 px across,
    3 down, 1.5 degrees, 3% in scale), noise, JPEG, and glare on a quarter of them."""
    u = rng.uniform
    glare = rng.random() < 0.25
    p = replace(session, dx=float(u(-2, 2)), dy=float(u(-3, 3)), angle=float(u(-1.5, 1.5)),
                scale=float(np.exp(u(-0.03, 0.03))), noise=float(u(1, 5)),
                jpeg=int(rng.integers(75, 96)),
                glare=float(u(0.15, 0.4)) if glare else 0.0,
                glare_at=(float(u(0, 1)), float(u(0, 1)), float(u(0.06, 0.2))))
    return render_window(deck, code, p, rng=rng)


def photographed_dir(deck: Deck, has_back: bool, out: Path, seed: int,
                     session: Perturbation | None = None) -> Path:
    """Samples as one camera photographs `deck` (`photo_session`, unless `session` is given):
    every card, the back (if the design has one), the cut card and the empty window."""
    rng = np.random.default_rng(seed)
    session = photo_session(rng) if session is None else session
    out.mkdir(parents=True, exist_ok=True)
    for code in [*ALL_CARDS, *(["BACK"] if has_back else []), "CUT", EMPTY]:
        name = code if code in ALL_CARDS else code.lower()
        write_image(out / f"{name}.png", photographed(deck, code, session, rng))
    return out


def add_design_choice(parser: argparse.ArgumentParser) -> None:
    """--decks and --only, as every per-design benchmark takes them (`chosen_designs`)."""
    parser.add_argument("--decks", type=Path, default=decks_root(),
                        help="designs folder (default: ../shared/decks)")
    parser.add_argument("--only", nargs="*", default=[], metavar="NAME",
                        help="only the designs whose name holds one of these")


def designs_asked(parser: argparse.ArgumentParser) -> tuple[argparse.Namespace, list[Path]]:
    """A per-design benchmark's start: `parser` given `add_design_choice`'s arguments and
    parsed, the reader tuned as a table's, and the designs its arguments name."""
    add_design_choice(parser)
    args = parser.parse_args()
    tune_for_reading()
    return args, chosen_designs(args)


def chosen_designs(args: argparse.Namespace) -> list[Path]:
    """The design folders `add_design_choice`'s arguments name, in name order."""
    return sorted(d for d in args.decks.iterdir() if d.is_dir()
                  and (not args.only or any(part in d.name for part in args.only)))


def enrolled_as_benchmarked(design: Path) -> tuple[Deck, Reader, tuple[int, int, int]]:
    """`design`'s deck with its cut card, and a reader enrolled from its faces, as this
    benchmark does at its default seed (the same cut card colour), and that colour."""
    colour = solid_colour(np.random.default_rng(design_seed(DEFAULT_SEED, design.name)))
    deck = load_deck(str(design))
    deck.cards["CUT"] = draw_cut(colour)
    with tempfile.TemporaryDirectory() as tmp:
        reader = Reader(enrol(enrolment_dir(design, Path(tmp) / "samples", colour)))
    return deck, reader, colour


def _miss(code: str, reading, *, silent: bool) -> str:
    """A window not read as `code`, for `--misses`: what it was read as, and either that the
    error was silent or the reader's reason for `unknown`."""
    return (f"{code} read {reading.card or reading.kind}"
            + (" (silent)" if silent else f" ({reading.reason})"))


def bench_design(deck_dir: Path, views: int, severity: float, seed: int, progress,
                 source: str = "faces", surfaces: int | None = None) -> dict:
    rng = np.random.default_rng(seed)
    cut_colour = solid_colour(rng)
    deck = load_deck(str(deck_dir))
    deck.cards["CUT"] = draw_cut(cut_colour)  # the shoe's cut card is the enrolled one
    has_back = (deck_dir / "back.png").exists()
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        notes: list[str] = []
        if source == "recording":
            samples = recorded_dir(deck, has_back, Path(tmp), seed)
            start = time.perf_counter()  # the enrolment, not the rendering of the recording
        elif source == "photos":
            samples = photographed_dir(deck, has_back, Path(tmp) / "samples", seed + 1)
            start = time.perf_counter()
        else:
            samples = enrolment_dir(deck_dir, Path(tmp) / "samples", cut_colour)
        try:
            reader = Reader(enrol(samples, notes))
        except ValueError as error:
            return {"name": deck_dir.name, "error": str(error)}
        enrol_s = time.perf_counter() - start
    codes = [c for c in ALL_CARDS for _ in range(views)]
    surfaces = views * 2 if surfaces is None else surfaces
    codes += [k for k in OTHERS for _ in range(surfaces) if k != "BACK" or has_back]
    rng.shuffle(codes)
    counts = dict(faces=0, rank_ok=0, suit_ok=0, rejects=0, silent=0,
                  others=0, others_ok=0, empty_times=[], face_times=[], misses=[])
    task = progress.add_task(deck_dir.name, total=len(codes))
    for code in codes:
        window = render_window(deck, code, random_perturbation(rng, severity), rng=rng)
        t0 = time.perf_counter()  # a quarter of the views are of another size: read as they are
        reading = reader.read(window)
        elapsed = time.perf_counter() - t0
        progress.advance(task)
        if code in OTHERS:
            counts["others"] += 1
            counts["others_ok"] += reading.kind == OTHERS[code]
            # Silent too: a cut card read as an empty window (the last coup missed without
            # the card sensor) or an empty window as a cut card, as much as a face.
            wrong = reading.kind not in (OTHERS[code], "unknown")
            counts["silent"] += wrong
            if reading.kind != OTHERS[code]:
                counts["misses"].append(_miss(code, reading, silent=wrong))
            if code == EMPTY:
                counts["empty_times"].append(elapsed)
            continue
        counts["face_times"].append(elapsed)
        rank, suit = split_code(code)  # type: ignore[misc]
        counts["faces"] += 1
        if reading.kind != "face":
            counts["rejects"] += 1
            counts["silent"] += reading.kind in OTHERS.values()  # a face read as a non-face
            counts["misses"].append(_miss(code, reading,
                                          silent=reading.kind in OTHERS.values()))
            continue
        counts["rank_ok"] += reading.rank == rank
        counts["suit_ok"] += reading.suit == suit
        counts["silent"] += reading.card != code
        if reading.card != code:
            counts["misses"].append(_miss(code, reading, silent=True))
    counts.update(name=deck_dir.name, enrol_s=enrol_s, notes=len(notes), back=has_back)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--views", type=int, default=10, help="views per card (default 10)")
    parser.add_argument("--severity", type=float, default=1.0, help="of the envelope (1.0)")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--misses", action="store_true",
                        help="list the silent errors, and the faces, backs, cuts and empties "
                        "not read, with the reader's reason")
    parser.add_argument("--from", dest="source", choices=("faces", "recording", "photos"),
                        default="faces", help="enrol from the design's faces (default), "
                        "from a recording of it run through the shoe, or from windows "
                        "photographed by one camera")
    parser.add_argument("--surfaces", type=int, default=None, metavar="N",
                        help="back, cut and empty windows of each per design (default twice "
                        "--views): their silent errors are a thin tail")
    parser.add_argument("--invent", type=int, default=0, metavar="N",
                        help="read N invented designs (bench.invent) instead of --decks "
                        "(--only still picks among them)")
    parser.add_argument("--invent-seed", type=int, default=1, metavar="S",
                        help="the first invented design's seed (default 1)")
    add_design_choice(parser)
    args = parser.parse_args()
    if args.invent < 0:
        parser.error(f"--invent must be a number of designs, not {args.invent}")
    cv2.setRNGSeed(args.seed)
    tune_for_reading()  # as the service runs it
    with tempfile.TemporaryDirectory() as invented:
        if args.invent:
            args.decks = Path(invented)
            write_designs(args.decks, args.invent, args.invent_seed)
        return _run(args, chosen_designs(args))


def _run(args: argparse.Namespace, designs: list[Path]) -> int:
    rows = []
    with Progress(console=Console(stderr=True), transient=True) as progress:
        for design in designs:  # each design's own seed: the same with or without --only
            seed = design_seed(args.seed, design.name)
            rows.append(bench_design(design, args.views, args.severity, seed, progress,
                                     args.source, args.surfaces))
    table = Table(title=f"reading across the camera envelope (severity {args.severity}, "
                        f"{args.views} views per card, seed {args.seed}, enrolled from "
                        f"{args.source})")
    for column in ("design", "windows", "rank", "suit", "silent", "rejects",
                   "back/cut/empty", "read median", "read p99", "empty median", "enrol"):
        table.add_column(column, justify="left" if column == "design" else "right")
    total = {k: 0 for k in ("faces", "rank_ok", "suit_ok", "silent", "rejects", "others",
                            "others_ok")}
    times: list[float] = []
    empties: list[float] = []
    for row in rows:
        if "error" in row:
            table.add_row(row["name"], "enrolment failed: " + row["error"][:60], *[""] * 9)
            continue
        for key in total:
            total[key] += row[key]
        times += row["face_times"]
        empties += row["empty_times"]
        table.add_row(*_cells(row, row["face_times"], row["empty_times"],
                              f"{row['enrol_s']:.1f} s"))
    table.add_row(*_cells({"name": "total", **total}, times, empties, ""), style="bold")
    Console(width=160).print(table)
    if args.misses:
        for row in rows:
            if row.get("misses"):
                print(f"{row['name']}: " + "; ".join(row["misses"]))
    return 0


def _cells(row: dict, times: list[float], empties: list[float], enrol: str) -> list[str]:
    faces = max(1, row["faces"])
    return [
        row["name"], str(row["faces"] + row["others"]),
        f"{row['rank_ok'] / faces:.2%}", f"{row['suit_ok'] / faces:.2%}", str(row["silent"]),
        f"{row['rejects'] / faces:.2%}", f"{row['others_ok']}/{row['others']}",
        f"{np.median(times) * 1e3:.3f} ms", f"{np.percentile(times, 99) * 1e3:.3f} ms",
        f"{np.median(empties) * 1e3:.3f} ms", enrol,
    ]


if __name__ == "__main__":
    sys.exit(main())
