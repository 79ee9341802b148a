"""Whether a card's reading rests on where its index zone fell: the other cards that match
as well with the zone put a little elsewhere.

The margin asks a reading to stand out from every other card at the pose found; the pose
itself is found only to a step of the search (`register`). A reading that another card
matches as well a step away (`model.NUDGES`) rests on where the zone fell, not on the
index; nor one another card outscores two steps away each way (`model.TWO_STEPS`) or where
the search's other near scale put the zone (`register.Registration.next_scale`). The reader
leaves such readings unknown (`Reader`), and enrolment calibrates the card stage on the
held-back views it does not leave so (`acceptance._left_unknown`), from the same rows: only
those two steps away and at the next scale, with room to spare.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.model import NUDGES, TWO_STEPS, Model, Prepared, describe_nudged
from vision.register import Pose

STEP, TWO, NEXT_SCALE = "a step away", "two steps away", "at the next scale"


@dataclass(frozen=True)
class Rival:
    """Another class that a row of the zone put elsewhere scores best: `where` the zone
    was (STEP, TWO or NEXT_SCALE), the class's number in the model and its score."""

    where: str
    number: int
    score: float

    def doubts(self, own: float, margin: float) -> bool:
        """Whether this rival leaves a reading that scored `own` unsure, the card stage's
        margin being `margin`: a step away, scoring within the margin of it; further off,
        scoring above it."""
        return self.score >= own - margin if self.where == STEP else self.score > own


def rivals_nearby(model: Model, prepared: Prepared, pose: Pose, vector: np.ndarray,
                  elsewhere: np.ndarray | None, number: int) -> list[Rival]:
    """Of the index zone put a step away from `pose`, two steps away and (the vector
    there, if any) `elsewhere`, each place where the card model's best class is not
    `number`, as a `Rival`, in that order. `vector`: the window's vector at `pose`
    (`model.describe` and the glance after it)."""
    rows = describe_nudged(prepared, pose, vector, NUDGES + TWO_STEPS)
    if elsewhere is not None:
        rows = np.vstack([rows, elsewhere[None, :]])
    scores = model.scores_of(model.embed(rows))
    return [Rival(_where(row), int(best), float(scores[row, best]))
            for row, best in enumerate(scores.argmax(axis=1)) if best != number]


def _where(row: int) -> str:
    return STEP if row < len(NUDGES) else TWO if row < len(NUDGES) + len(TWO_STEPS) \
        else NEXT_SCALE
