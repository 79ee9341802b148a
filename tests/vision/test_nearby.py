"""A reading that rests on where the index zone fell (`nearby`), and how enrolment counts on
the reader leaving such readings unknown: a held-back card read wrong that a check after
the card stage would leave unknown, with room to spare, sets none of its thresholds
(`acceptance._left_unknown`)."""

from __future__ import annotations

import numpy as np
import pytest

from vision import acceptance
from vision.acceptance import SAFETY_CONTRARY, SAFETY_DOUBT, _left_unknown, _thresholds
from vision.model import Pairs
from vision.nearby import NEXT_SCALE, STEP, TWO, Rival

CLASSES = ("7S", "8S", "9S")


def test_a_step_away_another_card_within_the_margin_doubts_a_reading():
    assert Rival(STEP, 1, 0.86).doubts(0.90, 0.04)
    assert Rival(STEP, 1, 0.8601).doubts(0.90, 0.04)
    assert not Rival(STEP, 1, 0.85).doubts(0.90, 0.04)


@pytest.mark.parametrize("where", [TWO, NEXT_SCALE])
def test_further_off_only_another_card_scoring_above_it_doubts_a_reading(where):
    assert Rival(where, 1, 0.91).doubts(0.90, 0.04)
    assert not Rival(where, 1, 0.90).doubts(0.90, 0.04)
    assert not Rival(where, 1, 0.88).doubts(0.90, 0.04)


class _Pairs:
    """The card pairs' leads of the card read over each rival, as given (by the rival's
    number); the rivals asked about are kept."""

    def __init__(self, leads: dict[int, float | None]) -> None:
        self._leads = leads
        self.asked: list[int] = []

    def lead(self, embedded, card, rival):
        self.asked.append(rival)
        return self._leads.get(rival)

    leads = Pairs.leads  # which rivals are asked about: the real rule


def _agreeing() -> _Pairs:
    return _Pairs({0: 0.5, 2: 0.5})


def _misread(score: float, *rivals: Rival, scores=(0.85, 0.9, 0.8)):
    """A held-back 7S read as 8S with `score` (margin 0.2), every class's `scores`, and its
    `rivals` nearby."""
    return acceptance.HeldOut("7S", np.zeros((1, 1, 3), np.uint8), "face", 0.9, 0.5, -1.0,
                              "8S", score, 0.2, 0.8, 0.9, False, False, False,
                              np.zeros(3, np.float32), np.array(scores, np.float32), 1.0, {},
                              rivals)


def test_a_misreading_no_later_check_leaves_unknown_sets_thresholds():
    assert not _left_unknown(_misread(0.9), _agreeing(), CLASSES)
    assert not _left_unknown(_misread(0.9), _Pairs({0: None, 2: None}), CLASSES)


def test_a_card_within_the_margin_a_step_away_is_not_counted_on():
    """A reading that close to another card has it that close a step away nearly always,
    held back or fresh: a fresh 2C read as 2S, leading by 0.017, was not doubted there."""
    held = _misread(0.9, Rival(STEP, 0, 0.899), Rival(STEP, 2, 0.95))
    assert not _left_unknown(held, _agreeing(), CLASSES)


@pytest.mark.parametrize("where", [TWO, NEXT_SCALE])
def test_a_card_further_off_leaves_a_misreading_unknown_only_above_it_by_the_safety(where):
    scored = 0.9 + SAFETY_DOUBT
    assert _left_unknown(_misread(0.9, Rival(where, 0, scored + 0.01)), _agreeing(), CLASSES)
    # Above it, but not by the safety: a fresh view a little off it may not be doubted.
    assert not _left_unknown(_misread(0.9, Rival(where, 0, scored - 0.01)), _agreeing(),
                             CLASSES)


def test_a_close_cards_own_direction_leaves_a_misreading_unknown_only_beyond_the_safety():
    assert _left_unknown(_misread(0.9), _Pairs({0: 0.4, 2: -SAFETY_CONTRARY - 0.01}), CLASSES)
    assert not _left_unknown(_misread(0.9), _Pairs({0: 0.4, 2: -SAFETY_CONTRARY + 0.01}), CLASSES)


def test_only_a_close_card_within_the_rivals_reach_less_the_safety_is_asked():
    """The reader asks of the cards within PAIR_RIVALS of the reading (or its margin, if
    wider); enrolment counts on those within PAIR_RIVALS less SAFETY_MARGIN: a fresh view
    a little off one held back may find the rival a little further behind."""
    from vision.acceptance import SAFETY_MARGIN
    from vision.model import PAIR_RIVALS

    reach = PAIR_RIVALS - SAFETY_MARGIN
    pairs = _Pairs({0: -1.0, 2: -1.0})
    inside, outside = 0.9 - reach + 0.001, 0.9 - reach - 0.001
    assert _left_unknown(_misread(0.9, scores=(inside, 0.9, 0.1)), pairs, CLASSES)
    assert pairs.asked == [0]
    pairs.asked.clear()
    assert not _left_unknown(_misread(0.9, scores=(outside, 0.9, 0.1)), pairs, CLASSES)
    assert pairs.asked == []


def test_a_misreading_left_unknown_sets_no_threshold():
    """The right readings lead by 0.2 with 0.85; a wrong one leads by 0.3 with 0.9. Counted,
    it puts the score floor above 0.9, and no right reading passes; left unknown by a later
    check, the floor is the least score, and every one does."""
    wrong = np.array([(0.9, 0.3)])
    right = np.array([(0.85, 0.2)] * 10)
    counted = _thresholds(wrong, right, 10, 0.75, "cards", [], between=False)
    assert counted.score > 0.9 and counted.accepted == 0.0
    kept = _thresholds(wrong, right, 10, 0.75, "cards", [], between=False,
                       left_unknown=np.array([False]))
    assert (kept.score, kept.margin, kept.accepted) == (counted.score, counted.margin, 0.0)
    left = _thresholds(wrong, right, 10, 0.75, "cards", [], between=False,
                       left_unknown=np.array([True]))
    assert left.score == 0.75 and left.margin <= 0.2 and left.accepted == 1.0
