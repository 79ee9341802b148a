"""From a stream of window frames to exactly one event per physical card.

A *passage* is the time one card spends in front of the camera:
- with the shoe's card sensor (`card_present` given with each frame), from its rising edge
  to its falling edge; frames read while the sensor says no card are ignored;
- without it, from the first frame that is not `empty` to the first `gap` consecutive empty
  frames; an undecided passage of fewer than `min_frames` non-empty frames is noise (a sliver
  of card edge, a flicker) and reports nothing.

Within a passage a card is decided as soon as `confirm` consecutive frames agree on a face
(CardSeen), or `confirm` frames of the passage read the same face and none read another
(the reader is calibrated never to read a face wrong with confidence, so two frames that
agree are evidence enough even with unsure frames between them; one frame that read another
face asks for consecutive agreement again), on the cutting card (CutCard), or on a back seen
by the under view with the over view reading a face (CardSeen face_up=True). A joker
(Unreadable with the reason JOKER: not one of the shoe's cards) is decided only when the
passage ends without a face, and without a back seen (a face-up card left unread halts the
table instead): the top of a card entering the window, its index not yet in view, can look
more like a joker than like anything else for a frame or two, and deciding then threw away
the frames that read the card. A passage that ends undecided is Unreadable.

A face read with its suit partly out of view (`Reading.suit_whole` False: the part of the
index that tells the suits reached past the window's foot, where a spade's top is a
diamond's) is not sure of its suit. A card decided on such frames alone is held, not told,
until a frame reads it with its suit whole; another card read whole meanwhile is the card,
and another read partly out of view too leaves the passage undecided again. A passage that
ends with its card still held is Unreadable: the table does not guess the suit (nor says a
card slid back that it never told). Once a card was read whole, another read with its suit
partly out of view is no second card; nor is another read only with its index higher in
the window than a card in place shows one (LEAVING): the card's own index going out by the
window's top, its rank cut there (the card right behind is read lower first).

A card only moves up the window as it leaves the shoe. When the decided card's index is
seen SLID_BACK rows lower than its highest place in the passage, the card is going back
into the shoe (drawn half way and pushed back). If its index is then seen rising SLID_BACK
rows again, or its body passing with the index above the window (after the index was
seen rising, or for PASSING_OUT frames; and only once its index was seen about as high as
a card in its place shows it, LEFT_HIGH), it was drawn out after all in the same passage:
one card, read once, and nothing more is said. If the passage ends without that, the card
went back for good: SlidBack when the passage ends, so that the table keeps the card where
it was dealt and does not count it again when it is drawn. (Reported as soon as it slid, a
card pushed back a little and then drawn out halted the table for nothing.) A card drawn so
little that its index was read near one height only goes back below where an index can be
read before it has slid SLID_BACK rows: the window showing its top edge low again, as a card
coming in (`cards.ENTERING`), after it was decided, says it is going back just the same;
its index read again at any height says it rose. Without the sensor, the same card drawn
again with no empty frame between looks like a card pushed back and drawn out again: one
card; and a different card read after such a frame was that card coming in after the one
before went out (a card pushed back is the front card of the shoe: it comes out next).

A card comes up the window top edge first, and its body goes last: once a face was
decided, the cut card read with the card reaching above the window (`Reading.card_above`)
is that face's body leaving, unless the cut card's top edge was seen in the passage since
(the cut card right behind the face). Its pale paper and bottom edge in a strong cast were
read as a pale cut card.

A frame that is the very image of the one before (a camera frozen on one picture: a live
sensor's noise never repeats) is no new evidence: it counts towards no decision, so a camera
stuck on the card before does not read that card again; the passage ends unreadable. So too
a picture of the over view that is the very image of its one before.

Without the sensor, a face confirmed with a *different* code than the one already decided
means a second card followed without an empty frame between: the first passage ends and a
new one begins. Two identical cards in a row are told apart only by empty frames (`gap` of
them) or a sensor edge between them; a cut card or a face-up card is assumed to be separated
from the card before it the same way, but a face confirmed after the cut card starts a
passage of its own, as does the cut card confirmed after a face. With the sensor, two
different faces in one pulse, or the cut card and a face, are reported as Unreadable (the
table halts for the dealer) since the sensor says one passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from contract import JOKER
from vision.cards import ENTERING, FACE_SIDES, PASSING
from vision.events import CardSeen, CutCard, ReadingEvent, SlidBack, Unreadable
from vision.geometry import WINDOW_H
from vision.reader import Reader, Reading


def _label(reading: Reading) -> str:
    if reading.kind == "face":
        return f"face:{reading.card}"
    return JOKER if reading.looks == JOKER else reading.kind


@dataclass
class _Run:
    """Consecutive frames with the same label."""

    label: str = ""
    length: int = 0
    first_frame: int = 0

    def push(self, label: str, frame: int) -> None:
        if label == self.label:
            self.length += 1
        else:
            self.label, self.length, self.first_frame = label, 1, frame


@dataclass
class _Slide:
    """The decided card's index seen going back down the window, and what then says the
    card went on out after all (drawn out in the same passage) rather than back in."""

    frame: int  # where it was first seen SLID_BACK rows below its highest place
    # Its index's lowest row since: WINDOW_H when the card went below where its index is
    # read (`_going_back_in`), so that its index read again anywhere says it rose.
    lowest: float
    rising: bool = False  # its index last seen RISING rows above `lowest`
    passing: int = 0  # frames of a body passing since
    by_edge: bool = False  # told by the card's top edge, not its index (`_going_back_in`)

    def went_out_by_index(self, row: float) -> bool:
        """Its index seen at `row`: risen SLID_BACK rows again, it is being drawn out."""
        self.lowest = max(self.lowest, row)
        self.rising = row <= self.lowest - RISING
        return row <= self.lowest - SLID_BACK

    def went_out_by_body(self) -> bool:
        """A frame of its body passing: drawn out after its index was seen rising, or for
        PASSING_OUT frames. Not at once: a card going back below the window shows its top
        edge as a body passing for a frame (0-1 frames in 240 pullbacks of two designs),
        and forgetting the slide there missed one pullback in ten (a review, stop 49;
        counted twice without a word). A card that wobbles back as its index leaves the
        top of the window, then goes on out, shows its body for 5-16 frames (a second
        review: it was taken for a card pushed back)."""
        self.passing += 1
        return self.rising or self.passing >= PASSING_OUT


@dataclass
class _Passage:
    first_frame: int
    under: _Run = field(default_factory=_Run)
    over: _Run = field(default_factory=_Run)
    # The over view's first confirmed face: its index may pass before the under view has
    # seen enough of the back, so it is kept until the back is confirmed.
    over_face: _Run | None = None
    decided: str = ""  # label of the decision, "" while undecided
    back_seen: bool = False
    seen: set[str] = field(default_factory=set)
    faces: dict[str, int] = field(default_factory=dict)  # frames per face label read
    frames: int = 0
    repeats: int = 0  # frames that were the image of the one before
    joker_at: int | None = None  # first frame of the first `confirm` frames read as a joker
    tops: dict[str, float] = field(default_factory=dict)  # per face: its index's highest row
    slide: _Slide | None = None  # the decided card's index going back down, while it is
    over_given: bool = False  # the shoe has an over view: frames of it came with this card
    whole: set[str] = field(default_factory=set)  # faces read with their suit wholly in view
    # The decided card, not yet told: every frame that read it had its suit partly out of
    # view (`_decide`).
    held: CardSeen | None = None
    # The cut card read with its top edge in view since a face was decided (`_tail`).
    cut_edge: bool = False
    # Faces read with their index where a card in place shows one, or lower (`LEAVING`).
    placed: set[str] = field(default_factory=set)


# Rows the index of the decided card must be seen below its highest place in the passage to
# have moved back: a card leaving moves it up by 20-40 rows a frame, registration jitters by
# a few (at most 3 in sixty passages of 120 frames). 40 until stop 49: a card drawn until
# its index had risen 20-35 rows and pushed back was seen 26-34 rows lower, not caught, and
# counted twice (a review, stop 49).
SLID_BACK = 20
# Rows the index must be seen above its lowest place since it slid for its body passing
# next to say the card was drawn out after all: more than registration's jitter.
RISING = 15
# Frames of a body passing after the slide that say the card went on out (`_Slide`).
PASSING_OUT = 3
# The row its index must have been seen at or above for a body passing to say the card went
# out the top: a card in its place shows its index about row 82 (70-95 across the camera
# envelope). One drawn less than that and pushed back shows a sliver of itself at the
# bottom of the window, or a court card near the index line, that the glance takes for a
# body passing (a review, stop 50: slow pulls counted twice so).
LEFT_HIGH = WINDOW_H / 2


# The row above which a face's index is leaving by the window's top: a card in its place
# shows its index at rows 59-95 across the camera envelope (59 the least of 4,676 fresh
# views of six designs, 65-67 the first percentile), and a card whose index is read higher
# has moved on up, the top of its rank cut by the window's edge. A 6 cut there is a 5's foot
# or a 9's: in slow passages (500 frames a card, severity 1.0), a gnome-tigullio 6C was read
# as 5C in three frames at rows 42-45 after it was told (the sensor's pulse then halted the
# table as two cards; without the sensor, a second card was counted), a gnome-slavic_costumes
# 6C as 9C at 38-40, and a built-in 2H as 4H at 40. At 16 frames a card
# (`bench.passages`) every card of three designs was read at least twice below it.
LEAVING = 52.0


SPARSE_STEP = 16  # every this many rows and columns: where two frames are compared first


def _same_picture(last: np.ndarray, frame: np.ndarray) -> bool:
    """Whether `frame` is the very image of `last`. A sparse grid of pixels is compared
    first: two frames of a live sensor differ nearly everywhere (its noise alone), so that
    settles almost every frame, where comparing every pixel of every frame was a sixth of
    the simulator's reading time (`bench.e2e`). Only frames alike there are compared in
    full."""
    if last.shape != frame.shape:
        return False
    sparse = (slice(None, None, SPARSE_STEP),) * min(frame.ndim, 2)
    return bool(np.array_equal(last[sparse], frame[sparse]) and np.array_equal(last, frame))


def _follow_index(passage: _Passage, label: str, at: float, frame: int) -> None:
    """Follow a face's index up the window: the decided card's going back down SLID_BACK
    rows, and its rising SLID_BACK rows again after that (drawn out after all)."""
    if not at:
        return
    top = passage.tops.get(label)
    if top is None or at < top:
        passage.tops[label] = at
    if label != passage.decided or top is None:
        return
    if passage.slide is None:
        if at >= top + SLID_BACK:
            passage.slide = _Slide(frame, at)
    elif passage.slide.went_out_by_index(at):
        passage.slide = None


def _slid_when_decided(passage: _Passage, at: float, frame: int) -> None:
    """The frame that decides the card may show it slid already, its index SLID_BACK rows
    below the highest place it was seen at before: `_follow_index` looks for a slide only
    once the card is decided, and a card pushed back on its deciding frame was counted
    again when drawn (a review, stop 52)."""
    top = passage.tops.get(passage.decided)
    if at and top is not None and passage.slide is None and at >= top + SLID_BACK:
        passage.slide = _Slide(frame, at)


def _decide(passage: _Passage, reading: Reading, frame: int,
            first_frame: int) -> list[ReadingEvent]:
    """The passage decided on the face `reading` read at `frame` (its run of agreeing
    frames from `first_frame`): told now if a frame read it with its suit wholly in view;
    else held until one does (a passage that ends with it held is unreadable). The top of
    a spade cut by the window's foot is a diamond's top: a built-in 4S drawn a little over
    grey was read as 4D in two frames with its suit partly out of view, then as 4S, and
    the 4D was told (`bench.pulls`, stops 59-60)."""
    passage.decided, passage.slide = _label(reading), None
    _slid_when_decided(passage, reading.at, frame)
    seen = CardSeen(reading.card, False, first_frame)  # type: ignore[arg-type]
    if passage.decided in passage.whole:
        return [seen]
    passage.held = seen
    return []


def _tail(passage: _Passage, reading: Reading) -> str:
    """The label a frame counts as (`_label`), but for the cut card read after a face was
    decided with the card reaching above the window and the cut card's top edge not seen
    since: that is the face's own body leaving, not the cut card. A card comes up the
    window top edge first, and the cut card right behind a face shows its top edge before
    it reaches past the window; the face's body shows none. In a strong yellow cast the
    lower body of a vector 3S was read as the design's cut card, the pale paper and its
    bottom edge alike in the window (12 frames of a slow passage with a brown cut card, 20
    of 36 with the simulator's yellow one): the table halted, or without the card sensor
    was told a cut card followed the 3S."""
    label = _label(reading)
    if label != "cut" or not passage.decided.startswith("face:") or passage.cut_edge:
        return label
    if reading.card_above:
        return "unknown"
    passage.cut_edge = True
    return label


def _named(label: str) -> str:
    """A decided label in words: a card's code, or the cut card."""
    return "the cut card" if label == "cut" else label.removeprefix("face:")


def _body_passing(passage: _Passage) -> None:
    """A frame of a card's body passing, its index above the window: the decided card that
    slid went out after all (`_Slide.went_out_by_body`), if its index was ever seen as high
    as LEFT_HIGH; lower, the frame is a sliver of it or its art near the index line."""
    slide = passage.slide
    if (slide is not None and passage.tops.get(passage.decided, WINDOW_H) <= LEFT_HIGH
            and slide.went_out_by_body()):
        passage.slide = None


def _going_back_in(passage: _Passage, frame: int) -> None:
    """A card's top edge low in the window, its index not wholly in view, after the card's
    face was decided: the card went back below where its index was read. A card drawn so
    little that its index was read near one height only (its top edge within 20 rows of
    ENTERING_BELOW) never slid SLID_BACK rows where it could be read, and was counted twice
    (stop 49's known limit; 15 of 60 such pulls at 10 and 28 rows a frame). Even after
    frames of its body passing: a court card near that line can look like its body to the
    glance, and a first version that took three such frames for the card gone out the top
    still counted slow pulls of court cards twice (a review, stop 50). Without the sensor
    the frame may be the next card coming in after this one went out: `_went_back`."""
    if passage.decided.startswith("face:"):
        # A slide already seen by its index is now told by the edge: whatever said the card
        # was rising before is past (a wobble of 16 rows before it slid left `rising` set,
        # and one frame of its top edge, taken for its body, cleared the slide: a review,
        # stop 52).
        first = passage.slide.frame if passage.slide is not None else frame
        passage.slide = _Slide(first, float(WINDOW_H), by_edge=True)


def _went_back(passage: _Passage, *, next_card: bool = False) -> list[ReadingEvent]:
    """SlidBack for a passage that ends with its card going back into the shoe. Not where
    `next_card`, another card read in the same passage (no sensor, no empty frame between),
    followed a top edge seen low: that was the next card coming in, not this one going back
    (a card pushed back is the front card of the shoe, and would come out again first)."""
    slide = passage.slide
    if slide is None or not passage.decided.startswith("face:") or (next_card
                                                                   and slide.by_edge):
        return []
    return [SlidBack(passage.decided[5:], slide.frame)]


class Tracker:
    def __init__(
        self, reader: Reader, *, confirm: int = 2, gap: int = 2, min_frames: int = 3
    ) -> None:
        self.reader = reader
        self.confirm = confirm
        self.gap = gap
        self.min_frames = min_frames
        self._passage: _Passage | None = None
        self._empty_run = 0
        self._next_frame = 0
        self._triggered: bool | None = None
        self._last_image: np.ndarray | None = None
        self._last_reading: Reading | None = None
        self._last_over: np.ndarray | None = None  # the over view's picture before

    def _read(self, frame: np.ndarray) -> tuple[Reading, bool]:
        """The frame's reading, and whether it is the very image of the frame before (then
        the same reading, not read again)."""
        last = self._last_image
        if last is not None and _same_picture(last, frame):
            return self._last_reading, True  # type: ignore[return-value]
        self._last_image = frame.copy()  # the caller may reuse its buffer
        self._last_reading = self.reader.read(frame)
        return self._last_reading, False

    def _over_repeated(self, over: np.ndarray) -> bool:
        """Whether the over view's picture is the very image of its one before: a frozen
        over camera must not read the face-up card before again (it read the next one,
        a KC, as that 4S with confidence: a review, stop 52). Every over picture given is
        kept, read or not: the over view is read only while a card is undecided."""
        last, self._last_over = self._last_over, over.copy()
        return last is not None and _same_picture(last, over)

    def feed(
        self,
        frame: np.ndarray,
        *,
        card_present: bool | None = None,
        frame_index: int | None = None,
        over: np.ndarray | None = None,
    ) -> list[ReadingEvent]:
        """Events decided by this frame (usually none). `frame` is the under view's reading
        window; `over`, if the shoe has one, the over view's window of the same instant."""
        index = self._next_frame if frame_index is None else frame_index
        self._next_frame = index + 1
        self._triggered = card_present is not None
        if card_present is not None:
            return self._feed_triggered(frame, card_present, index, over)
        reading, repeated = self._read(frame)
        events: list[ReadingEvent] = []
        if reading.kind == "empty":
            self._empty_run += 1
            if self._passage is not None and self._empty_run >= self.gap:
                events += self._end()
            return events
        self._empty_run = 0
        if self._passage is None:
            self._passage = _Passage(index)
        events += self._observe(reading, index, over, split_on_change=True, repeated=repeated)
        return events

    @property
    def in_passage(self) -> bool:
        """Whether a card's passage is under way, not yet decided."""
        return self._passage is not None

    def flush(self) -> list[ReadingEvent]:
        """End the passage in progress (end of stream)."""
        return self._end() if self._passage is not None else []

    def _feed_triggered(
        self, frame: np.ndarray, present: bool, index: int, over: np.ndarray | None
    ) -> list[ReadingEvent]:
        events: list[ReadingEvent] = []
        if not present:
            if self._passage is not None:
                events += self._end()
            return events
        if self._passage is None:
            self._passage = _Passage(index)
        reading, repeated = self._read(frame)
        events += self._observe(reading, index, over, split_on_change=False, repeated=repeated)
        return events

    def _observe(
        self, reading: Reading, index: int, over: np.ndarray | None, *, split_on_change: bool,
        repeated: bool = False,
    ) -> list[ReadingEvent]:
        passage = self._passage
        assert passage is not None
        if repeated:
            passage.frames += 1
            passage.repeats += 1
            return []
        label = _tail(passage, reading)
        passage.under.push(label, index)
        passage.frames += 1
        passage.seen.add(reading.kind)
        if label.startswith("face:"):
            passage.faces[label] = passage.faces.get(label, 0) + 1
            _follow_index(passage, label, reading.at, index)
            if reading.at >= LEAVING:
                passage.placed.add(label)
            if (passage.decided.startswith("face:") and passage.held is None
                    and label != passage.decided
                    and (not reading.suit_whole or label not in passage.placed)):
                # Another card read with its suit partly out of view, after this one was
                # told: the top of the card's spade going back down past the foot, read as
                # a diamond, is no second card (a built-in 7S pulled a little and pushed
                # back halted the table as "7S then 7D"). Nor another read only with its
                # index higher than a card in place shows one: the card's own index leaving
                # by the window's top, its rank cut there (`LEAVING`). The card right
                # behind is read lower first, and then counts wherever it is read.
                return []
            if reading.suit_whole:
                passage.whole.add(label)
                if passage.held is not None and label == passage.decided:
                    told, passage.held = passage.held, None
                    return [told]
        elif reading.looks == PASSING:
            _body_passing(passage)
        elif reading.looks == ENTERING:
            _going_back_in(passage, index)
        # When the under view reads a face, that face is down and the over view sees a back:
        # reading it too would double the cost of every frame that decides a card. So too
        # where it sees a face's side without its index (a body passing, a face with nothing
        # printed): a fifth of a simulated shoe's reading time went on the backs over them.
        # Only a face-up card needs the over view, and its under view shows a back; were a
        # back taken for a face's side here, the over view would lose frames, and a face-up
        # card it then failed to read is unreadable (the table halts), never another card.
        # Once the card is decided the over view can change nothing, and is not read either.
        passage.over_given |= over is not None
        over_repeated = over is not None and self._over_repeated(over)
        if (over is not None and not over_repeated and not label.startswith("face:")
                and not passage.decided and reading.looks not in FACE_SIDES):
            over_reading = self.reader.read(over, back_expected=True)
            passage.over.push(_label(over_reading), index)
            over_run = passage.over
            if over_run.label.startswith("face:") and over_run.length >= self.confirm:
                passage.over_face = passage.over_face or _Run(**vars(over_run))
        run = passage.under
        only_face = len(passage.faces) == 1 and passage.faces.get(label, 0) >= self.confirm
        if run.length < self.confirm and not (only_face and not passage.decided):
            return self._face_up_decision(passage)
        if label.startswith("face:"):
            if not passage.decided:
                return _decide(passage, reading, index, run.first_frame)
            if passage.decided != "conflict" and label != passage.decided:
                return self._after_another(passage, label, reading, index, split_on_change)
            return []
        if label == "cut" and not passage.decided:
            passage.decided = label
            return [CutCard(run.first_frame)]
        if label == "cut" and passage.decided.startswith("face:"):
            return self._after_another(passage, label, reading, index, split_on_change)
        if label == JOKER and passage.joker_at is None:
            passage.joker_at = run.first_frame  # told at the end, if no face is read
        if label == "back" and not passage.decided:
            passage.back_seen = True
        return self._face_up_decision(passage)

    def _after_another(self, passage: _Passage, label: str, reading: Reading, index: int,
                       split_on_change: bool) -> list[ReadingEvent]:
        """A card or the cut card (`label`) confirmed in a passage decided on another.
        Without the sensor (`split_on_change`) it followed with no empty frame between: a
        new passage, with what the old one saw of this card's index. With it, unreadable:
        the sensor says one passed. Either way round one was lost without a word until a
        review (stop 52): a card right behind the cut card, and the cut card right behind a
        card (the shoe dealt past it with no last coup called; no frame after a face was
        read as the cut card in 2,288 passages of the eleven designs)."""
        run = passage.under
        if passage.held is not None:
            passage.held = None
            if label in passage.whole:
                # Read only with its suit partly out of view, then another read whole: the
                # card is the one read whole (a built-in 4S drawn slowly read 4D, then 4S).
                # Not two cards: the first was never seen far enough out to be dealt.
                return _decide(passage, reading, index, run.first_frame)
            # Both read with their suits partly out of view: undecided again, until a
            # frame reads one whole (a built-in 7S drawn slowly read 7D, then 7S, cut).
            passage.decided, passage.slide = "", None
            return []
        if split_on_change:
            tops = {label: passage.tops[label]} if label in passage.tops else {}
            self._passage = _Passage(run.first_frame, under=_Run(label, run.length,
                                                                 run.first_frame),
                                     decided=label, tops=tops)
            _slid_when_decided(self._passage, reading.at, index)
            event = (CutCard(run.first_frame) if label == "cut"
                     else CardSeen(reading.card, False, run.first_frame))  # type: ignore[arg-type]
            return [*_went_back(passage, next_card=True), event]
        first, passage.decided = _named(passage.decided), "conflict"
        return [Unreadable(f"two cards read in one sensor pulse: {first} then "
                           f"{_named(label)}", run.first_frame)]

    def _face_up_decision(self, passage: _Passage) -> list[ReadingEvent]:
        face = passage.over_face
        if passage.back_seen and not passage.decided and face is not None:
            passage.decided = face.label
            return [CardSeen(face.label[5:], True, face.first_frame)]
        return []

    def _end(self) -> list[ReadingEvent]:
        passage, self._passage = self._passage, None
        self._empty_run = 0
        if passage is None:
            return []
        if passage.held is not None:
            # Never read with its suit whole (`_decide`): its suit is a guess, and a card said
            # and then slid back would have the table expect that guess again.
            return [Unreadable(f"{passage.held.card} read only with its suit partly out of "
                               "view: the suit is not sure", passage.held.frame_index)]
        if passage.decided:
            return _went_back(passage)
        if self._triggered is False and passage.frames < self.min_frames:
            return []
        if passage.repeats * 2 >= passage.frames:
            reason = "the camera gave the same image frame after frame (frozen?)"
        elif passage.back_seen:
            # Before the joker: a card whose back the under view saw may be a face-up card
            # of the shoe, which the table must not set aside as a joker uncounted.
            reason = ("face-up card: its back was seen and no over view read its face"
                      if passage.over_given else "face-up card: its back was seen, and this "
                      "shoe has no camera above the card to read its face")
        elif passage.joker_at is not None and "face" not in passage.seen:
            # Told apart from an unreadable card: a joker is not one of the shoe's cards.
            # Not where a face was read too, even once: the frames nearest the joker were a
            # card's top coming in, and the table must count that card (a review, stop 52).
            return [Unreadable(JOKER, passage.joker_at)]
        elif "face" in passage.seen:
            reason = "no two frames agreed on the card"
        else:
            reason = "no confident reading of the card"
        return [Unreadable(reason, passage.first_frame)]
