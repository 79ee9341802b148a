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
    _surface_accepted,
    _surface_floor,
    _surface_read,
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
    assert _surface_floor(held, "empty", HARMLESS) == pytest.approx(0.41 + SAFETY_SURFACE)


def test_what_may_be_read_as_empty_at_no_cost_sets_no_floor_of_the_empty_window():
    """A card sliding past or a blank face read as empty is harmless (nothing to read on
    either); as the cut card it is not."""
    held = [_held("empty", "empty", _leads(0.9, cut=-0.9)),
            _held("cut", "cut", _leads(-0.8, cut=0.9)),
            _held("travel:7S", "empty", _leads(1.2, cut=0.5)),
            _held("blank", "empty", _leads(1.1, cut=0.2))]
    assert _surface_floor(held, "empty", HARMLESS) == pytest.approx(
        max(MIN_SURFACE_LEAD, -0.8 + SAFETY_SURFACE))
    assert _surface_floor(held, "cut", HARMLESS) == pytest.approx(0.5 + SAFETY_SURFACE)


def test_a_kind_the_design_has_no_views_of_keeps_a_floor_no_lead_reaches(vector_reader):
    """Its stage keeps NO_SURFACE_LEAD, and the reader finds such a kind no lead at all."""
    held = [_held("empty", "empty", _leads(0.9))]
    assert _surface_floor(held, "back", HARMLESS) == NO_SURFACE_LEAD
    glance = np.zeros(vector_reader._kinds.mean.shape, np.float32)
    assert vector_reader._lead(vector_reader._kinds.embed(glance), "no such kind") == -np.inf


def test_a_surface_is_read_by_the_model_s_margin_or_by_its_lead_with_the_least_score():
    model = Acceptance(0.9, 0.09, 1, 0, 0, 0)
    surface = Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0)
    assert _surface_accepted(_held("empty", "empty", _leads(-1.0), 0.95, 0.2), model, surface)
    assert _surface_accepted(_held("empty", "empty", _leads(0.6), 0.8, 0.01), model, surface)
    assert not _surface_accepted(_held("empty", "empty", _leads(0.4), 0.95, 0.01), model,
                                 surface)
    assert not _surface_accepted(_held("empty", "empty", _leads(0.9), 0.7, 0.01), model,
                                 surface)


def test_the_empty_window_at_a_glance_by_its_margin_or_along_the_directions():
    """Nearest the empty window at a glance with no ink anywhere: read by the glance's
    margin, or with the glance's least score and the empty window's lead at its floor (a
    dark cut card shuts the gate: the empty shoe is then not read in full)."""
    glance = Acceptance(0.7, 0.22, 1, 0, 0, 0)

    def seen(score, margin, lead, no_ink=True):
        held = _held("empty", "empty", _leads(lead))
        held.kind_score, held.kind_margin, held.no_ink = score, margin, no_ink
        return enrol._empty_at_a_glance(held, glance, 0.4)

    assert seen(0.9, 0.3, -1.0)  # by the margin
    assert seen(0.9, 0.05, 0.4)  # along the directions
    assert not seen(0.9, 0.05, 0.39)
    assert not seen(0.65, 0.05, 0.9)  # below the glance's least score
    assert not seen(0.9, 0.3, 0.9, no_ink=False)  # ink: a card's index shows some


@pytest.mark.parametrize("kind", ["cut", "empty"])
def test_enrolment_counts_no_cut_card_or_empty_window_read_on_the_others_side_as_read(kind):
    """As the reader has it (`Reader._surface`): of the cut card and the empty window, a
    held-back view their own direction puts on the other's side is not counted read, by the
    model's margin or along the glance's directions (rules 9.7 and 9.8: the cutting card
    taken for the empty shoe, or the empty shoe for it, misses or calls the last coup)."""
    accept = {"glance:empty": Acceptance(0.7, 0.22, 1, 0, 0, 0),
              f"model:{kind}": Acceptance(0.75, 0.04, 1, 0, 0, 0),
              "surface:empty": Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0),
              "surface:cut": Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0)}
    held = _held(kind, kind, {kind: 0.9}, 0.95, 0.2)  # past both the margin and the floor
    held.no_ink = False  # so not the empty window at a glance
    assert _surface_read(held, accept) == kind
    held.counterpart = 0.0
    assert _surface_read(held, accept) == kind
    held.counterpart = -0.01
    assert _surface_read(held, accept) == "other"
