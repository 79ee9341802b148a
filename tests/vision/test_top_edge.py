"""A card's top edge across the window, over whatever the camera sees past the card
(`vision.top_edge`): the shoe's dark interior, its lit lip, or the table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.decks import decks_root, load_deck
from vision.features import thumbnail
from vision.geometry import CARD_TOP, WINDOW_H, WINDOW_SIZE, to_window
from vision.register import ENTERING_BELOW
from vision.synth import (
    SURROUNDS,
    Perturbation,
    pulled_a_little,
    random_perturbation,
    render_window,
    view_matrix,
)
from vision.top_edge import _over_light, card_top_row
from vision.tracker import Tracker

CODES = ("AS", "7D", "KC", "10H", "3S", "QH", "JD", "9C")


def _top(window) -> float | None:
    small = thumbnail(to_window(window))
    row = card_top_row(small)
    return None if row is None else row * WINDOW_H / small.shape[0]


def _true_top(p: Perturbation, travel: float) -> float:
    """Where the card's top edge crosses the window's right half (window rows)."""
    matrix = view_matrix(p, travel)
    rows = [(matrix @ np.array([x, CARD_TOP, 1.0])) for x in (70.0, 96.0, 124.0)]
    return float(np.mean([row[1] / row[2] for row in rows]))


@pytest.mark.parametrize("surround", SURROUNDS)
def test_the_top_edge_is_found_where_it_is_over_every_surround(design, surround):
    """The first rule alone (paper twice as bright as what lies above) found 31% of the
    edges in view over grey and none over a lit lip. An edge found is where the card's is;
    one with too little of the surround above it to tell may be found or not."""
    deck, _ = design
    rng = np.random.default_rng(31)
    found, wrong = [], []
    for code in CODES:
        for travel in (0.0, 40.0, 90.0):
            p = replace(random_perturbation(rng, 0.3, surround=surround), size=WINDOW_SIZE)
            top = _top(render_window(deck, code, p, travel=travel, rng=rng))
            truth = _true_top(p, travel)
            if top is not None and abs(top - truth) > 8.0:
                wrong.append((code, travel, top, truth))
            if truth >= 16.0:
                found.append(top is not None)
    assert not wrong
    assert np.mean(found) >= 0.9, (surround, np.mean(found))


def test_no_card_in_place_or_going_out_over_any_surround_is_taken_for_one_coming_in(design):
    """Nor any card whose top edge is above the window, across the whole envelope: the
    tracker takes a card coming in after its face was read for one going back."""
    deck, _ = design
    rng = np.random.default_rng(32)
    tops = []
    for n in range(240):
        p = random_perturbation(rng, 1.0, surround=SURROUNDS[n % len(SURROUNDS)])
        travel = 0.0 if n % 2 else float(rng.uniform(-160.0, -20.0))
        tops.append(_top(render_window(deck, CODES[n % len(CODES)], p, travel=travel, rng=rng)))
    assert all(top is None or top < ENTERING_BELOW for top in tops), max(
        top for top in tops if top is not None)


def test_a_card_glared_below_its_pips_over_a_lit_lip_shows_no_edge_there():
    """A gnome-dondorf 6C in place, glared below its pips over a lit lip, the paper above
    them 0.76 of the glared paper: before the step rule asked for no strokes or edges above,
    its edge was found under the pips, at row 124, as a card coming in."""
    deck = load_deck(str(decks_root() / "gnome-dondorf"))
    p = Perturbation(
        dx=1.94, dy=-6.63, angle=2.09, scale=1.2355, keystone=(-0.0022, 0.0443), gain=0.77,
        tint=(0.855, 0.866, 1.067), light=-0.2155, light_dir=3.649, hotspot=(0.2247, 0.5698),
        gamma=1.065, defocus=0.127, blur=4, noise=7.66, jpeg=91, glare=0.3226,
        glare_at=(0.6098, 0.769, 0.1996), washout=0.08, faint=0.219, surround="lit-lip")
    top = _top(render_window(deck, "6C", p, rng=np.random.default_rng(0)))
    assert top is None or top < 40.0, top


def _thumbnail_rows(above: int, surround: float, paper: float) -> np.ndarray:
    gray = np.full((50, 32), paper, np.uint8)
    gray[:above] = surround
    return gray


def test_the_step_rule_finds_paper_below_a_light_surround():
    # Grey 120 over paper 230: more than half as bright, which the first rule never sees.
    assert _over_light(_thumbnail_rows(12, 120, 230)) == 12


def test_the_step_rule_finds_no_edge_under_a_card_s_ink_or_in_a_gradient():
    # Paper above a band as bright, with an index's strokes in it: a card, not a surround.
    inked = _thumbnail_rows(20, 180, 230)
    inked[:14] = 180
    inked[4:10, 4:8] = 40
    assert _over_light(inked) is None
    # A solid card lit from below: its rows brighten a few percent each.
    assert _over_light(np.repeat(np.linspace(90, 200, 50, dtype=np.uint8)[:, None], 32,
                                 axis=1)) is None


@pytest.mark.parametrize("trigger", [True, False], ids=["sensor", "image-only"])
@pytest.mark.parametrize(("surround", "seed", "reach", "step"), [
    ("grey", 4, 50.0, 10.0), ("lit-lip", 4, 40.0, 28.0), ("lit-lip", 2, 60.0, 4.0)])
def test_a_card_drawn_a_little_then_pushed_back_over_a_light_surround_is_caught(
        synth_deck, synth_reader, trigger, surround, seed, reach, step):
    """Before the step rule, each of these was read and counted twice: going back, the
    card's edge was never seen low in the window (31 of 108 such pulls of this design over
    grey, a lit lip and wood; 15 of 120 of four shared designs over the six surrounds).
    (The lit lip's slow pull was of seed 1 until stop 60: that card's suit was never seen
    whole, and a card read only with its suit cut is unreadable, whatever its edge says.)"""
    rng = np.random.default_rng(seed)
    frames = pulled_a_little(synth_deck, "7C", rng, reach=reach, step=step, surround=surround)
    empty = render_window(synth_deck, "EMPTY", rng=rng)
    tracker = Tracker(synth_reader)
    events = []
    for frame, present in [*frames, *[(empty, False)] * 3]:
        events += tracker.feed(frame, card_present=present if trigger else None)
    events += tracker.flush()
    assert [type(e).__name__ for e in events] == ["CardSeen", "SlidBack"]


def _glared_empty_windows(deck):
    """400 empty windows over each surround, across the envelope with a glare past it (up
    to 0.6 of full white, a radius up to a quarter of the window)."""
    rng = np.random.default_rng(4)
    for surround in SURROUNDS:
        for _ in range(400):
            p = replace(random_perturbation(rng, 1.0, surround=surround),
                        glare=float(rng.uniform(0.15, 0.6)),
                        glare_at=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1)),
                                  float(rng.uniform(0.06, 0.25))))
            yield render_window(deck, "EMPTY", p, rng=rng)


def test_a_glare_on_an_empty_window_is_no_card_coming_in(synth_deck, monkeypatch):
    """A glare's top is a curve at the foot of a long rise, a card's edge a straight step:
    without those two tests, 4 of these 2,400 were taken for a card coming in."""
    import vision.top_edge as top_edge

    thumbnails = [thumbnail(to_window(window)) for window in _glared_empty_windows(synth_deck)]
    tops = [card_top_row(small) for small in thumbnails]
    assert not any(top is not None and top * 4 >= ENTERING_BELOW for top in tops)
    assert sum(top is not None for top in tops) <= 2
    monkeypatch.setattr(top_edge, "STRAIGHT_ROWS", 99)
    monkeypatch.setattr(top_edge, "RISE_ABOVE", 99.0)
    loose = [card_top_row(small) for small in thumbnails]
    assert sum(top is not None and top * 4 >= ENTERING_BELOW for top in loose) >= 2


def test_the_step_rule_finds_paper_below_a_lip_lit_as_bright_as_the_paper_at_the_top():
    """A lip lit from above, as bright as the card's paper at the window's top and darker
    down to the card: asked for no paper above the edge up to the top, the rule saw none,
    and a built-in 4D drawn a little and pushed back over such a lip was counted twice
    (`bench.pulls`)."""
    gray = np.full((50, 32), 235, np.uint8)
    gray[:30] = np.linspace(230, 60, 30, dtype=np.uint8)[:, None]
    assert _over_light(gray) == 30
