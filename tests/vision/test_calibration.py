"""The acceptance calibrated at enrolment is kept by the reader, stage by stage: none of the
views held back to calibrate it is read as something it is not."""

from __future__ import annotations

import pytest

from vision.enrol import enrolment
from vision.reader import Reader


@pytest.fixture(scope="module")
def enrolled(vector_samples):
    return enrolment(vector_samples, views=12)


def _truth(held) -> str:
    return held.truth_card if held.truth_kind == "face" else held.truth_kind


def test_no_held_back_view_is_read_as_another_card_or_kind(enrolled):
    reader = Reader(enrolled.profile)
    wrong = []
    for held in enrolled.held_out:
        reading = reader.read(held.window)
        said = reading.card or reading.kind
        harmless = ("unknown", "empty") if held.sliding or held.truth == "blank" else ("unknown",)
        if said != _truth(held) and said not in harmless:
            wrong.append(f"{held.truth} read {said}")
    assert wrong == []


def test_the_over_view_takes_a_back_at_a_glance_and_nothing_else_for_one(enrolled):
    reader = Reader(enrolled.profile)
    backs = [h for h in enrolled.held_out if h.truth == "back"]
    others = [h for h in enrolled.held_out if h.truth != "back"]
    assert all(reader.read(h.window, back_expected=True).kind != "back" for h in others)
    read = sum(reader.read(h.window, back_expected=True).kind == "back" for h in backs)
    assert read >= 0.9 * len(backs)


def test_each_kind_has_thresholds_of_its_own(enrolled):
    thresholds = enrolled.profile.thresholds
    assert {"model:back", "model:cut", "model:empty", "glance:empty"} <= set(thresholds)
    assert all(0.0 < score <= 1.0 and 0.0 < margin < 1.0
               for stage, (score, margin) in thresholds.items() if stage != "pair")
    least_lead, unused = thresholds["pair"]  # in half-distances between two cards
    assert least_lead >= 0.3 and unused == 0.0
