"""Backs, cut cards and empty windows read along the glance's directions (stages
`surface:<kind>`): a dark brown cut card and the dark interior have nearest views alike in
the one model, and lie apart along their own direction."""

from __future__ import annotations

import numpy as np
import pytest

from vision import enrol
from vision.enrol import (
    MIN_SCORE,
    MIN_SURFACE_LEAD,
    NO_SURFACE_LEAD,
    SAFETY_SURFACE,
    Acceptance,
    _surface_acceptance,
    _surface_accepted,
)

HARMLESS = {"travel": ("empty",), "blank": ("empty",)}


def _held(truth: str, card: str, leads: dict, score: float = 0.9, margin: float = 0.01):
    return enrol.HeldOut(truth, np.zeros((1, 1, 3), np.uint8), card, 0.9, 0.1, -1.0, card,
                         score, margin, 0.8, 0.9, True, False, False, np.zeros(3, np.float32),
                         np.zeros(8, np.float32), -np.inf, leads)


def _leads(empty: float, cut: float = -1.0, back: float = -1.0) -> dict:
    return {"empty": empty, "cut": cut, "back": back}


def test_the_floor_lies_beyond_every_held_back_view_of_anything_else_by_the_safety():
    """Whatever the one model made of them: a cut card it read as a face still sets the
    empty window's floor."""
    held = [_held("empty", "empty", _leads(0.9)), _held("empty", "empty", _leads(0.3)),
            _held("cut", "cut", _leads(0.25)), _held("cut", "7S", _leads(0.41)),
            _held("7S", "7S", _leads(-0.5))]
    stage = _surface_acceptance(held, "empty", Acceptance(0.75, 0.09, 2, 0, 0, 0), HARMLESS)
    assert stage.score == pytest.approx(0.41 + SAFETY_SURFACE)
    assert stage.margin == MIN_SCORE["card"]  # the one model's least score there
    assert stage.accepted == 0.5  # the empty window at 0.9, not the one at 0.3


def test_what_may_be_read_as_empty_at_no_cost_sets_no_floor_of_the_empty_window():
    """A card sliding past or a blank face read as empty is harmless (nothing to read on
    either); as the cut card it is not."""
    held = [_held("empty", "empty", _leads(0.9, cut=-0.9)),
            _held("cut", "cut", _leads(-0.8, cut=0.9)),
            _held("travel:7S", "empty", _leads(1.2, cut=0.5)),
            _held("blank", "empty", _leads(1.1, cut=0.2))]
    model = Acceptance(0.75, 0.09, 1, 0, 0, 0)
    assert _surface_acceptance(held, "empty", model, HARMLESS).score == pytest.approx(
        max(MIN_SURFACE_LEAD, -0.8 + SAFETY_SURFACE))
    assert _surface_acceptance(held, "cut", model, HARMLESS).score == pytest.approx(
        0.5 + SAFETY_SURFACE)


def test_a_kind_the_design_has_no_views_of_is_never_read_along_the_directions():
    held = [_held("empty", "empty", _leads(0.9))]
    stage = _surface_acceptance(held, "back", Acceptance(0.75, 0.04, 0, 0, 0, 0), HARMLESS)
    assert stage.score == NO_SURFACE_LEAD
    assert not stage.accepts(50.0, 1.0)


def test_a_surface_is_read_by_the_model_s_margin_or_by_its_lead_with_the_least_score():
    model = Acceptance(0.9, 0.09, 1, 0, 0, 0)
    surface = Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0)
    assert _surface_accepted(_held("empty", "empty", _leads(-1.0), 0.95, 0.2), model, surface)
    assert _surface_accepted(_held("empty", "empty", _leads(0.6), 0.8, 0.01), model, surface)
    assert not _surface_accepted(_held("empty", "empty", _leads(0.4), 0.95, 0.01), model,
                                 surface)
    assert not _surface_accepted(_held("empty", "empty", _leads(0.9), 0.7, 0.01), model,
                                 surface)
