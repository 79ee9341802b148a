"""The empty-window gate: a window that is plainly the empty shoe, told from six numbers.

Most frames a shoe's camera sees show no card at all. The full reading of a window (its ink,
its index searched for, two models) costs milliseconds on a Raspberry Pi; the gate looks at
the window's quarter-size thumbnail only: the mean and spread of each colour channel.

It is learned at enrolment, in the space where the empty windows rendered across the camera
envelope are whitened (their Mahalanobis distance). A window passes when it lies within
`reach` of the empty windows' mean (no farther out than the empty windows seen) and at
least `clearance` from every view of anything else enrolment rendered there (cards, backs,
the cut card, jokers, cards' bodies passing). The clearance is calibrated on held-back
views: each held-back view of something else near the empty windows lies within it of a
learned one, with room to spare, so a dark cut card or a back close to the interior's
colour does not pass where it was ever seen, while the empty windows far from any of them
do. A window that does not pass is read in full, as before: the gate only ever answers
"empty" or "read it in full", so it makes reading faster, never different where it was
measured. Nor does a window with a stroke or an edge in it pass (`plain`): the six numbers
follow the light, and to them a card far darker than the envelope goes looked like the
empty shoe.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# The reach: this many times the farthest learned empty window (what lies beyond every empty
# window seen is no empty window the gate knows).
REACH = 1.1
# The clearance: this many times the farthest any held-back view of something else lay from
# its nearest learned one, and never less than MIN_CLEARANCE (in the empty windows' spreads).
ROOM, MIN_CLEARANCE = 1.5, 1.0
# Spread (grey levels squared) added to each number's variance: a flat synthetic interior
# has none, and a camera's noise is never less.
NOISE = 1.0
MIN_EMPTY = 24  # fewer learned empty windows than this teach no gate: it stays shut
# What a learned gate can be (a profile outside these is refused as damaged): the whitening's
# singular values (at most 1/sqrt(NOISE): the noise is in the covariance; at least that of a
# spread of 1,000 grey levels), and the reach (the empty windows, whitened, lie within a few
# spreads of their mean).
WHITENING = (1e-3, 1.0 / np.sqrt(NOISE) + 1e-6)
MAX_REACH = 50.0
# Whatever stage reads a window as empty (the gate, the glance, the one model), its six
# numbers lie within this many reaches of the empty windows': the models weigh hundreds of
# numbers, and a window with no edge in it (a bright pink cut card filling the window, its
# glare the only shape) once came nearest the empty windows there, 23 spreads from them.
# An empty shoe seen that far off (a light gone, a table never enrolled) is unknown too: the
# reader does not know it. Enrolment's figures (held_accepted) do not count this check.
LIKE_EMPTY = 1.4


def gate_vector(small: np.ndarray) -> np.ndarray:
    """The six numbers of a BGR thumbnail (`features.thumbnail`): per channel, mean and
    standard deviation."""
    mean, spread = cv2.meanStdDev(small)
    return np.concatenate([mean.ravel(), spread.ravel()])


@dataclass(frozen=True, eq=False)
class EmptyGate:
    """`mean` (6,) and `whiten` (6, 6): `(vector - mean) @ whiten` has the empty windows'
    spread 1 every way; `reach` and `clearance` in those units; `others` (M, 6): the views of
    anything else near the empty windows, whitened. `reach` 0: the gate is shut."""

    mean: np.ndarray
    whiten: np.ndarray
    reach: float
    clearance: float
    others: np.ndarray

    def __post_init__(self) -> None:
        # In float64 once (a profile keeps float32): the check of one window is then a few
        # small products, with nothing converted (most frames are empty: `passes`).
        for name in ("mean", "whiten", "others"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), np.float64))

    def whitened(self, vectors: np.ndarray) -> np.ndarray:
        return (np.asarray(vectors, np.float64).reshape(-1, 6) - self.mean) @ self.whiten

    def passes(self, small: np.ndarray, numbers: np.ndarray | None = None) -> bool:
        """Whether the thumbnail `small` is plainly the empty shoe: its six numbers within
        the reach and clear of everything else, and `plain` (asked last: a window with a
        card is out of reach already). `numbers`: its `gate_vector`, if the caller has it."""
        return self.depth(small, numbers) is not None

    def depth(self, small: np.ndarray, numbers: np.ndarray | None = None) -> float | None:
        """How far out a window that `passes` lies: its distance from the empty windows'
        mean as a share of the reach (0 .. 1); None for a window that does not pass."""
        numbers = gate_vector(small) if numbers is None else numbers
        if self.reach <= 0:
            return None
        # `passing` for one window, without its batch's reshaping (most frames come here).
        z = (numbers - self.mean) @ self.whiten
        squared = float(z @ z)
        if squared > self.reach * self.reach:
            return None
        if len(self.others):
            apart = self.others - z
            if float(np.sqrt((apart * apart).sum(axis=1).min())) < self.clearance:
                return None
        return float(np.sqrt(squared)) / self.reach if plain(small) else None

    def resembles_empty(self, numbers: np.ndarray) -> bool:
        """Whether a window's six numbers (`gate_vector`) lie within LIKE_EMPTY reaches of
        the empty windows', as anything read as empty must."""
        return self.within_reach(numbers, LIKE_EMPTY)

    def within_reach(self, numbers: np.ndarray, reaches: float = 1.0) -> bool:
        """Whether a window's six numbers (`gate_vector`) lie within `reaches` times the
        reach, where the empty windows enrolment learned lie (`passes` without the
        clearance and `plain`). A shut gate (too few empty windows learned, reach 0) knows
        nothing of them: anything does."""
        if self.reach <= 0:
            return True
        z = self.whitened(numbers)[0]
        return float(z @ z) <= (reaches * self.reach) ** 2

    def among_empty(self, numbers: np.ndarray) -> bool:
        """Whether a window's six numbers (`gate_vector`) lie within the reach, among the
        empty windows enrolment learned; never for a shut gate, which learned none."""
        return self.reach > 0 and self.within_reach(numbers)

    def passing(self, vectors: np.ndarray) -> np.ndarray:
        """The six numbers' part of `passes` (all but `plain`), for gate vectors (N, 6)."""
        z = self.whitened(vectors)
        if self.reach <= 0:
            return np.zeros(len(z), bool)
        inside = (z * z).sum(axis=1) <= self.reach * self.reach
        if not len(self.others) or not inside.any():
            return inside
        return inside & (_nearest(z, self.others) >= self.clearance)


# A thumbnail pixel less than half as bright as the brightest near it (within two thumbnail
# pixels), by more than a grey level, is a stroke of ink or a card's edge against the
# surround, not the shoe's interior, whose noise and gradients stay well above it; more than
# PLAIN_SHARE of them and the window is not plainly empty. The ratio does not care how
# bright the light is: a card at a fifth of its brightness (a lamp gone), which the six
# numbers alone let through as the empty shoe, shows its index and edges all the same.
PLAIN_SHARE = 0.02
_NEAR = cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5))


def plain(small: np.ndarray) -> bool:
    """Whether a BGR thumbnail shows no stroke or edge (see PLAIN_SHARE)."""
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return cv2.countNonZero(strokes(gray)) <= PLAIN_SHARE * gray.size


def strokes(gray: np.ndarray) -> np.ndarray:
    """The mask (255) of a grey thumbnail's pixels in strokes or edges: less than half as
    bright as the brightest within two pixels, by more than a grey level."""
    # gray < near / 2 - 1 in whole grey levels: 2 gray + 2 < near (the sum saturates at 255,
    # which no `near` exceeds: such a pixel is rightly never dark).
    return cv2.compare(cv2.add(cv2.add(gray, gray), 2), cv2.dilate(gray, _NEAR), cv2.CMP_LT)


SHUT = EmptyGate(np.zeros(6), np.zeros((6, 6)), 0.0, 0.0, np.zeros((0, 6)))


def learn_gate(empty: np.ndarray, others: np.ndarray, held_others: np.ndarray) -> EmptyGate:
    """The gate of the learned empty windows' gate vectors `empty` (N, 6), kept clear of the
    learned views of anything else `others` and the held-back ones `held_others`. Shut when
    there are too few empty windows to learn from."""
    empty = np.asarray(empty, np.float64).reshape(-1, 6)
    if len(empty) < MIN_EMPTY:
        return SHUT
    covariance = np.cov(empty, rowvar=False) + NOISE * np.eye(6)
    whiten = np.linalg.inv(np.linalg.cholesky(covariance)).T
    gate = EmptyGate(empty.mean(axis=0), whiten, 1.0, 0.0, np.zeros((0, 6)))
    z_empty = gate.whitened(empty)
    reach = REACH * float(np.sqrt((z_empty * z_empty).sum(axis=1).max()))
    learned, held = gate.whitened(others), gate.whitened(held_others)
    near_held = held[(held * held).sum(axis=1) <= reach * reach]
    seen = float(_nearest(near_held, learned).max()) if len(near_held) and len(learned) else 0.0
    clearance = max(MIN_CLEARANCE, ROOM * seen)
    everyone = np.vstack([learned, held])
    near = everyone[np.sqrt((everyone * everyone).sum(axis=1)) <= reach + clearance]
    return EmptyGate(gate.mean, whiten, reach, clearance, near.astype(np.float64))


def _nearest(points: np.ndarray, among: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest of `among`."""
    squares = ((points * points).sum(axis=1)[:, None] - 2 * points @ among.T
               + (among * among).sum(axis=1)[None, :])
    return np.sqrt(np.maximum(squares.min(axis=1), 0.0))
