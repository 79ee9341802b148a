"""The views enrolment learns from and holds back: each sample rendered across the camera
envelope (`synth`), and what the models see of each (`_View`).

A sample is one picture of its class, and the reader sees it under every light, pose and
blur the envelope allows: enrolment learns from TRAIN_VIEWS views of each (more of a back,
the cut card, the empty window and a joker, each one sample against 52 cards; the bodies of
cards passing the window; faces with nothing printed, `_blank`), and holds back other views
to set when a reading is trusted (`acceptance`): of the same samples, of the cards sliding
past the window, and of another design's cards. A window sample is rendered clearer than it
was taken too (`_clearer`), never past the washout it shows; an empty window never sampled
is a dark grey interior of a few shades (`_builtin_empty`).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, lru_cache

import cv2
import numpy as np

from contract import JOKER
from vision.cards import ALL_CARDS, BLANK, PASSING, SURFACE_KINDS
from vision.decks import foreign_deck
from vision.features import card_above_window
from vision.geometry import WINDOW_H, WINDOW_W, to_window
from vision.model import (
    blank_of_ink,
    describe,
    kind_vector,
    likeness_vector,
    prepare,
    zone_picture,
)
from vision.register import Registration, card_top, entering
from vision.samples import Samples
from vision.suit import suit_shapes
from vision.synth import Source, card_source, random_perturbation, render, window_source

TRAIN_VIEWS = 40  # envelope views learned per class, besides the nominal one
# A back, the cut card, the empty window and a joker are each one sample against 52 cards:
# they get this many times the views (and a thin tail of their scores is what matters).
NOT_CARD_VIEWS = 4
NOT_CARDS = (*SURFACE_KINDS, JOKER, BLANK, PASSING)
# The surfaces' directions (`acceptance._surface_floor`) are learned from this many more
# glances of each surface sample (with the default views learned; in proportion with fewer),
# numbered from GLANCE_NUMBERS.
SURFACE_GLANCES, GLANCE_NUMBERS = 600, 10_000
# ... and a back, a cut card and an empty window more still, learned and held back: a dark
# cut card and the dark interior can look alike in places of the envelope, and a thin tail
# of their scores against each other is what sets those thresholds.
SURFACE_VIEWS = 6
HELD_SURFACE_VIEWS = 12
# ... and where any was read as another of them, this many times more of those two (with the
# 192 views alone, 2 or 3 in 300 fresh empty windows of a design with a dark brown cut card
# were read as the cut card).
CONFUSED_SURFACE_VIEWS = 36
# ... and of each card of which a held-back view in place was nearest another card's, and of
# that card, this many times more.
CONFUSED_CARD_VIEWS = 2
# Before that, such cards are learned from this many times the views learned more, and
# read back from held views drawn afresh, numbered from this many times the views held (after
# the CONFUSED_CARD_VIEWS more). Of the invented designs whose card floor one held-back
# view had set (`bench.vision --invent`), an ExtraLight sans serif read 85.4% of its faces
# with none more learned, 97.1% with one time more, 98.3% with two; four times read less on
# three of four designs tried, and one made a silent error.
CONFUSED_CARD_LEARNED = 2
FRESH_NUMBERS = 1 + CONFUSED_CARD_VIEWS
SLIDING_VIEWS = 12  # held-back views of each card sliding past the window
PASSING_VIEWS = 8  # learned views of each card's body passing, its index out of the window
PASSED = 150  # window pixels above its place at which a card's index is out of the window
# How far across the camera envelope the cards sliding past (held back, the card stage's
# calibration) and the bodies passing (learned) are drawn. Not across the whole of it, tried
# at stop 61: bodies passing at 1.0 left a vector 3S's lower body in a strong yellow cast
# read as the brown cut card in fewer frames of a slow passage (none of frames 380-420, 12
# before, but some after), and moved the benchmarks both ways (photographed samples 562 ->
# 564 backs, cut cards and empty windows; recorded ones 602 -> 598; one more silent error at
# severity 1.6); the sliding cards at 1.0 too, on four designs, left one face more unread,
# one less, and two cut cards read as a blank face. The tracker tells a body leaving from
# the cut card by the card's top edge instead (`tracker._tail`).
SLIDING_SEVERITY = PASSING_SEVERITY = 0.6
# With fewer views learned (`--views`, "fewer is faster"), the views of cards sliding and
# passing shrink in proportion, to no fewer than this: at 6 views they were nearly half of the
# views rendered.
FEWEST_MOVING = 2
# The share of the views of a window sample rendered clearer than the sample: the
# contrast stretched about white (a washout of -CLEARER at most), which undoes a sample's
# washout of 0.33 or faint ink of 0.33.
CLEARER_SHARE = 0.3
CLEARER = 0.5
CLEARER_SEED = 31
SAMPLE_DARKEST = 1  # percentile of a picture's pixels taken as its darkest (`_darkest_level`)
INTERIOR_CAST = 0.08  # an interior not sampled is dark grey give or take this per channel

Progress = Callable[[int, int], None]  # (done, total)


@dataclass
class _View:
    truth: str  # a class, "joker", or "travel:<code>"
    number: int  # of the views of its source
    window: np.ndarray
    card: np.ndarray  # the card model's vector
    kind: np.ndarray  # the kind model's vector
    pose_score: float
    likeness: np.ndarray  # `model.likeness_vector` of its zone
    no_ink: bool
    card_above: bool  # `features.card_above_window` of its thumbnail
    coming_in: bool  # `register.entering` of its thumbnail
    suit: np.ndarray  # `suit.suit_shapes` of its zone's suit box


def _joint(view: _View) -> np.ndarray:
    """What the one model sees of a view: its index zone and its whole window."""
    return np.concatenate([view.card, view.kind])


def _kind(truth: str) -> str:
    """The kind a class or held-back view is of: face, back, cut, empty, joker, blank."""
    if truth.startswith(("travel:", "foreign:")):
        return "face"
    return truth if truth in NOT_CARDS else "face"


class _Counter:
    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress, self.total, self.done = progress, total, 0

    def tick(self) -> None:
        self.done += 1
        if self.progress is not None and self.done % 25 == 0:
            self.progress(min(self.done, self.total), self.total)

    def finish(self) -> None:
        if self.progress is not None:
            self.progress(self.total, self.total)


def moving_views(full: int, views: int) -> int:
    """`full` views of cards sliding or passing (the count with TRAIN_VIEWS learned) for
    `views` learned: in proportion below TRAIN_VIEWS, at least FEWEST_MOVING; never more."""
    if views >= TRAIN_VIEWS:
        return full
    return max(FEWEST_MOVING, round(full * views / TRAIN_VIEWS))


def _view_count(samples: Samples, views: int, held: int) -> int:
    """How many views `_views` renders in its two passes (the progress bar's total)."""
    cards = sum(len(samples.classes[code]) for code in samples.cards)
    surfaces = sum(len(samples.classes.get(kind, ())) for kind in SURFACE_KINDS)
    others = sum(len(s) for s in samples.classes.values()) - cards + len(samples.jokers)
    blanks = len(samples.cards[::13])
    foreign = len(ALL_CARDS)
    # Learned: each sample's nominal view and `views` (times its repeat) of the envelope.
    learned = ((cards + NOT_CARD_VIEWS * (others - surfaces + blanks)
                + SURFACE_VIEWS * surfaces) * views + cards + others + blanks)
    # Held back: `held` (times its repeat), two of each foreign card, and a blank of each.
    held_back = ((cards + NOT_CARD_VIEWS * (others - surfaces) + HELD_SURFACE_VIEWS * surfaces)
                 * held + 3 * foreign)
    moving = (moving_views(SLIDING_VIEWS, views) + moving_views(PASSING_VIEWS, views) + 1) * cards
    return learned + held_back + moving


def _views(samples: Samples, count: int, rng: np.random.Generator, counter: _Counter,
           registration: Registration, *, travel: bool = False,
           learned: int = TRAIN_VIEWS) -> list[_View]:
    """`count` envelope views of every sample (the nominal one first, unless `travel`: then
    the views are held back, and views of each card sliding past the window are added);
    `learned`: the views learned per card, which the cards sliding and passing follow."""
    jobs: list[tuple[str, Source]] = [(name, source) for name, sources in samples.classes.items()
                                      for source in sources]
    jobs += [(JOKER, source) for source in samples.jokers]
    if travel:
        # Cards of a design that was not enrolled (the built-in one in another typeface),
        # every one: held back two of every other card, a profile of the vector design's
        # windows read the built-in design's 9H, never held back, as its 2H at 0.82 (its
        # card stage's floor 0.79; `tests/vision/test_reading.py`, stop 56).
        foreign = foreign_deck()
        jobs += [(f"foreign:{code}", card_source(foreign.image(code))) for code in ALL_CARDS]
    else:
        # Faces with nothing printed on them, learned as something that is not a card: a
        # cut card is told from them by its colour alone.
        jobs += [(BLANK, _blank(samples.classes[code][0])) for code in samples.cards[::13]]
    out = []
    for name, source in jobs:
        repeat = NOT_CARD_VIEWS if name in NOT_CARDS else 1
        if name in SURFACE_KINDS:
            repeat = HELD_SURFACE_VIEWS if travel else SURFACE_VIEWS
        number = 2 if name.startswith("foreign:") else count * repeat + (0 if travel else 1)
        for k in range(number):
            nominal = k == 0 and not travel
            out.append(_envelope_view(name, k, source, rng, registration, nominal,
                                      held=travel))
            counter.tick()
        if travel and name not in NOT_CARDS:
            # The card with nothing printed on it: looks like no card at all.
            out.append(_view(BLANK, 0, render(_blank(source), random_perturbation(rng),
                                                rng=rng), registration))
            counter.tick()
        if name in NOT_CARDS or name.startswith("foreign:"):
            continue
        span = min(source.travel_span, WINDOW_H) if source.extend else source.travel_span
        if travel:
            # The card sliding past: its index entering, leaving, partly out of the window.
            for k in range(moving_views(SLIDING_VIEWS, learned)):
                # Most where the index is partly out of the window: where a glyph cut in half
                # may look like another.
                low, high = (-span, WINDOW_H * 0.9) if k % 3 == 0 else (-PASSED, WINDOW_H * 0.9)
                travel_px = rng.uniform(low, high)
                if abs(travel_px) < 15:
                    travel_px = 15.0 if travel_px >= 0 else -15.0
                window = render(source, random_perturbation(rng, SLIDING_SEVERITY),
                                travel=travel_px, rng=rng)
                out.append(_view(f"travel:{name}", k, window, registration))
                counter.tick()
        else:
            # The card's body passing the window, its index gone: learned as not a card.
            for k in range(moving_views(PASSING_VIEWS, learned)):
                window = render(source, random_perturbation(rng, PASSING_SEVERITY),
                                travel=rng.uniform(-span, -PASSED), rng=rng)
                out.append(_view(PASSING, k, window, registration))
                counter.tick()
    return out


def _envelope_view(name: str, number: int, source: Source, rng: np.random.Generator,
                   registration: Registration, nominal: bool = False, *,
                   held: bool = False) -> _View:
    """One view of `source` across the whole envelope (or the nominal one); `held`: a view
    held back to calibrate, never learned."""
    return _view(name, number, _envelope_window(name, number, source, rng, nominal, held),
                 registration)


def _envelope_window(name: str, number: int, source: Source, rng: np.random.Generator,
                     nominal: bool, held: bool) -> np.ndarray:
    """The window of `_envelope_view`."""
    p = random_perturbation(rng, 0.0 if nominal else 1.0)
    if name == "empty":
        # Faint ink is the print's, not the shoe's: rendered with it, the dark interior was
        # learned pale grey as well, like a washed-out dark cut card.
        p = replace(p, faint=0.0)
    elif source.extend and not nominal and (clearer := _clearer(name, number, held, source)):
        # A card photographed washed out or in faint ink (a window sample, a camera's) is
        # read clearer in a better-lit shoe: its views must reach that far too. Samples of
        # the gnome-orell design photographed washed out had clean red cards read as 9H,
        # and gnome-dondorf's dark brown cut card, seen clearer than photographed, as the
        # empty window (`bench.vision --from photos`); a whole face, as the artwork ships,
        # is already as clear as a card gets.
        p = replace(p, washout=-clearer, faint=0.0)
    if source is _builtin_empty() and not nominal:
        # Nobody sampled this shoe's interior: it may be browner or bluer than grey. Learned
        # and held back as grey only, an interior a little warmer (a shoe's, and the
        # simulator's) was read as a dark brown cut card in 3 of 100 fresh windows.
        interior = 1.0 + rng.uniform(-INTERIOR_CAST, INTERIOR_CAST, 3)
        p = replace(p, tint=tuple(float(t) for t in np.multiply(p.tint, interior)))
    return render(source, p, rng=rng)


@cache
def _builtin_empty() -> Source:
    """A flat dark window: the shoe interior when no empty sample was captured (its views
    are of interiors of other dark shades as well: `_envelope_view`)."""
    return window_source(np.full((WINDOW_H, WINDOW_W, 3), 30, np.uint8))


def _surface_glances(samples: Samples, count: int, rng: np.random.Generator,
                     counter: _Counter) -> tuple[np.ndarray, list[str]]:
    """The glances (`kind_vector`) of `count` more envelope views of each back, cut card
    and empty window sample, for the surfaces' directions alone (`kind_pairs`): a glance
    costs a tenth of a whole view, and two hundred views of each surface left the
    direction between a dark cut card and the interior a third too short."""
    jobs = [(name, source) for name in SURFACE_KINDS for source in samples.classes.get(name, ())]
    counter.total += len(jobs) * count
    glances, names = [], []
    for name, source in jobs:
        for k in range(count):
            window = _envelope_window(name, GLANCE_NUMBERS + k, source, rng, False, False)
            glances.append(kind_vector(prepare(to_window(window, averaged=True))))
            names.append(name)
            counter.tick()
    return np.array(glances, np.float32).reshape(len(names), -1), names


def _clearer(name: str, number: int, held: bool, source: Source) -> float:
    """How much clearer than its sample `source` view `number` of class `name` is rendered
    (0 for most: CLEARER_SHARE of them), learned or `held` back (each its own: a held-back
    view as clear as the learned view of its number would calibrate on what was learned);
    a back's, a cut card's or a blank face's never beyond the washout its sample shows
    (`_washout_shown`).
    Drawn apart from the views' own generator, so that every view is otherwise the one it
    was before clearer views were added."""
    draw = np.random.default_rng((CLEARER_SEED, zlib.crc32(name.encode()), number, held))
    if draw.random() >= CLEARER_SHARE:
        return 0.0
    clearer = float(draw.uniform(0.0, CLEARER))
    if name not in (*SURFACE_KINDS, BLANK):
        # A card's sample may be faint in its ink alone, its darkest (the interior about the
        # card) as dark as ever: bounded by that, gnome-dondorf's photographed cards lost
        # their clearer views, and 3.65% of its faces went unread (0.38% with them). A face
        # with nothing printed has no ink to be faint.
        return clearer
    return clearer * min(1.0, _washout_shown(source) / CLEARER)


@lru_cache(maxsize=128)  # a Source hashes by identity: one entry per sample
def _washout_shown(source: Source) -> float:
    """The most a view of the window sample `source` may be made clearer: the washout
    (as `Perturbation.washout`, negated) that would bring its darkest (`_darkest_level`)
    down to black. Made clearer than that, its own dark colours are crushed to black,
    which no exposure of the envelope does: a recorded dark brown cut card was held back as
    black as the empty shoe, and the design's empty windows were left unread
    (`bench.vision --from recording`, stop 56)."""
    darkest = _darkest_level(source.image[:, :, :3]) / 255
    return darkest / max(1.0 - darkest, 1e-6)


def _darkest_level(picture: np.ndarray) -> float:
    """A BGR picture's darkest grey level: the SAMPLE_DARKEST percentile of each pixel's
    darkest channel (so that red ink counts)."""
    return float(np.percentile(picture.min(axis=2), SAMPLE_DARKEST))


def _more_card_views(samples: Samples, cards: set[str], held: int, rng: np.random.Generator,
                     registration: Registration, counter: _Counter) -> list[_View]:
    """CONFUSED_CARD_VIEWS times `held` more held-back views of each of `cards`, numbered
    after the `held` views each first had (a card learned again has its fresh held-back
    views after these: FRESH_NUMBERS)."""
    return _more_views(samples, cards, held, held * CONFUSED_CARD_VIEWS, rng, registration,
                       counter, held=True)


def _more_views(samples: Samples, names: set[str], first: int, count: int,
                rng: np.random.Generator, registration: Registration, counter: _Counter, *,
                held: bool = False) -> list[_View]:
    """`count` more views of each of the classes `names`, numbered from `first` (after
    those already rendered of them, learned or held back as `held`: `_envelope_view`)."""
    jobs = [(name, source) for name in sorted(names) for source in samples.classes.get(name, ())]
    counter.total += len(jobs) * count
    out = []
    for name, source in jobs:
        for k in range(count):
            out.append(_envelope_view(name, first + k, source, rng, registration, held=held))
            counter.tick()
    return out


def _blank(source: Source) -> Source:
    """`source` with its ink painted over in its paper's colour."""
    image = source.image.copy()
    gray = cv2.cvtColor(image[:, :, :3], cv2.COLOR_BGR2GRAY)
    on_card = image[:, :, 3] > 128
    bright = on_card & (gray >= np.percentile(gray[on_card], 60))
    paper = np.median(image[:, :, :3][bright], axis=0)
    # A whole face is painted all over; a window sample wherever it shows card.
    painted = ~_surround_of(gray, float(np.median(gray[bright]))) if source.extend else on_card
    image[painted, :3] = paper
    return Source(image, source.to_window, source.extend)


def _surround_of(gray: np.ndarray, paper: float) -> np.ndarray:
    """Where a window sample shows the surround past its card's top and left edges: the
    pixels darker than halfway from its darkest to its `paper`, joined to the window's top
    or left border (a card in place shows it there; its ink lies inside the card, apart).
    Painted wherever paper lay within reach (as the ink map finds it), a window sample's
    blank was a flat field of paper, the surround painted over too: its views made clearer
    than the sample came out as dark and flat as the empty shoe, and gnome-atlasnye's
    photographed empty windows were read as a face with nothing printed (8 of 20,
    `bench.vision --from photos`, stop 57)."""
    darkest = float(np.percentile(gray, SAMPLE_DARKEST))
    dark = (gray < (darkest + paper) / 2).astype(np.uint8)
    _, labels = cv2.connectedComponents(dark, connectivity=4)
    edge = np.union1d(labels[0, :], labels[:, 0])
    return np.isin(labels, edge[edge > 0])


def _view(truth: str, number: int, window: np.ndarray, registration: Registration) -> _View:
    window = to_window(window, averaged=True)
    prepared = prepare(window)
    top = card_top(prepared.small, prepared.small_gray)
    pose = registration.locate(prepared.ink, top)
    zone = zone_picture(prepared, pose)
    return _View(truth, number, window, describe(prepared, pose, zone), kind_vector(prepared),
                 pose.score, likeness_vector(zone), blank_of_ink(prepared),
                 card_above_window(prepared.small, prepared.small_gray),
                 entering(top),
                 suit_shapes(prepared.ink, [pose], registration.suit_box)[0])
