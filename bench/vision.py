"""Vision benchmark: accuracy and speed of reading perturbed windows, and shoe tracking.

For each deck design (the shared public-domain deck and the built-in synthetic one): enrol
from nominal samples, then read windows rendered with random perturbations (fixed seed;
never the enrolment images) and a shuffled shoe sliding through the window.
Run: .venv/bin/python -m bench.vision [--faces N] [--seed S]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter

import cv2
import numpy as np
from rich.console import Console
from rich.progress import Progress

from vision.cards import ALL_CARDS, split_code
from vision.decks import load_deck, synthetic_deck
from vision.enrol import enrol
from vision.events import CardSeen, CutCard
from vision.reader import Reader
from vision.synth import random_perturbation, render_window, shoe_frames, write_samples
from vision.tracker import Tracker

NON_FACES = {"BACK": "back", "CUT": "cut", "EMPTY": "empty", "JOKER": "unknown",
             "BLANK": "unknown"}


def bench_windows(deck, reader, faces: int, rng, progress) -> dict:
    codes = [ALL_CARDS[i % 52] for i in range(faces)] + list(NON_FACES) * (faces // 25)
    rng.shuffle(codes)
    counts = dict(rank_ok=0, suit_ok=0, card_ok=0, rejects=0, silent=0, faces=0,
                  others=0, others_ok=0)
    cpu_times, wall_times = [], []
    reasons: Counter[str] = Counter()
    task = progress.add_task(f"{deck.name}: windows", total=len(codes))
    for code in codes:
        perturbation = random_perturbation(rng)
        window = render_window(deck, code, perturbation, rng=rng)
        nominal_size = window.shape[:2] == (200, 128)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        reading = reader.read(window)
        if nominal_size:
            cpu_times.append(time.process_time() - cpu_start)
            wall_times.append(time.perf_counter() - wall_start)
        progress.advance(task)
        if code in NON_FACES:
            counts["others"] += 1
            counts["others_ok"] += reading.kind == NON_FACES[code]
            counts["silent"] += reading.kind == "face"
            continue
        rank, suit = split_code(code)
        counts["faces"] += 1
        if reading.kind != "face":
            counts["rejects"] += 1
            reasons[f"{code}: {reading.reason}"] += 1
            continue
        counts["rank_ok"] += reading.rank == rank
        counts["suit_ok"] += reading.suit == suit
        counts["card_ok"] += reading.card == code
        counts["silent"] += reading.card != code
    for name, times in (("cpu", cpu_times), ("wall", wall_times)):
        counts[f"{name}_median_ms"] = float(np.median(times) * 1e3)
        counts[f"{name}_p99_ms"] = float(np.percentile(times, 99) * 1e3)
    counts["timed"] = len(cpu_times)
    counts["reasons"] = reasons.most_common(6)
    return counts


def bench_shoe(deck, reader, decks: int, rng, progress) -> dict:
    codes = list(np.repeat(np.array(ALL_CARDS), decks))
    rng.shuffle(codes)
    codes.insert(len(codes) * 3 // 4, "CUT")
    expected = [c if c != "CUT" else "CUT" for c in codes]
    results = {}
    for mode in ("sensor", "image-only"):
        task = progress.add_task(f"{deck.name}: shoe, {mode}", total=len(codes) * 26)
        tracker = Tracker(reader)
        events = []
        frames = shoe_frames(deck, codes, np.random.default_rng(int(rng.integers(1 << 30))))
        for frame, present in frames:
            events += tracker.feed(frame, card_present=present if mode == "sensor" else None)
            progress.advance(task)
        events += tracker.flush()
        got = [e.card if isinstance(e, CardSeen) else "CUT" if isinstance(e, CutCard)
               else "?" for e in events]
        wrong = sum(g not in ("?", e) for g, e in zip(got, expected, strict=False))
        results[mode] = dict(cards=len(codes), events=len(events), exact=got == expected,
                             unreadable=got.count("?"), wrong=wrong)
    return results


def bench_render(decks: int, seed: int, progress) -> tuple[int, float]:
    """(frames, CPU seconds) to render a whole shoe of `decks` synthetic decks + cut card,
    as `sabot simulate` does."""
    codes = [*np.repeat(np.array(ALL_CARDS), decks), "CUT"]
    deck = synthetic_deck()
    task = progress.add_task(f"render a {decks}-deck shoe", total=len(codes) * 26)
    start, frames = time.process_time(), 0
    for _ in shoe_frames(deck, codes, np.random.default_rng(seed)):
        frames += 1
        progress.advance(task)
    return frames, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=int, default=2600, help="face windows per design")
    parser.add_argument("--decks", type=int, default=1, help="decks in the tracked shoe")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    cv2.setRNGSeed(args.seed)
    report = []
    progress_bar = Progress(console=Console(stderr=True), transient=True)
    with progress_bar as progress, tempfile.TemporaryDirectory() as tmp:
        for deck in (load_deck(), synthetic_deck()):
            reader = Reader(enrol(write_samples(deck, f"{tmp}/{deck.name}")))
            rng = np.random.default_rng(args.seed)
            windows = bench_windows(deck, reader, args.faces, rng, progress)
            shoe = bench_shoe(deck, reader, args.decks, rng, progress)
            report.append((deck.name, windows, shoe))
        frames, seconds = bench_render(8, args.seed, progress)
    for name, w, shoe in report:
        faces = w["faces"]
        print(f"== {name}: {faces} face windows + {w['others']} back/cut/empty/joker/blank")
        print(f"  rank accuracy   {w['rank_ok'] / faces:.4%}  ({w['rank_ok']}/{faces})")
        print(f"  suit accuracy   {w['suit_ok'] / faces:.4%}  ({w['suit_ok']}/{faces})")
        print(f"  rejects         {w['rejects'] / faces:.4%}  ({w['rejects']} faces read unknown)")
        if w["reasons"]:
            print("  most rejected   " + "; ".join(f"{r} (x{n})" for r, n in w["reasons"]))
        print(f"  silent errors   {w['silent']}  (a wrong card, or a non-face read as a face)")
        print(f"  non-face kinds  {w['others_ok']}/{w['others']} right")
        print(f"  CPU per read    median {w['cpu_median_ms']:.3f} ms, p99 {w['cpu_p99_ms']:.3f} ms"
              f"  ({w['timed']} windows of 128x200)")
        print(f"  wall per read   median {w['wall_median_ms']:.3f} ms, "
              f"p99 {w['wall_p99_ms']:.3f} ms")
        for mode, s in shoe.items():
            print(f"  shoe ({mode:10}) {s['cards']} cards -> {s['events']} events, "
                  f"exact order: {s['exact']}, unreadable {s['unreadable']}, wrong {s['wrong']}")
    print(f"== rendering: an 8-deck shoe (416 cards + cut, synthetic design), {frames} frames "
          f"in {seconds:.2f} s CPU ({seconds / frames * 1e3:.3f} ms per frame)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
