"""Backs, cut cards and empty windows read along the glance's directions (stages
`surface:<kind>`): a dark brown cut card and the dark interior have nearest views alike in
the one model, and lie apart along their own direction."""

from __future__ import annotations

import numpy as np
import pytest

from vision import acceptance, reader
from vision.acceptance import (
    MIN_SCORE,
    MIN_SURFACE_LEAD,
    NO_SURFACE_LEAD,
    SAFETY_SURFACE,
    Acceptance,
    _surface_accepted,
    _surface_floor,
    _surface_read,
)
from vision.cards import BLANK, PASSING
from vision.synth import NOMINAL, Perturbation, render_window

HARMLESS = {"travel": ("empty",), "blank": ("empty",)}
CLASSES = ("AS", "back", "cut", "empty", BLANK, PASSING)  # a card model's, in short


def _held(truth: str, card: str, leads: dict, score: float = 0.9, margin: float = 0.01):
    return acceptance.HeldOut(truth, np.zeros((1, 1, 3), np.uint8), card, 0.9, 0.1, -1.0,
                              card, score, margin, 0.8, 0.9, True, False, False,
                              np.zeros(3, np.float32), np.zeros(8, np.float32), -np.inf, leads)


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
        return acceptance._empty_at_a_glance(held, glance, 0.4)

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
    assert _surface_read(held, accept, CLASSES) == kind
    held.counterpart = 0.0
    assert _surface_read(held, accept, CLASSES) == kind
    held.counterpart = -0.01
    assert _surface_read(held, accept, CLASSES) == "other"


@pytest.mark.parametrize("side", [BLANK, PASSING])
def test_enrolment_counts_a_surface_the_model_took_for_a_face_s_side_read_along_the_glance(
        side):
    """As the reader has it: nearest a face's side in the one model, the glance's kind is
    read along the glance's directions alone, with the one model's score of it."""
    accept = {"glance:empty": Acceptance(0.7, 0.22, 1, 0, 0, 0),
              "glance:passing": Acceptance(2.0, 2.0, 1, 0, 0, 0),
              "glance:side": Acceptance(2.0, 2.0, 1, 0, 0, 0),
              "model:cut": Acceptance(0.75, 0.04, 1, 0, 0, 0),
              "surface:cut": Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0),
              "surface:empty": Acceptance(0.5, MIN_SCORE["card"], 1, 0, 0, 0)}
    held = _held("cut", side, _leads(-1.0, cut=0.6), 0.9, 0.01)
    held.kind, held.no_ink = "cut", False
    held.scores = np.array([0.1, 0.2, 0.88, 0.3, 0.9, 0.6], np.float32)
    assert _surface_read(held, accept, CLASSES) == "cut"
    held.surface_leads = _leads(-1.0, cut=0.49)  # short of the floor
    assert _surface_read(held, accept, CLASSES) == "other"
    held.counterpart = -0.01  # on the empty window's side of the two
    assert _surface_read(held, accept, CLASSES) == "other"
    held.counterpart = None
    held.surface_leads = _leads(-1.0, cut=0.6)
    held.scores[2] = MIN_SCORE["card"] - 0.01  # the one model's score of it too low
    assert _surface_read(held, accept, CLASSES) == "other"
    held.kind = "face"  # the glance says no surface
    held.scores[2] = 0.88
    assert _surface_read(held, accept, CLASSES) == "other"


def _nearest_a_blank_face(mocker):
    """The reader's one model made to put a blank face first, a hair ahead of what it
    found nearest (the vector design's light brown cut card seen washed out: a blank face
    0.87, the cut card 0.86, `bench.vision`)."""
    found = reader.ranked

    def first_a_blank(model, scores):
        name, score, _, _ = found(model, scores)
        return BLANK, score + 0.01, 0.01, name

    mocker.patch.object(reader, "ranked", side_effect=first_a_blank)


def test_a_cut_card_the_one_model_puts_nearest_a_blank_face_is_read_along_the_glance(
        mocker, vector_deck, vector_reader):
    """Rule 9.8: the cutting card is read, not left unknown, where the glance's directions
    put it past the cut card's floor."""
    window = render_window(vector_deck, "CUT", NOMINAL)
    assert vector_reader.read(window).kind == "cut"
    _nearest_a_blank_face(mocker)
    read = vector_reader.read(window)
    assert (read.kind, read.looks) == ("cut", "")


def test_a_blank_face_the_one_model_puts_nearest_itself_stays_not_a_card(
        mocker, vector_deck, vector_reader):
    """The glance's kind is no surface: as before, not a card."""
    _nearest_a_blank_face(mocker)
    read = vector_reader.read(render_window(vector_deck, "BLANK", Perturbation(noise=2.0)))
    assert (read.kind, read.looks) == ("unknown", BLANK)


@pytest.mark.parametrize("like_the_shoe", [True, False])
def test_the_empty_window_the_one_model_puts_behind_a_blank_face_needs_the_shoe_s_colour(
        mocker, vector_deck, vector_reader, like_the_shoe):
    """Rules 9.7 and 9.8: read along the glance as the empty window only where the window is
    of about the empty shoe's colour and light, as when the one model names it: a pink cut
    card filling the window, glared, the glance saying empty, was read as the empty shoe
    (gnome-rheinland, `bench.vision --severity 1.6`). The empty window here is sent past
    the gate and the glance's own reading of it, to the one model."""
    gate = type(vector_reader._gate)
    mocker.patch.object(gate, "depth", return_value=None)
    mocker.patch.object(gate, "within_reach", return_value=False)
    mocker.patch.object(gate, "resembles_empty", return_value=like_the_shoe)
    _nearest_a_blank_face(mocker)
    read = vector_reader.read(render_window(vector_deck, "EMPTY", NOMINAL))
    assert (read.kind, read.looks) == (("empty", "") if like_the_shoe else ("unknown", BLANK))


@pytest.mark.parametrize("travel", [0.0, -60.0, -120.0])
def test_the_cut_card_says_whether_it_reaches_above_the_window(design, travel):
    """In place, the cut card shows its top edge, the surround above it; gone on up, it
    reaches past the window's top (`Reading.card_above`: to the tracker, after a face, a
    cut card with no top edge seen is that face's body leaving)."""
    deck, reading_of = design
    rng = np.random.default_rng(5)
    seen = reading_of.read(render_window(deck, "CUT", NOMINAL, travel=travel, rng=rng))
    assert seen.kind == "cut"
    assert seen.card_above == (travel < 0)
    face = reading_of.read(render_window(deck, "9H", NOMINAL, travel=travel, rng=rng))
    assert not face.card_above  # said of the cut card alone
