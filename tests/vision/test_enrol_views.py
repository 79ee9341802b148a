"""`--views` ("fewer is faster"): the views of cards sliding past the window and of their
bodies passing follow the views learned, and the progress counts every view rendered."""

from __future__ import annotations

from vision import enrol
from vision.cards import ALL_CARDS
from vision.enrol import PASSING_VIEWS, SLIDING_VIEWS, TRAIN_VIEWS, enrolment, moving_views


def test_cards_sliding_and_passing_follow_the_views_learned_never_above_the_full_count():
    assert moving_views(SLIDING_VIEWS, TRAIN_VIEWS) == SLIDING_VIEWS
    assert moving_views(PASSING_VIEWS, TRAIN_VIEWS) == PASSING_VIEWS
    assert moving_views(SLIDING_VIEWS, 400) == SLIDING_VIEWS
    assert moving_views(SLIDING_VIEWS, TRAIN_VIEWS // 2) == SLIDING_VIEWS // 2
    assert moving_views(SLIDING_VIEWS, 2) == moving_views(PASSING_VIEWS, 6) == 2


def test_a_quick_enrolment_holds_back_fewer_sliding_cards_and_counts_every_view(synth_faces,
                                                                                 mocker):
    counted = mocker.spy(enrol._Counter, "tick")
    totals = []
    result = enrolment(synth_faces, views=6, progress=lambda done, total: totals.append(total))
    sliding = [h for h in result.held_out if h.truth.startswith("travel:")]
    assert len(sliding) == len(ALL_CARDS) * moving_views(SLIDING_VIEWS, 6) < 52 * SLIDING_VIEWS
    assert totals[-1] == counted.call_count  # the progress bar ends at its total
