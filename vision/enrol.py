"""Enrolment: a samples directory -> the `Profile` of one deck design and cut card.

What is learned, all from the samples (`vision.samples`) and views of them rendered across
the camera envelope (`vision.views`, by `vision.synth`), nothing from any one design's layout:
1. where the index zone is (`register`): templates of the design's own zones; and where in
   it the design prints its suit (`suit.learn_box`);
2. what each class looks like there (`model`): every card code sampled, the back, the cut
   card, the empty window; TRAIN_VIEWS views of each, and more of the cards of which a
   held-back view was read as another card (CONFUSED_CARD_LEARNED); and the four suits
   where they are printed (`suit.SuitCheck`);
3. when to trust a reading (`acceptance`): HELD_VIEWS other views of each class, views of the
   cards sliding past the window and of the jokers, none of them learned from, are read; the
   acceptance thresholds are set just above the best-scoring reading among those that came
   out wrong (and that the reader's checks after the card stage would not leave unknown
   with room to spare: `nearby`, `acceptance._left_unknown`), so none of them would have been
   accepted, and what that costs in rejected right readings is reported. The held-back
   views of the cards learned again are drawn afresh, so no view that chose what to learn
   sets a threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.acceptance import POSE_SHARE, HeldOut, _calibrate, _read
from vision.cards import ALL_CARDS, BLANK, SURFACE_KINDS, SURFACE_NAMES, split_code
from vision.contrast import RETAKE, restore_contrast, unwash_surfaces
from vision.decks import draw_cut
from vision.errors import EnrolmentError
from vision.features import card_edges, stroke_share, thumbnail
from vision.fit import fit_warnings
from vision.gate import EmptyGate, gate_vector, learn_gate
from vision.geometry import to_window
from vision.model import (
    Model,
    Pairs,
    blank_of_ink,
    colour_of_joint,
    kind_weights,
    learn_pairs,
    pairs_of,
    prepare,
    unit,
)
from vision.profile import MOST_EDGES, STAGES, Profile
from vision.register import Registration, learn_templates, zone_of
from vision.samples import Samples, read_samples
from vision.suit import SuitCheck, learn_box, learn_suit_check
from vision.synth import card_source, render
from vision.views import (
    CONFUSED_CARD_LEARNED,
    CONFUSED_SURFACE_VIEWS,
    FRESH_NUMBERS,
    HELD_SURFACE_VIEWS,
    NOT_CARDS,
    SURFACE_GLANCES,
    TRAIN_VIEWS,
    Progress,
    _builtin_empty,
    _Counter,
    _darkest_level,
    _joint,
    _kind,
    _more_card_views,
    _more_views,
    _surface_glances,
    _View,
    _view_count,
    _views,
)

HELD_VIEWS = 16  # views per class read to calibrate the acceptance, never learned
SEED = 20261201


@dataclass
class Enrolment:
    """The profile and what enrolment found on the way (for the operator and the sheet)."""

    profile: Profile
    notes: list[str] = field(default_factory=list)
    held_out: list[HeldOut] = field(default_factory=list)
    nominal: dict[str, np.ndarray] = field(default_factory=dict)
    gate_share: float = 0.0  # of the held-back empty windows, those the gate lets through
    suit_stopped: int = 0  # held-back cards read wrong that the suit check stops
    # Of the backs, cut cards and empty windows held back, the share of each read as it.
    surfaces_read: dict[str, float] = field(default_factory=dict)
    # The cards a held-back view took for another, learned again from more views.
    relearned: tuple[str, ...] = ()
    # Of the cards' samples, those that were whole card faces (their window cut here): a
    # window `sabot calibrate` sets is no remedy for them.
    whole_faces: int = 0


def enrol(samples_dir: str | Path, notes: list[str] | None = None, **options) -> Profile:
    """The profile of the design in `samples_dir`; skipped files and doubts go to `notes`."""
    result = enrolment(samples_dir, **options)
    if notes is not None:
        notes.extend(result.notes)
    return result.profile


def _drawn_cut(samples: Samples, colour: tuple[int, int, int]) -> str:
    """Learn the cut card as a plain card of `colour` (BGR); the note that says so. Refused
    beside a picture of one: which of the two is the shoe's cannot be told."""
    if "cut" in samples.classes:
        raise EnrolmentError(f"{samples.directory}: has a picture of the cut card already "
                             "(cut*.png): give either it or a cut card colour, not both")
    samples.classes["cut"] = [card_source(draw_cut(colour))]
    blue, green, red = colour
    return f"the cut card: a plain card of #{red:02x}{green:02x}{blue:02x}, drawn"


# Whole faces never show what this shoe's camera sees with no card in front of it. Measured
# with the dark grey assumed instead, over a wood surround 3 of 5 empty windows were read as
# a brown cut card (a last coup called with none drawn, on a shoe without a card sensor).
NO_EMPTY_NOTE = ("no empty*.png sample: the empty shoe is taken to be dark grey. If this "
                 "shoe's camera sees anything else with no card (a lit lip, the table), an "
                 "empty window may read as unknown or, where it looks like the cut card or "
                 "the back, as that: add a picture of the empty window (`sabot enroll "
                 "--recording` takes one from the recording)")


def enrolment(samples_dir: str | Path, *, views: int = TRAIN_VIEWS, held: int | None = None,
              progress: Progress | None = None,
              cut_colour: tuple[int, int, int] | None = None) -> Enrolment:
    """`views` learned per card (three times that of the cards a held-back view took for
    one another: CONFUSED_CARD_LEARNED); `held` read back per card to calibrate (by default
    HELD_VIEWS, fewer when fewer views are learned); `cut_colour` (BGR): the shoe's cut card
    is a plain card of this colour, for samples that have no picture of it."""
    held = min(HELD_VIEWS, max(4, views // 2)) if held is None else held
    samples = read_samples(samples_dir)
    _check_complete(samples)
    notes = list(samples.notes)
    if cut_colour is not None:
        notes.append(_drawn_cut(samples, cut_colour))
    # Each read as unknown halts the table: say when, as the joker's note does.
    halts = {"back": "at every card dealt face up", "cut": "at every shoe's cut card"}
    for kind in ("back", "cut"):
        if kind not in samples.classes:
            notes.append(f"no {kind}*.png sample: a {SURFACE_NAMES[kind]} will read as "
                         f"unknown, which halts the table {halts[kind]}: add a picture of "
                         f"the shoe's {SURFACE_NAMES[kind]}")
    if "empty" not in samples.classes:
        notes.append(NO_EMPTY_NOTE)
    cards = tuple(samples.cards)
    # Said of the samples as taken, then learned from them brought back to a card's contrast;
    # the back, cut card and empty window taken by the same camera brought back as much (not
    # the dark grey assumed for an empty window never sampled: it is no photograph).
    darkest = _darkest(samples, cards)
    washed = _washed_out_note(darkest)
    if washed:
        notes += washed + unwash_surfaces(samples.classes, darkest)
    samples.classes.setdefault("empty", [_builtin_empty()])
    notes += restore_contrast(samples.classes, cards, samples.jokers, advise=not washed)
    nominal = {name: render(sources[0]) for name, sources in samples.classes.items()}
    for code in cards:
        notes += fit_warnings(code, nominal[code])
    _check_inked(samples, nominal, cards)
    zones = {code: zone_of(prepare(nominal[code]).ink) for code in cards}
    registration = Registration(learn_templates(np.stack(list(zones.values()))),
                                learn_box(zones))
    counter = _Counter(progress, _view_count(samples, views, held))

    learned = _views(samples, views, np.random.default_rng(SEED), counter, registration,
                     learned=views)
    taught = _learn_cards(learned, cards)
    kinds = tuple(k for k in ("face", *NOT_CARDS)
                  if k == "face" or any(_kind(v.truth) == k for v in learned))
    # Every card teaches the kind "face", but a few views each are plenty.
    for_kinds = [v for v in learned if v.truth not in cards or v.number % 5 == 0]
    kind_model = Model.learn(np.stack([v.kind for v in for_kinds]),
                             np.array([kinds.index(_kind(v.truth)) for v in for_kinds]), kinds,
                             discriminate=False, weights=kind_weights())
    # Every view, those nearest another kind's too (`Model.learn` drops them for reading):
    # a dark cut card like the shoe's interior is what the surfaces' directions are for.
    glances, glanced = _surface_glances(samples,
                                        SURFACE_GLANCES * min(views, TRAIN_VIEWS) // TRAIN_VIEWS,
                                        np.random.default_rng(SEED + 2), counter)
    kind_pairs = pairs_of(
        kind_model.embed(np.vstack([np.stack([v.kind for v in for_kinds]), glances])),
        np.array([kinds.index(_kind(v.truth)) for v in for_kinds]
                 + [kinds.index(name) for name in glanced]), len(kinds), len(kinds) - 1)
    held_rng = np.random.default_rng(SEED + 1)

    def read_back(views: list[_View], taught: _Cards) -> list[HeldOut]:
        return [_read(v, taught.model, kind_model, kind_pairs, taught.likeness, taught.suits,
                      registration) for v in views]

    held_views = _views(samples, held, held_rng, counter, registration, travel=True,
                        learned=views)
    held_out = read_back(held_views, taught)
    hard = _confused_cards(held_out)
    if hard:
        # Cards of which a held-back view was nearest another card's: their views lie far
        # apart across the envelope, and a fresh view may land nearer the other card's.
        # More of their views are learned, and the cards are read back from held-back views
        # drawn afresh, so that no view that chose what to learn sets a threshold.
        learned += _more_views(samples, hard, views + 1, CONFUSED_CARD_LEARNED * views,
                               np.random.default_rng(SEED + 3), registration, counter)
        taught = _learn_cards(learned, cards)
        held_views = [v for v in held_views if v.truth not in hard] + _more_views(
            samples, hard, FRESH_NUMBERS * held, held, held_rng, registration, counter,
            held=True)
        held_out = read_back(held_views, taught)
    card_model, likeness, suits, pairs = taught.model, taught.likeness, taught.suits, taught.pairs
    confused = _confused_surfaces(held_out)
    if confused:  # their thresholds are set by a thin tail: see more of it
        # Drawn as before stop 38 (held=False: a window sample's clearer views as the learned
        # ones of those numbers); drawn as held views, `--from photos` would move, unmeasured.
        held_out += read_back(_more_views(samples, confused, HELD_SURFACE_VIEWS * held,
                                          held * CONFUSED_SURFACE_VIEWS, held_rng,
                                          registration, counter), taught)
        notes.append(f"the {' and the '.join(SURFACE_NAMES[k] for k in sorted(confused))} look "
                     "alike in some held-back views (a cut card about the colour of the "
                     "shoe's interior?): such views may be read as unknown, and the table halts "
                     "rather than guess; a cut card of another colour avoids it")
    # Cards told apart by little (a small suit, blurred) set the card stage's thresholds by
    # a thin tail too.
    held_out += read_back(_more_card_views(samples, _confused_cards(held_out), held, held_rng,
                                           registration, counter), taught)
    accept = _calibrate(held_out, notes, pairs, taught.classes)
    gate, gate_share = _learn_gate(learned, held_out)
    counter.finish()
    card = accept["pair"]  # the card stage's figures, with the pairs' rescues
    profile = Profile(
        templates=registration.templates, suit_box=np.float32(registration.suit_box),
        suit_mean=suits.mean, suit_scale=suits.scale, suit_low=suits.low, suit_high=suits.high,
        suit_pair_index=suits.pairs.index, suit_pair_directions=suits.pairs.directions,
        suit_pair_middles=suits.pairs.middles, suit_pair_halves=suits.pairs.halves,
        kind_pair_index=kind_pairs.index, kind_pair_directions=kind_pairs.directions,
        kind_pair_middles=kind_pairs.middles, kind_pair_halves=kind_pairs.halves,
        **_model_arrays("card", card_model), **_model_arrays("kind", kind_model),
        thresholds={stage: (accept[stage].score, accept[stage].margin) for stage in STAGES},
        pose_floor=accept["pose_floor"], likeness=likeness,
        likeness_floor=accept["likeness_floor"], likeness_floors=accept["likeness_floors"],
        pair_index=pairs.index,
        pair_directions=pairs.directions, pair_middles=pairs.middles, pair_halves=pairs.halves,
        held_views=card.views, held_accepted=card.accepted, held_wrong=card.wrong,
        separation=card.separation, gate_mean=gate.mean, gate_whiten=gate.whiten,
        gate_others=gate.others, gate_reach=gate.reach, gate_clearance=gate.clearance,
        surface_strokes=_stroke_ceilings([*learned, *held_out]),
        empty_edges=_edge_ceiling([*learned, *held_out]),
    )
    return Enrolment(profile, notes, held_out, nominal, gate_share, accept["suit"].wrong,
                     {kind: accept[f"surface:{kind}"].accepted for kind in SURFACE_KINDS
                      if accept[f"surface:{kind}"].views},
                     tuple(code for code in cards if code in hard), samples.whole_faces)


# The cut card and the empty window are read with no more of the window in dark strokes
# than STROKE_ROOM times the most of any of their views learned or held back, and
# STROKE_SPARE more: 1,000 fresh views of plain cut cards of 50 colours showed at most
# 0.78% inside the envelope and 0.86% at severity 1.6 of it (a review's 16,000 at 1.0: two
# over 1%, 1.05% and 1.21%, glare at the window's edge beside the card's; their views at
# enrolment mostly none), and the faces the card model took for a cut card at 1.6 1.8-3.9%
# (`bench.vision --severity 1.6`).
STROKE_ROOM, STROKE_SPARE = 2.0, 0.01
# A back is a picture, strokes and all (its views 0-45% of the window on the shared
# designs): no ceiling. Held to one, photographed back samples, whose views are no sharper
# than the photograph, left two sharper backs of `--from photos` unread.
PLAIN_SURFACES = ("cut", "empty")


def _stroke_ceilings(views: list) -> np.ndarray:
    """Per SURFACE_KINDS, the share of a window in strokes it is read with (`Profile.
    surface_strokes`); 1 for the back and for a kind without views (the reader never names
    it)."""
    ceilings = []
    for kind in SURFACE_KINDS:
        shares = ([stroke_share(v.window) for v in views if v.truth == kind]
                  if kind in PLAIN_SURFACES else [])
        ceilings.append(min(1.0, STROKE_ROOM * max(shares) + STROKE_SPARE) if shares else 1.0)
    return np.float32(ceilings)


# The empty window is read with its edges stepping no more than EDGE_ROOM times the most of
# any of its views learned or held back, and EDGE_SPARE more (`features.card_edges`): the
# empty windows of 300 fresh views stepped by 0.13 at the most (a glare blob at the left
# edge), the cut cards of four shared designs by 0.17-0.67 at the median. A shoe whose own
# empty window shows an edge (its lip, a table's) has it in its empty sample's views, and
# its ceiling is that much higher.
EDGE_ROOM, EDGE_SPARE = 1.5, 0.05


def _edge_ceiling(views: list) -> float:
    """The most the empty window's edges step with which it is read (`Profile.
    empty_edges`), of its `views` among `views`; the most there is without any."""
    steps = [float(card_edges(thumbnail(v.window)).max()) for v in views if v.truth == "empty"]
    return min(MOST_EDGES, EDGE_ROOM * max(steps) + EDGE_SPARE) if steps else MOST_EDGES


@dataclass(eq=False)
class _Cards:
    """What enrolment learns of the cards from its learned views (`_learn_cards`)."""

    model: Model  # the one model of every card and every other thing a window may show
    classes: tuple[str, ...]
    likeness: np.ndarray  # each card's mean `likeness_vector`
    pairs: Pairs  # the close cards' directions
    suits: SuitCheck


def _learn_cards(learned: list[_View], cards: tuple[str, ...]) -> _Cards:
    """The card model, likeness, close pairs and suit check of the `learned` views.

    A view whose index zone was hardly found (glared out, pushed off the window) shows
    nothing of its card: learned, it would be the nearest view of every blank window."""
    found = [v for v in learned if v.truth in cards]
    floor = POSE_SHARE * float(np.percentile([v.pose_score for v in found], 5))
    found = [v for v in found if v.pose_score >= floor or v.number == 0]
    likeness = np.stack([unit(np.mean([v.likeness for v in found if v.truth == code], axis=0))
                         for code in cards]).astype(np.float32)
    # One model tells every card and every other thing a window may show apart.
    others = tuple(k for k in NOT_CARDS if any(v.truth == k for v in learned))
    classes = cards + others
    shown = found + [v for v in learned if v.truth in others]
    model = Model.learn(np.stack([_joint(v) for v in shown]),
                        np.array([classes.index(v.truth) for v in shown]), classes,
                        keep=colour_of_joint(len(shown[0].card)))
    suits = learn_suit_check(np.stack([v.suit for v in found]),
                             [split_code(v.truth)[1] for v in found])  # type: ignore[index]
    return _Cards(model, classes, likeness, learn_pairs(model, len(cards)), suits)


def _learn_gate(learned: list[_View], held_out: list[HeldOut]) -> tuple[EmptyGate, float]:
    """The empty-window gate (`vision.gate`) of the learned empty windows, kept away from
    every other view enrolment rendered, learned or held back, but for those the reader may
    read as empty at no cost (a blank face, a card sliding past: nothing to read there); and
    the share of the held-back empty windows it lets through."""
    def vectors(windows: list[np.ndarray]) -> np.ndarray:
        return np.array([gate_vector(thumbnail(to_window(w))) for w in windows]).reshape(-1, 6)

    empty = vectors([v.window for v in learned if v.truth == "empty"])
    others = vectors([v.window for v in learned if v.truth not in ("empty", BLANK)])
    held = vectors([h.window for h in held_out
                    if h.truth not in ("empty", BLANK) and not h.sliding])
    gate = learn_gate(empty, others, held)
    passed = [gate.passes(thumbnail(to_window(h.window))) for h in held_out
              if h.truth == "empty"]
    return gate, float(np.mean(passed)) if passed else 0.0


def _model_arrays(prefix: str, model: Model) -> dict:
    return {f"{prefix}_mean": model.mean, f"{prefix}_projection": model.projection,
            f"{prefix}_views": model.views, f"{prefix}_labels": model.labels,
            f"{prefix}_classes": np.array(model.classes), f"{prefix}_low": model.low,
            f"{prefix}_high": model.high}


def _confused_surfaces(held_out: list[HeldOut]) -> set[str]:
    """The backs, cut cards and empty windows of which a held-back view was read as another
    of them (before any threshold)."""
    return {kind for h in held_out if h.truth in SURFACE_KINDS and h.card in SURFACE_KINDS
            and h.card != h.truth for kind in (h.truth, h.card)}


def _confused_cards(held_out: list[HeldOut]) -> set[str]:
    """The cards of which a held-back view in place (not sliding past) was nearest another
    card's views, and those cards (before any threshold)."""
    return {code for h in held_out if h.truth_card in ALL_CARDS and h.card in ALL_CARDS
            and h.card != h.truth_card and not h.sliding for code in (h.truth_card, h.card)}


WASHED_OUT = 60  # grey level: the darkest of a camera's samples lifted above it is washed out


def _darkest(samples: Samples, cards) -> float | None:
    """The darkest of the cards' samples taken by a camera (windows, not whole faces): the
    shoe's interior and the ink, each pixel's darkest channel (so that red ink counts), the
    median over the cards of each one's darkest percent. None without such samples."""
    windows = [render(samples.classes[code][0]) for code in cards
               if samples.classes[code][0].extend]
    if not windows:
        return None
    return float(np.median([_darkest_level(w) for w in windows]))


def _washed_out_note(darkest: float | None) -> list[str]:
    """A note when the cards' samples taken by a camera look washed out: their darkest
    (`_darkest`) lifted well above black. Enrolment learns views clearer than the samples
    too, but a sample washed out has lost what no view gets back."""
    if darkest is None or darkest <= WASHED_OUT:
        return []
    return [f"the card samples look washed out (their darkest is grey {darkest:.0f}, where a "
            f"shoe's interior and its ink are near black): {RETAKE}"]


def _check_inked(samples: Samples, nominal: dict[str, np.ndarray], cards) -> None:
    """A card whose sample shows no ink at all (an empty frame cut from a recording, a blank
    file) would teach the reader that an empty window is that card: refused, naming it."""
    blank = [code for code in cards if blank_of_ink(prepare(nominal[code]))]
    if blank:
        raise EnrolmentError(f"{samples.directory}: the sample of {', '.join(blank)} shows no "
                             "index at all (no ink in the window): give a sample that shows "
                             "the card, or record the deck again")


def _check_complete(samples: Samples) -> None:
    """Every card of the deck must be sampled: each is a class of its own (its pips and art
    are part of how it is told from the others), and a card never sampled would be read as
    the nearest one that was."""
    missing = [code for code in ALL_CARDS if code not in samples.classes]
    if missing:
        listed = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more"
                                            if len(missing) > 12 else "")
        # The files skipped for their names are the likeliest missing cards (ASpades.png):
        # their notes are not printed when enrolment stops here.
        skipped = (f"; skipped, a name that is no card code or a picture in a format not "
                   f"read: {', '.join(samples.skipped[:6])}"
                   + (f" and {len(samples.skipped) - 6} more" if len(samples.skipped) > 6
                      else "") if samples.skipped else "")
        raise EnrolmentError(f"{samples.directory}: no sample of {listed} (every one of the "
                             f"52 cards needs one{skipped})")
