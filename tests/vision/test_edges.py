"""A card in place shows its top and left edges against the surround; the empty shoe shows
none, whatever its light (`features.card_edges`, in the glance: `model.kind_vector`). A dark
cut card about the interior's colour (gnome-dondorf's brown) and the empty window were
taken for each other where the whole window's colour was all that told them apart."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.decks import draw_cut
from vision.enrol import EDGE_SPARE
from vision.features import card_edges, thumbnail
from vision.gate import SHUT, EmptyGate, gate_vector
from vision.geometry import to_window
from vision.profile import MOST_EDGES
from vision.reader import LOOK_CLOSER, Reader
from vision.synth import EMPTY, Perturbation, random_perturbation, render_window

DARK_BROWN = (14, 27, 49)  # BGR: gnome-dondorf's cut card in `bench.vision`
# The most an empty window stepped in 300 fresh views across the envelope was 0.13 (a glare
# blob at its left edge); the dark brown cut card's median was 0.17.
NO_EDGE = 0.15


def _edges(deck, code, view, rng):
    return card_edges(thumbnail(to_window(render_window(deck, code, view, rng=rng))))


def _with_cut(deck, colour):
    deck = dataclasses.replace(deck, cards=dict(deck.cards))
    deck.cards["CUT"] = draw_cut(colour)
    return deck


def test_the_empty_shoe_shows_no_straight_edge_in_any_light_of_the_envelope(vector_deck):
    """Glare, a hotspot, a gradient, noise: of 200 fresh empty windows, none steps straight
    across the top or down the left as a card's edge does."""
    rng = np.random.default_rng(5)
    steps = np.array([_edges(vector_deck, EMPTY, random_perturbation(rng, 1.0), rng)
                      for _ in range(200)])
    assert steps.max() < NO_EDGE


def test_a_glare_blob_at_the_windows_edge_is_no_card_edge(vector_deck):
    """A glare blob steps sharply, but only along part of where an edge would be."""
    rng = np.random.default_rng(6)
    for at in [(0.1, 0.1, 0.1), (0.05, 0.5, 0.15), (0.5, 0.05, 0.15)]:
        view = Perturbation(glare=0.4, glare_at=at, noise=4.0)
        assert _edges(vector_deck, EMPTY, view, rng).max() < NO_EDGE, at


def test_a_dark_cut_card_in_place_steps_at_both_edges(vector_deck):
    """The dark brown cut card, turned 6 degrees either way and seen 0.8-1 times its size:
    both edges step well past anything the empty window shows. (Seen larger still, a
    card covers the window's corner, and its edges are out of view: there the glance's
    other numbers decide, as before.)"""
    deck = _with_cut(vector_deck, DARK_BROWN)
    rng = np.random.default_rng(7)
    for angle in (-6.0, 0.0, 6.0):
        for scale in (0.8, 0.9, 1.0):
            top, left = _edges(deck, "CUT", Perturbation(angle=angle, scale=scale), rng)
            assert top > 2 * NO_EDGE and left > 2 * NO_EDGE, (angle, scale, top, left)


def test_the_steps_do_not_follow_the_light(vector_deck):
    """A log contrast: the same card in half the light and a colour cast steps about as
    much."""
    deck = _with_cut(vector_deck, (40, 40, 200))
    rng = np.random.default_rng(8)
    bright = _edges(deck, "CUT", Perturbation(), rng)
    dim = _edges(deck, "CUT", Perturbation(gain=0.65, tint=(1.15, 0.9, 1.0)), rng)
    assert np.all(np.abs(dim - bright) < 0.25 * bright), (bright, dim)


def test_enrolment_sets_the_empty_window_s_edge_ceiling_above_its_own_views(
        vector_profile, vector_deck):
    """Fresh empty windows (not those enrolment saw) are read under the ceiling; the dark
    brown cut card in place steps past it."""
    ceiling = vector_profile.empty_edges
    assert EDGE_SPARE <= ceiling < 2 * NO_EDGE
    rng = np.random.default_rng(11)
    fresh = [_edges(vector_deck, EMPTY, random_perturbation(rng, 1.0), rng).max()
             for _ in range(60)]
    assert max(fresh) <= ceiling
    assert _edges(_with_cut(vector_deck, DARK_BROWN), "CUT", Perturbation(), rng).min() > ceiling


def _with_a_card_edge(window: np.ndarray) -> np.ndarray:
    """`window` with its part right of and below its top-left corner 40% brighter: a card of
    about the interior's colour in place, its top and left edges in view."""
    stepped = window.astype(np.float32)
    stepped[18:, 16:] *= 1.4
    return np.clip(stepped, 0, 255).astype(np.uint8)


def test_a_window_with_a_card_s_edge_in_view_is_not_read_as_the_empty_shoe(
        vector_profile, vector_deck):
    """Of fresh empty windows given a card's edges, some are read as the empty shoe with the
    ceiling lifted (so it is the ceiling, nothing else, that holds them back), none with
    it; those the card model names are unknown, saying why. Not those the gate passes
    within LOOK_CLOSER of its reach: there its clearance from every cut card enrolment saw
    stands alone (the edges cost more than the gate's whole read)."""
    rng = np.random.default_rng(12)
    reader = Reader(vector_profile)
    windows = [_with_a_card_edge(to_window(render_window(
        vector_deck, EMPTY, random_perturbation(rng, 1.0), rng=rng))) for _ in range(60)]
    depths = [reader._gate.depth(thumbnail(w)) for w in windows]
    checked = [w for w, d in zip(windows, depths, strict=True) if d is None or d > LOOK_CLOSER]
    assert len(checked) >= 12
    lenient = Reader(dataclasses.replace(vector_profile, empty_edges=MOST_EDGES))
    assert any(lenient.read(w).kind == "empty" for w in checked)
    readings = [reader.read(w) for w in checked]
    assert not any(r.kind == "empty" for r in readings)
    assert any("straight across it, as a card's edge does (the empty window is read with "
               "at most" in r.reason for r in readings)


def test_the_gate_knows_the_empty_windows_among_which_a_window_lies(vector_profile,
                                                                    vector_deck):
    """`among_empty`: within the reach of the empty windows' six numbers; a shut gate, which
    learned none, knows of no window among them."""
    rng = np.random.default_rng(13)
    gate = vector_profile.gate
    empty = [gate_vector(thumbnail(to_window(render_window(
        vector_deck, EMPTY, random_perturbation(rng, 1.0), rng=rng)))) for _ in range(30)]
    assert sum(gate.among_empty(n) for n in empty) >= 27
    card = gate_vector(thumbnail(to_window(render_window(vector_deck, "8H", Perturbation()))))
    assert not gate.among_empty(card)
    assert not SHUT.among_empty(empty[0])


def test_the_cut_card_is_not_read_where_the_window_may_be_the_empty_shoe(
        vector_profile, vector_deck, mocker):
    """In a red cast the dark interior is gnome-dondorf's dark brown cut card: 17 of 6,000
    fresh empty windows were read as it (stop 60). A cut card read where the window lies
    among the empty windows' colour and light with no card's edge in view is unknown; with
    a card's edge in view it is read."""
    reader = Reader(vector_profile)
    # The cut card filling the window, seen large and shifted up and left: no edge in view.
    whole = render_window(vector_deck, "CUT", Perturbation(scale=1.25, dx=-8.0, dy=-12.0))
    in_place = render_window(vector_deck, "CUT", Perturbation())
    assert card_edges(thumbnail(to_window(whole))).max() <= vector_profile.empty_edges
    assert card_edges(thumbnail(to_window(in_place))).max() > vector_profile.empty_edges
    assert reader.read(whole).kind == reader.read(in_place).kind == "cut"
    mocker.patch.object(EmptyGate, "among_empty", return_value=True)
    unread = reader.read(whole)
    assert unread.kind == "unknown"
    assert unread.reason == ("not sure: nearest the cut card's views, but of the empty "
                             "shoe's colour and light, with no card's edge in view")
    assert reader.read(in_place).kind == "cut"
