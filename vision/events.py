"""What the tracker reports: one event per physical card that leaves the shoe.

`frame_index` is the frame in which the card first became readable (the first frame of the
run of agreeing readings that decided it), so the service can measure frame-to-lamp latency.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CardSeen:
    """A playing card. `face_up`: it came out face up (the under view saw its back and the
    over view read its face)."""

    card: str  # canonical code: AS, 10H, QD
    face_up: bool = False
    frame_index: int | None = None


@dataclass(frozen=True)
class CutCard:
    """The plastic cutting card."""

    frame_index: int | None = None


@dataclass(frozen=True)
class Unreadable:
    """Something left the shoe that could not be read with confidence: a joker, a smudged
    or foreign card, a face-up card with no over view, two different readings of one card."""

    reason: str
    frame_index: int | None = None


@dataclass(frozen=True)
class SlidBack:
    """The card just read went back into the shoe for good: its index was seen further down
    the window, moving back, and its passage ended so (a card drawn half way and pushed
    back). It was reported as seen and will be seen again when it is drawn: the table keeps
    it where it was dealt and does not count that reading. `frame_index`: the frame where it
    was first seen lower."""

    card: str
    frame_index: int | None = None


ReadingEvent = CardSeen | CutCard | Unreadable | SlidBack
