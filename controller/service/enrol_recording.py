"""Enrolment samples from a recording: one fresh deck run through the shoe in a known order.

Each card passage of the recording (`vision.passages`) is paired with the next item of the
order, and its frame at the nominal position becomes that item's sample: a reading window
named by what it shows (`AS.png`, `back-1.png` for a card dealt face up, `cut-1.png`,
`joker-1.png`), plus a few windows between passages (`empty-N.png`). The samples directory
is then enrolled as any other. A count that does not match is an error that says both
counts: pairing the wrong card with a passage would teach the reader a wrong card.

The order is written in the `sabot deal` language (card codes, `^` before a card dealt face
up, `CUT`, `JOKER`), or named: NEW_DECK is how a fresh deck comes from the factory in the
common US order, spread face up (spades A-K, diamonds A-K, clubs K-A, hearts K-A).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from contract import JOKER
from controller.errors import InputError
from controller.game import observations as obs
from controller.game.cards import RANKS
from controller.game.script import parse_script
from controller.service.recording import Recording
from vision.geometry import crop_window, to_window
from vision.imageio import read_image, write_image
from vision.passages import looks_like_card, nominal_view, passages

_ASCENDING, _DESCENDING = " ".join(RANKS), " ".join(reversed(RANKS))
NEW_DECK = " ".join(
    " ".join(rank + suit for rank in ranks.split())
    for suit, ranks in (("S", _ASCENDING), ("D", _ASCENDING), ("C", _DESCENDING),
                        ("H", _DESCENDING)))
ORDERS = {
    "new-deck": NEW_DECK,
    "new-deck-reversed": " ".join(reversed(NEW_DECK.split())),
    "by-suit": " ".join(rank + suit for suit in "SHDC" for rank in RANKS),
}
EMPTY_SAMPLES = 4
_NAMED = re.compile(r"(?<!\S)(?:" + "|".join(sorted(map(re.escape, ORDERS), key=len,
                                                      reverse=True)) + r")(?!\S)")


@dataclass(frozen=True)
class Item:
    name: str  # the sample's file stem: a card code, back-N, cut-N, joker-N
    token: str
    line: int


def parse_order(text_or_name: str) -> list[Item]:
    """The items of an order: a name from ORDERS, a file in the deal language, or the
    tokens themselves. Errors name the token and its place."""
    if text_or_name in ORDERS:
        text, source = ORDERS[text_or_name], f"order {text_or_name}"
    elif Path(text_or_name).is_file():
        source = text_or_name
        text = Path(text_or_name).read_text(encoding="utf-8", errors="replace")
    elif any(c.isspace() for c in text_or_name.strip()):
        text, source = text_or_name, "--order"
    else:
        raise InputError(f"--order {text_or_name!r}: not a file nor one of "
                         f"{', '.join(ORDERS)} (or give the tokens themselves)")
    # A named order among tokens stands for its cards: "new-deck ^KD CUT" is a fresh deck,
    # then a card dealt face up and the cutting card (an operator's trial: the procedure's
    # face-up card and cut card could only be enrolled by typing the 52 cards).
    text = _NAMED.sub(lambda named: ORDERS[named.group(0)], text)
    items, counts, seen = [], {"back": 0, "cut": 0, JOKER: 0}, {}
    # Only what passes the camera: a trial (stop 61) was offered NMB, ACK and the rest.
    for step in parse_script(text, source, words="CUT JOKER; cards like AS 10H Td, ^ before "
                             f"a card dealt face up; or {', '.join(ORDERS)}"):
        o = step.observation
        if isinstance(o, obs.Card) and not o.face_up:
            if o.card in seen:
                raise InputError(f"{source}, line {step.line}: {o.card} comes twice (first "
                                 f"on line {seen[o.card]}): enrol one deck at a time")
            seen[o.card] = step.line
            items.append(Item(o.card, step.token, step.line))
            continue
        kind = ("back" if isinstance(o, obs.Card) else "cut" if isinstance(o, obs.Cut)
                else JOKER if isinstance(o, obs.Unreadable) and o.reason == JOKER else "")
        if not kind:
            raise InputError(f"{source}, line {step.line}, column {step.column}: "
                             f"{step.token!r} is not something that passes the camera (a card, "
                             "^card for one dealt face up, CUT, JOKER)")
        counts[kind] += 1
        items.append(Item(f"{kind}-{counts[kind]}", step.token, step.line))
    if not items:
        raise InputError(f"{source}: the order is empty")
    return items


def write_recorded_samples(recording: Recording, items: list[Item], out: Path,
                           window: tuple[int, int, int, int] | None,
                           progress: Callable[[int, int], None] | None = None) -> list[str]:
    """Cut the samples of `recording` into `out`; returns notes for the operator.
    `progress(done, total)` is told of each frame read (most of the time: a deck's
    recording is thousands of frames)."""
    windows = []
    for done, frame in enumerate(recording.frames, 1):
        windows.append(_window(frame.file, window))
        if progress is not None:
            progress(done, len(recording.frames))
    flags = recording.sensor_flags()
    found = passages(windows, flags)
    told = "the card sensor" if flags is not None else "paper filling the window"
    if len(found) != len(items):
        raise InputError(
            f"{recording.directory}: {len(found)} card passages found (told by {told}), but "
            f"the order has {len(items)} items: the recording must show exactly the order, "
            "one card at a time (write JOKER for a joker that went through, ^ before a card "
            f"dealt face up, CUT for the cutting card); {_suspects(found, len(items))}")
    out.mkdir(parents=True, exist_ok=True)
    for item, passage in zip(items, found, strict=True):
        try:
            _, sample = nominal_view([windows[i] for i in passage])
        except ValueError as error:
            if item.name[:1].isalpha() and "-" in item.name:
                # A back, cut card or joker may be too dark to show its edge against the
                # surround; its look does not depend on where it sits: the passage's middle.
                sample = windows[passage[len(passage) // 2]]
                write_image(out / f"{item.name}.png", sample)
                continue
            raise InputError(f"{recording.directory}: the passage of frames "
                             f"{passage.start}-{passage.stop - 1} ({item.token}, line "
                             f"{item.line} of the order): {error}") from None
        write_image(out / f"{item.name}.png", sample)
    empties = _empty_frames(windows, found)
    for n, index in enumerate(empties, start=1):
        write_image(out / f"empty-{n}.png", windows[index])
    notes = [f"{len(found)} passages found in {len(windows)} frames (told by {told})"]
    if not empties:
        notes.append("no frame without a card between the passages: the empty window is "
                     "learned from rendered views only")
    return notes


def _window(file: Path, window: tuple[int, int, int, int] | None):
    frame = read_image(file)
    if window is not None:
        x, y, w, h = window
        if x + w > frame.shape[1] or y + h > frame.shape[0]:
            raise InputError(f"{file}: the reading window {list(window)} runs past the "
                             f"frame ({frame.shape[1]} x {frame.shape[0]})")
        frame = crop_window(frame, window)
    return to_window(frame, averaged=True)


SUSPECTS = 3  # passages a count that is wrong names, beyond the difference


def _suspects(found: list[range], items: int) -> str:
    """Where to look when the passages are more or fewer than the order's items: the
    shortest passages (a card seen as two, a flicker), or the longest (two cards seen as
    one), by their frames (an operator's trial, stop 48: 57 passages for 55 cards, and no
    frame named)."""
    if not found:
        return "no frame shows a card"
    more = len(found) > items
    named = sorted(found, key=len, reverse=not more)[:abs(len(found) - items) + SUSPECTS]
    listed = ", ".join(f"{r.start}-{r.stop - 1} ({len(r)} frames)"
                       for r in sorted(named, key=lambda r: r.start))
    return (f"the {'shortest' if more else 'longest'} passages, by frame: {listed} (a card "
            f"{'seen as two, or a flicker' if more else 'and the next seen as one'}?)")


def _empty_frames(windows: list, found: list[range]) -> list[int]:
    """Up to EMPTY_SAMPLES frames between passages that do not look like card, spread over
    the recording: the middle frame of each gap, farthest from the cards on either side (a
    frame just after a passage may still show the edge of the card leaving)."""
    bounds = [0, *(edge for passage in found for edge in (passage.start, passage.stop)),
              len(windows)]
    gaps = [range(bounds[k], bounds[k + 1]) for k in range(0, len(bounds) - 1, 2)]
    free = [gap[len(gap) // 2] for gap in gaps if len(gap) > 0
            and not looks_like_card(windows[gap[len(gap) // 2]])]
    if len(free) <= EMPTY_SAMPLES:
        return free
    step = len(free) / EMPTY_SAMPLES
    return [free[int(k * step)] for k in range(EMPTY_SAMPLES)]
