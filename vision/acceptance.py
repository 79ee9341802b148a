"""When to trust a reading: the acceptance thresholds of each stage of reading, set on
views that enrolment never learned from.

Enrolment (`enrol`) holds back views of every class (`views`: other views across the camera
envelope, cards sliding past the window, jokers, another design's cards) and reads each with
the models it learned, as the reader would (`_read`, a `HeldOut`). The thresholds of each
stage are set, in the reader's order and each on what the stages before it let through
(`_calibrate`), just above the best-scoring reading among those that came out wrong, so that
none of them would have been accepted; what that costs in rejected right readings is what an
`Acceptance` reports. A wrong reading that the reader's checks after the card stage would
leave unknown with room to spare (`nearby`, `_left_unknown`), or that the suit check stops,
sets no threshold of the card stage. A back, the cut card or the empty window may also be
read along the glance's directions (`_surface_floor`); `_surface_read` says what the reader
makes of a held-back view as far as those go.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from contract import JOKER
from vision.cards import (
    ALL_CARDS,
    BLANK,
    COUNTERPART,
    FACE_SIDES,
    PASSING,
    SURFACE_KINDS,
    SURFACE_PLURALS,
    split_code,
)
from vision.model import (
    PAIR_RIVALS,
    Model,
    Pairs,
    counterpart_lead,
    describe,
    glance_of,
    prepare,
    ranked,
    surface_asked,
)
from vision.nearby import STEP, Rival, rivals_nearby
from vision.profile import SIDE_STAGE
from vision.register import Registration, card_top
from vision.suit import SuitCheck
from vision.views import _joint, _kind, _View

# The acceptance thresholds sit this far above the best wrong reading of the held-back views.
SAFETY_SCORE, SAFETY_MARGIN = 0.03, 0.02
# ... and never below these (a design whose held-back views all read right still needs a
# reading to look like its class, and to stand out from the next). By stage: the kind
# model's similarities, over whole windows, run lower; at 0.5 a washed-out cut card was
# taken for the empty window at a glance with 0.66 (bench.vision, gnome-tigullio). A card's
# body passing at a glance (or a face's side: SIDE_STAGE) is never read as anything (it is
# `unknown`, and only with the card reaching above the window), so its floor is lower: at
# 0.7, a third of the bodies of a simulated shoe's passages, at 0.56-0.7 and leading, were
# read in full to the same end.
MIN_SCORE = {"card": 0.75, "kind": 0.7, PASSING: 0.55}
MIN_MARGIN = 0.04
# A card told from its close rivals by their pairs' directions (`model.Pairs`) must lead each
# by this many half-distances, and by this much more than any held-back view read wrong.
MIN_LEAD, SAFETY_LEAD = 0.3, 0.2
# The suit check's floor lies this far below the least lead of a held-back card read right
# (in half-distances between two suits' means, as SAFETY_LEAD); NO_SUIT_FLOOR where no card
# was: a floor no suit falls below.
SAFETY_SUIT, NO_SUIT_FLOOR = 0.2, -1000.0
SUIT_SHARES = (0.25, 0.5, 1.0, 2.0)  # percentiles of those leads tried as the floor too
# A held-back card read wrong that the reader's checks after the card stage would leave
# unknown sets no threshold of it, but only where they would with this much to spare: a
# close card's own direction putting it on that card's side by SAFETY_CONTRARY (in
# half-distances, as SAFETY_LEAD), another card scoring above it two steps away or at the
# next scale by SAFETY_DOUBT (`nearby`; as SAFETY_MARGIN).
SAFETY_CONTRARY, SAFETY_DOUBT = 0.1, 0.02
# ... and both only where the reader would ask with room to spare too: of a close card
# within PAIR_RIVALS less SAFETY_MARGIN of it, and at the next scale where its coarse match
# came within half the reach that has the reader look there (`Registration.next_scale`).
NEXT_SCALE_SPARE = 0.5
# A card is learned and read only where its index zone was found at least this well: this
# share of the low percentile of the cards' views (a blank window matches nowhere well).
POSE_SHARE = 0.8
LIKENESS_SHARE = 0.8  # the same for how much the zone looks like the card read
LIKENESS_LEAST = 0.5  # a card's own likeness floor is at least this share of the design's
# The surfaces' directions (`_surface_floor`): a window the one model names a back, the cut
# card or the empty window with too little lead over the next class is read where the
# glance's directions put it this far (in half-distances) beyond every held-back view of
# anything else, and at least MIN_SURFACE_LEAD on its side of each other kind. A kind the
# design has no sample of is never read this way (the reader finds it no lead at all);
# its stage keeps NO_SURFACE_LEAD.
SAFETY_SURFACE, MIN_SURFACE_LEAD, NO_SURFACE_LEAD = 0.2, 0.0, 99.0


@dataclass(eq=False)
class HeldOut:
    """One held-back view as the enrolled models read it."""

    truth: str  # a class, "joker", "travel:<code>" (sliding past), "foreign:<code>"
    window: np.ndarray
    kind: str  # what the kind model read, with its score and margin
    kind_score: float
    kind_margin: float
    side_lead: float  # a face's side's lead over every other kind (`model.glance_of`)
    card: str  # what the card model read, with its score and margin
    card_score: float
    card_margin: float
    pose_score: float  # how well the index zone was found
    likeness: float  # how much the zone looks like the card read (`model.likeness_vector`)
    no_ink: bool  # `model.blank_of_ink`
    card_above: bool  # `features.card_above_window`: a passing card at a glance may be trusted
    coming_in: bool  # `register.entering`: the reader does not look for its index
    embedded: np.ndarray  # in the card model's space, and every class's score there
    scores: np.ndarray
    suit_lead: float  # of the suit of the card read, by its box (`suit.SuitCheck.lead`)
    # Of each back, cut card and empty window the design has: its least lead over every
    # other kind along their two's direction in the glance's space (`Pairs.least_lead`).
    surface_leads: dict[str, float]
    # Of a view the card model reads as another card: the other cards that match best with
    # its index zone put a little elsewhere (`nearby.rivals_nearby`); () for the others.
    rivals: tuple[Rival, ...] = ()
    # Of a view the card model reads as the cut card or the empty window, or as a face's
    # side with the glance reading one of the two (`model.surface_asked`): its lead over the
    # other of the two along their own direction (`model.counterpart_lead`); None otherwise.
    counterpart: float | None = None

    @property
    def truth_kind(self) -> str:
        return _kind(self.truth)

    @property
    def truth_card(self) -> str:
        """The card a view shows: its class, or that of a card sliding past or of another
        design (which may be read as that card, never as another)."""
        return self.truth.split(":")[-1]

    @property
    def sliding(self) -> bool:
        """A card sliding past, or a card of another design: it is fine read as empty or
        unknown, and as the card it is, but as nothing else."""
        return self.truth.startswith(("travel:", "foreign:"))


@dataclass(frozen=True)
class Acceptance:
    """Thresholds for one stage of reading and what they cost on the held-back views."""

    score: float
    margin: float
    views: int  # held-back views of the stage's own classes
    accepted: float  # share of those read right and accepted
    wrong: int  # of those, read wrong at all (before the thresholds)
    separation: float  # 1st percentile of right scores minus the best wrong score

    def accepts(self, score: float, margin: float) -> bool:
        return score >= self.score and margin >= self.margin


def _read(view: _View, card_model: Model, kind_model: Model, kind_pairs: Pairs,
          likeness: np.ndarray, suits: SuitCheck, registration: Registration) -> HeldOut:
    kind, kind_score, kind_margin, side_lead = glance_of(kind_model, view.kind)
    glanced = kind_model.embed(view.kind)
    embedded = card_model.embed(_joint(view))
    scores = card_model.scores_of(embedded)
    card, card_score, card_margin, _ = ranked(card_model, scores)
    number = card_model.classes.index(card)
    alike = float(likeness[number] @ view.likeness) if number < len(likeness) else 0.0
    code = split_code(card)
    held = HeldOut(view.truth, view.window, kind, kind_score, kind_margin, side_lead, card,
                   card_score, card_margin, view.pose_score, alike, view.no_ink,
                   view.card_above, view.coming_in, embedded, scores,
                   suits.lead(view.suit, code[1]) if code else -np.inf,
                   {k: kind_pairs.least_lead(glanced, kind_model.classes.index(k),
                                             len(kind_model.classes))
                    for k in SURFACE_KINDS if k in kind_model.classes},
                   counterpart=counterpart_lead(kind_pairs, kind_model.classes, glanced,
                                                surface_asked(card, kind)))
    if code and card != held.truth_card:  # the reader's last check, as it makes it
        prepared = prepare(view.window)
        found = registration.find(prepared.ink, card_top(prepared.small, prepared.small_gray))
        pose = found.pose
        other = registration.next_scale(prepared.ink, found.order, spare=NEXT_SCALE_SPARE,
                                        refined=found.refined)
        elsewhere = (None if other is None
                     else np.concatenate([describe(prepared, other), view.kind]))
        held.rivals = tuple(rivals_nearby(card_model, prepared, pose, _joint(view), elsewhere,
                                          number))
    return held


MARGINS = np.round(np.arange(MIN_MARGIN, 0.8, 0.01), 3)


def _thresholds(wrong: np.ndarray, right: np.ndarray, own: int, min_score: float,
                what: str, notes: list[str], *, between: bool = True,
                left_unknown: np.ndarray | None = None) -> Acceptance:
    """The (score, margin) pair under which none of the `wrong` (score, margin) readings
    would be accepted and the most `right` ones are. `between`: nor any reading between
    two wrong ones (`_worst_at`); without it, only the corners of the wrong ones count.
    `left_unknown`: per wrong reading, whether a later stage leaves it unknown anyway
    (`_left_unknown`): such a reading sets no threshold."""
    wrong, right = wrong.reshape(-1, 2), right.reshape(-1, 2)
    frontier = _frontier(wrong if left_unknown is None else wrong[~left_unknown])
    best: tuple[int, float, float] = (-1, 1.0, 1.0)
    for margin in MARGINS:
        worst = _worst_at(frontier, margin - SAFETY_MARGIN, between=between)
        score = max(min_score, worst + SAFETY_SCORE if worst is not None else 0)
        accepted = int(np.sum((right[:, 0] >= score) & (right[:, 1] >= margin)))
        if accepted > best[0]:
            best = (accepted, score, float(margin))
    accepted, score, margin = best
    share = accepted / max(1, own)
    worst = float(wrong[:, 0].max()) if len(wrong) else 0.0
    separation = float(np.percentile(right[:, 0], 1)) - worst if len(right) else 0.0
    if own and round(share, 3) < 0.99:  # as it is shown: "only 99.0%" is not below 99%
        notes.append(f"only {share:.1%} of the held-back views of {what} are read with "
                     "confidence: more or better samples, or a better-placed window, would help")
    return Acceptance(score, margin, own, share, own - len(right), separation)


def _frontier(wrong: np.ndarray) -> np.ndarray:
    """The wrong (score, margin) readings no other wrong one beats in both, by margin."""
    ordered = wrong[np.lexsort((-wrong[:, 0], -wrong[:, 1]))]  # margin, then score, falling
    highest = np.maximum.accumulate(ordered[:, 0]) if len(ordered) else ordered[:, 0]
    keep = np.r_[True, highest[1:] > highest[:-1]] if len(ordered) else np.zeros(0, bool)
    return ordered[keep][::-1]  # margin rising, score falling


def _worst_at(frontier: np.ndarray, margin: float, *, between: bool = True) -> float | None:
    """The highest score a wrong reading may have at `margin` or more: the wrong readings
    seen there, and between them (a reading as far ahead as one seen and as similar as
    another lies between the two, as likely wrong: two held-back empty windows read as the
    cut card, at 0.93 leading by 0.01 and 0.86 by 0.13, and a fresh one at 0.91 by 0.05 was
    accepted by the corners alone; `between=False`: the corners alone). None when no wrong
    reading reaches `margin`."""
    above = frontier[frontier[:, 1] >= margin]
    if not len(above):
        return None
    worst = float(above[:, 0].max())
    below = frontier[frontier[:, 1] < margin]
    if between and len(below):  # the segments from each point below to each above, at `margin`
        low, high = below[:, None, :], above[None, :, :]
        t = (margin - low[..., 1]) / (high[..., 1] - low[..., 1])
        worst = max(worst, float((low[..., 0] + t * (high[..., 0] - low[..., 0])).max()))
    return worst


def _calibrate(held_out: list[HeldOut], notes: list[str], card_pairs: Pairs,
               classes: tuple[str, ...]) -> dict:
    """Thresholds for the stages of reading, in the reader's order: the empty window, a
    back (in the over view), a card passing and a face's side at a glance (the kind model,
    from the whole window; the empty window also along the glance's directions), then a
    back, the cut card or the empty window by the one model (or, unsure, along the
    glance's directions: `_surface_floor`), then the card (with its suit's floor,
    `suit.SuitCheck`, chosen among a few to read the most held-back cards). Each stage is
    calibrated on what the stages before it let through, a back at a glance excepted: the
    under view does not use it, so the stages after it are calibrated as if it let
    everything through."""
    def pairs(items, card: bool) -> np.ndarray:
        return np.array([(h.card_score, h.card_margin) if card else (h.kind_score, h.kind_margin)
                         for h in items], np.float64)

    def glance(rest: list[HeldOut], kind: str, wrong, right, own: int) -> Acceptance:
        """The kind model's `kind` at a glance: none of the `wrong` views it reads as
        `kind` may pass, the most of the `right` ones do (the notes on what is accepted
        come after every stage, from `_surface_read`)."""
        return _thresholds(pairs([h for h in rest if h.kind == kind and wrong(h)], card=False),
                           pairs([h for h in rest if h.kind == kind and right(h)], card=False),
                           own, MIN_SCORE.get(kind, MIN_SCORE["kind"]), kind, [])

    def left(rest: list[HeldOut], kind: str, accept: Acceptance, also=lambda h: True):
        return [h for h in rest if not (h.kind == kind and also(h)
                                        and accept.accepts(h.kind_score, h.kind_margin))]

    # A card coming up into the window with its index not yet wholly in view is not read
    # (`register.entering`: the reader says so before any glance): such views of cards
    # sliding past set no threshold. One did, read with its index half in view: an invented
    # design's AS read as AD, leading by 0.94 along their pair's direction, held the pair
    # stage at 1.14 and left 9 of 104 passages of its cards unread (`bench.passages`). A
    # view in place stays, as one the reader must read (of the eleven shared designs'
    # held-back views in place, none is coming in; `tests/vision/test_entering.py` holds
    # that across the envelope).
    held_out = [h for h in held_out if not (h.sliding and h.coming_in)]

    def count(truth: str) -> int:
        return sum(h.truth == truth for h in held_out)

    accept: dict = {}
    # What may be read as a surface it is not at no cost: a blank face or a card sliding
    # past read as empty (there is nothing to read on either).
    harmless = {"travel": ("empty",), BLANK: ("empty",)}
    # Each surface's least lead along the glance's directions (`_surface_floor`): of every
    # held-back view, whatever any model made of it, so it holds at every stage below.
    floors = {kind: _surface_floor(held_out, kind, harmless) for kind in SURFACE_KINDS}
    # The empty window: nothing else held back with no ink may pass.
    accept["glance:empty"] = glance(
        [h for h in held_out if h.no_ink], "empty",
        lambda h: h.truth_kind not in ("empty", BLANK) and not h.sliding,
        lambda h: h.truth == "empty", count("empty"))
    rest = [h for h in held_out if not _empty_at_a_glance(h, accept["glance:empty"],
                                                          floors["empty"])]
    # A back at a glance, in the over view only (`Reader.read`): nothing else held back (a
    # face, a card sliding past, the cut card, a joker) may pass.
    accept["glance:back"] = glance(rest, "back", lambda h: h.truth != "back",
                                   lambda h: h.truth == "back", count("back"))
    # A card's body passing, its index out of view, at a glance: most frames of a passage.
    # Nothing that must be read (a card in place, a back, the cut card) may be taken for it;
    # a card sliding past may, it is unreadable there anyway. Calibrated on every view, but
    # the reader trusts the glance only with the card reaching above the window
    # (`card_above`): the rest is read in full, and calibrates the stages after it.
    not_to_pass = lambda h: not h.sliding and h.truth not in (BLANK, JOKER)  # noqa: E731
    accept["glance:passing"] = glance(rest, PASSING, not_to_pass, lambda h: h.sliding, 0)
    rest = left(rest, PASSING, accept["glance:passing"], lambda h: h.card_above)
    # Then a face's side, a body passing or a blank face alike, by its lead over every other
    # kind (`model.glance_of`): on the simulator's frames of a body the two ran within 0.04
    # of each other, the nearer leading anything else by 0.2-0.5; a blank face has no stage
    # of its own, and those frames were read in full (a tenth of a shoe's reading time).
    # A joker is not let through here (the passing glance lets one through, as before): a
    # mostly white one could lead every other kind as a blank face, and a joker told at a
    # glance is no longer decided as one (its passage ends unreadable).
    sides = [h for h in rest if h.kind in FACE_SIDES]
    accept[SIDE_STAGE] = _thresholds(
        np.array([(h.kind_score, h.side_lead) for h in sides
                  if not_to_pass(h) or h.truth == JOKER], np.float64),
        np.array([(h.kind_score, h.side_lead) for h in sides if h.sliding], np.float64),
        0, MIN_SCORE[PASSING], "faces' sides", [])
    rest = [h for h in rest if not side_at_a_glance(h, accept)]
    # Backs, cut cards, empty windows as the one model reads them, each kind on its own:
    # none held back of another kind may be read as it.
    for kind in SURFACE_KINDS:
        accept[f"model:{kind}"] = _thresholds(
            pairs([h for h in rest if h.card == kind and h.truth_kind != kind
                   and kind not in harmless.get("travel" if h.sliding else h.truth, ())],
                  card=True),
            pairs([h for h in held_out if h.truth == kind and h.card == kind], card=True),
            count(kind), MIN_SCORE["card"], SURFACE_PLURALS[kind], [])
        # Along the glance's directions: the least lead, and the one model's least score.
        accept[f"surface:{kind}"] = Acceptance(floors[kind], MIN_SCORE["card"], count(kind),
                                               0.0, 0, 0.0)
    for kind in SURFACE_KINDS:  # each read by any stage (its `accepted`), never another
        views = [h for h in held_out if h.truth == kind]
        share = sum(_surface_read(h, accept, classes) == kind for h in views) / max(1, len(views))
        accept[f"surface:{kind}"] = replace(accept[f"surface:{kind}"], accepted=share)
        if views and round(share, 3) < 0.99:  # as it is shown
            notes.append(f"only {share:.1%} of the held-back views of "
                         f"{SURFACE_PLURALS[kind]} are read with confidence: more or better "
                         "samples, or a better-placed window, would help")
    cards = [h for h in held_out if h.truth_kind == "face" and not h.sliding]
    right = [h for h in cards if h.card == h.truth]
    pose_floor = POSE_SHARE * float(np.percentile([h.pose_score for h in right], 1))
    like_floor = LIKENESS_SHARE * float(np.percentile([h.likeness for h in right], 1))
    passed = {id(h) for h in rest}
    # Each card's own floor, between half the design's and the design's: a card whose own
    # views vary (the vector design's JH prints its frame's art beside the index: 0.52 to its
    # mean, against a floor of 0.65 from all the cards) is held to what its own views reach,
    # those the card stage could accept (found well enough, as similar as any card must be,
    # not told as something else before it). The card stage below is calibrated with these
    # floors, so a held-back view they let through read wrong still sets its thresholds.
    codes = [c for c in classes if c in ALL_CARDS]
    own = {code: [h.likeness for h in right if h.truth == code and id(h) in passed
                  and h.pose_score >= pose_floor and h.card_score >= MIN_SCORE["card"]]
           for code in codes}
    like_floors = np.array([
        min(like_floor, max(LIKENESS_LEAST * like_floor,
                            LIKENESS_SHARE * min(own[code], default=like_floor / LIKENESS_SHARE)))
        for code in codes], np.float32)  # as the profile keeps them: the reader's values
    floor_of = {code: float(floor) for code, floor in zip(codes, like_floors, strict=True)}

    def placed(h: HeldOut) -> bool:
        return h.pose_score >= pose_floor and h.likeness >= floor_of.get(h.card, like_floor)

    # The suit check (`suit.SuitCheck`): a card is read only where its suit leads the other
    # suits in its box by a floor. Held-back views read wrong that it stops set no threshold
    # of the card stage or the pair stage; those read right that it stops are not read. The
    # floor is whichever of the candidates reads the most held-back cards: the least lead
    # of a card read right that the card stage could accept, less SAFETY_SUIT (none of those
    # stopped), or one of a few low percentiles of those leads (SUIT_SHARES: a few stopped,
    # for the wrong ones a club like a spade put below them).
    leads = [h.suit_lead for h in right if placed(h) and id(h) in passed
             and h.card_score >= MIN_SCORE["card"] and np.isfinite(h.suit_lead)]
    floors = sorted({min(leads, default=NO_SUIT_FLOOR + SAFETY_SUIT) - SAFETY_SUIT,
                     *(float(np.percentile(leads, q)) for q in SUIT_SHARES if leads)})
    # The floor is chosen as if no check after the card stage left a card read wrong
    # unknown: counted on there (in a first try that counted on a card within the margin a
    # step away too, which the held-back 2Cs read as 2S had), it let the suit floor fall,
    # and a fresh 2C of a design with a small suit beside the rank, read as 2S with its
    # suit 0.37 behind, through (`bench.vision --invent 12 --invent-seed 701`).
    chosen: tuple[float, Acceptance] | None = None
    for floor in floors:
        _, pair_stage = _card_stages(rest, right, passed, placed, floor, len(cards),
                                     card_pairs, classes, [], left_unknown=False)
        if chosen is None or pair_stage.accepted > chosen[1].accepted:
            chosen = (floor, pair_stage)
    suit_floor = chosen[0]  # type: ignore[index]
    accept["card"], accept["pair"] = _card_stages(rest, right, passed, placed, suit_floor,
                                                  len(cards), card_pairs, classes, notes)
    stopped = sum(1 for h in rest if h.card in ALL_CARDS and h.card != h.truth_card
                  and placed(h) and h.card_score >= accept["card"].score
                  and _stopped_by_suit(h, suit_floor))
    accept["suit"] = Acceptance(suit_floor, 0.0, len(cards), accept["pair"].accepted, stopped,
                                0.0)
    accept.update(pose_floor=pose_floor, likeness_floor=like_floor, likeness_floors=like_floors)
    return accept


def _card_stages(rest: list[HeldOut], right: list[HeldOut], passed: set[int], placed,
                 suit_floor: float, views: int, card_pairs: Pairs, classes: tuple[str, ...],
                 notes: list[str], *, left_unknown: bool = True) -> tuple[Acceptance,
                                                                           Acceptance]:
    """The card stage's and the pair stage's `Acceptance` with the suit check at
    `suit_floor`: of the held-back cards found well enough and like their card (`placed`),
    those whose suit leads by the floor if read right; if read wrong, those whose suit is
    not SAFETY_SUIT below it (a fresh view a little above one read wrong must not be
    read because that one was stopped), and, `left_unknown`, that no later check leaves
    unknown (`_left_unknown`: the card stage's; the pair stage's count every one)."""
    def gated(h: HeldOut) -> bool:
        return placed(h) and h.suit_lead >= suit_floor

    def not_stopped(h: HeldOut) -> bool:
        return placed(h) and not _stopped_by_suit(h, suit_floor)

    wrong = [h for h in rest if h.card in ALL_CARDS and h.card != h.truth_card
             and not_stopped(h)]
    card = _thresholds(
        np.array([(h.card_score, h.card_margin) for h in wrong], np.float64),
        np.array([(h.card_score, h.card_margin) for h in right if gated(h) and id(h) in passed],
                 np.float64),
        views, MIN_SCORE["card"], "cards", notes,
        # A card's wrong readings are many cards' against one another, not one overlap of
        # two kinds: between them, the segments cost `bench.passages` 4 of the built-in
        # design's 104 passages (17 without the colour kept), and no card was read wrong
        # by the corners alone in any run of `bench.vision`.
        between=False,
        left_unknown=np.array([left_unknown and _left_unknown(h, card_pairs, classes)
                               for h in wrong], bool))
    return card, _pair_acceptance(rest, right, passed, gated, not_stopped, card, card_pairs,
                                  classes)


def _left_unknown(h: HeldOut, pairs: Pairs, classes: tuple[str, ...]) -> bool:
    """Whether the reader leaves the held-back card `h`, read wrong, unknown by a check
    after the card stage, with room to spare: a close card's own direction puts it on
    that card's side by SAFETY_CONTRARY (`Pairs.leads`, of a rival within PAIR_RIVALS less
    SAFETY_MARGIN: the reader asks of those within PAIR_RIVALS, or a wider margin), or
    another card outscores it by SAFETY_DOUBT with the index zone two steps away or at the
    next scale (`nearby`; that asked only where the reader would ask with room to spare,
    NEXT_SCALE_SPARE).

    Not another card within the margin a step away: a reading that close to another card
    has it that close a step away nearly always, held back or fresh, and what the held-back
    views showed of it would not hold (a fresh 2C read as 2S at 0.965, leading by 0.017,
    was not doubted a step away; the four held-back 2Cs read so were). Of stop 41:
    calibrated without these checks, an invented DejaVu Sans ExtraLight design's card
    floor was 0.86 at a margin of 0.13, set by views they leave unknown, and 23% of its
    faces were read below it."""
    known = [x for x in pairs.leads(h.embedded, h.scores, classes.index(h.card), 0.0,
                                    reach=PAIR_RIVALS - SAFETY_MARGIN) if x is not None]
    if min(known, default=0.0) < -SAFETY_CONTRARY:
        return True
    return any(r.where != STEP and r.doubts(h.card_score + SAFETY_DOUBT, 0.0)
               for r in h.rivals)


def _stopped_by_suit(h: HeldOut, suit_floor: float) -> bool:
    """Whether a held-back card read wrong counts as stopped by the suit check at
    `suit_floor`: its suit SAFETY_SUIT or more below it."""
    return h.suit_lead < suit_floor - SAFETY_SUIT


def _pair_acceptance(rest: list[HeldOut], right: list[HeldOut], passed: set[int], gated,
                     wrong_gated, card: Acceptance, pairs: Pairs,
                     classes: tuple[str, ...]) -> Acceptance:
    """The least lead (`Pairs.weakest_lead`) that accepts a card whose nearest views lead by
    less than the card margin: above that of every held-back view the card stage would
    have let through to it and that it read wrong (`wrong_gated`: those that reach it;
    `gated`: those read right that do). Its `accepted` is the share of the held-back cards
    read right by the card stage or by this one."""
    def lead(h: HeldOut, reaches) -> float | None:
        if not (h.card in ALL_CARDS and reaches(h) and h.card_score >= card.score
                and h.card_margin < card.margin):
            return None
        return pairs.weakest_lead(h.embedded, h.scores, classes.index(h.card), card.margin)

    wrong = [x for h in rest if h.card != h.truth_card
             and (x := lead(h, wrong_gated)) is not None]
    least = max(MIN_LEAD, max(wrong, default=-np.inf) + SAFETY_LEAD)
    rescued = sum(1 for h in right if id(h) in passed and (x := lead(h, gated)) is not None
                  and x >= least)
    share = card.accepted + rescued / max(1, card.views)
    return Acceptance(least, 0.0, card.views, share, card.wrong, card.separation)


def side_at_a_glance(h: HeldOut, accept: dict) -> bool:
    """Whether the reader tells a held-back view a face's side at a glance (`Reader.read`):
    the card above the window, and a body passing at a glance (`glance:passing`) or the
    nearer of a body and a blank face leading every other kind enough (SIDE_STAGE)."""
    if not (h.card_above and h.kind in FACE_SIDES):
        return False
    return ((h.kind == PASSING and accept["glance:passing"].accepts(h.kind_score,
                                                                     h.kind_margin))
            or accept[SIDE_STAGE].accepts(h.kind_score, h.side_lead))


def _surface_floor(held_out: list[HeldOut], kind: str, harmless: dict) -> float:
    """The least lead over every other kind in the glance's space (`HeldOut.surface_leads`)
    at which a window is read as the surface `kind` along its directions: SAFETY_SURFACE
    above that of every held-back view of anything else that may not be read as `kind`
    (`harmless`), whatever any model made of it, and never below MIN_SURFACE_LEAD;
    NO_SURFACE_LEAD where the design has no views of `kind`."""
    if not any(h.truth == kind and kind in h.surface_leads for h in held_out):
        return NO_SURFACE_LEAD
    others = [h.surface_leads[kind] for h in held_out if h.truth_kind != kind
              and kind not in harmless.get("travel" if h.sliding else h.truth, ())]
    return max(MIN_SURFACE_LEAD, max(others, default=-np.inf) + SAFETY_SURFACE)


def _empty_at_a_glance(h: HeldOut, glance: Acceptance, floor: float) -> bool:
    """Whether the reader reads a held-back view as the empty window at a glance: nearest
    the empty window with no ink anywhere, and ahead of the next kind by the margin
    (`glance`, stage `glance:empty`) or with its score and along the directions (`floor`)."""
    return h.kind == "empty" and h.no_ink and (
        glance.accepts(h.kind_score, h.kind_margin)
        or (h.kind_score >= glance.score and h.surface_leads.get("empty", -np.inf) >= floor))


def _surface_accepted(h: HeldOut, model: Acceptance, surface: Acceptance) -> bool:
    """Whether the reader reads the back, cut card or empty window the one model named
    for a held-back view (`h.card`): with the score it needs, ahead of the next class by
    the margin (`model`), or along the glance's directions (`surface`, its score the
    least lead and its margin the least score)."""
    return model.accepts(h.card_score, h.card_margin) or surface.accepts(
        h.surface_leads.get(h.card, -np.inf), h.card_score)


def _surface_read(h: HeldOut, accept: dict, classes: tuple[str, ...]) -> str:
    """What the reader makes of a held-back view, as far as backs, cut cards and empty
    windows go (in the under view: no back at a glance): one of those, or "other".
    `classes`: the card model's, which `h.scores` follow."""
    if _empty_at_a_glance(h, accept["glance:empty"], accept["surface:empty"].score):
        return h.kind
    if side_at_a_glance(h, accept):
        return "other"
    if surface_asked(h.card, h.kind) != h.card and h.kind in classes:
        # A face's side nearest the one model, the glance's kind read along the glance's
        # directions alone (`Reader.read`; the empty window only of about the empty shoe's
        # colour there, which the gate learns after this: counted here regardless).
        if h.counterpart is not None and h.counterpart < 0.0:
            return "other"
        score = float(h.scores[classes.index(h.kind)])
        return h.kind if accept[f"surface:{h.kind}"].accepts(
            h.surface_leads.get(h.kind, -np.inf), score) else "other"
    if h.card not in SURFACE_KINDS:
        return "other"
    if h.counterpart is not None and h.counterpart < 0.0:  # on the other's side of the two
        return "other"
    # The glance and the model disagree on the cut card and the empty window: neither is
    # read (the reader trusts a glance of the empty window only near the empty shoe's
    # colour and light, which the gate learned after this: here every such glance counts,
    # so what is reported read is if anything too few).
    if h.kind == COUNTERPART.get(h.card):
        return "other"
    model, surface = accept[f"model:{h.card}"], accept[f"surface:{h.card}"]
    return h.card if _surface_accepted(h, model, surface) else "other"
