"""A card coming up into the window, its top edge too low for its whole index to be in view,
is not read in full (the few frames of every passage before its index shows were each read
in full, a quarter of a simulated shoe's reading time): unknown, told from the thumbnail."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.decks import draw_cut
from vision.features import thumbnail
from vision.geometry import CARD_TOP, WINDOW_H, to_window
from vision.register import ENTERING_BELOW, REFINE_RANGE, ZONE
from vision.synth import SURROUNDS, Perturbation, random_perturbation, render_window
from vision.top_edge import card_top_row

CODES = ("AS", "7D", "KC", "10H", "3S", "QH", "JD", "9C")


def _top(window) -> float | None:
    small = thumbnail(to_window(window))
    row = card_top_row(small)
    return None if row is None else row * WINDOW_H / small.shape[0]


def test_no_card_in_place_across_the_whole_envelope_is_taken_for_one_coming_in(design):
    deck, _ = design
    rng = np.random.default_rng(12)
    tops = [_top(render_window(deck, code, random_perturbation(rng, 1.0), rng=rng))
            for code in CODES * 25]
    # Nor a back, the cut card or a joker in place (none has an index to wait for, but
    # each must still be read).
    others = [_top(render_window(deck, code, random_perturbation(rng, 1.0), rng=rng))
              for code in ("BACK", "CUT", "JOKER") * 25]
    assert all(top is None or top < ENTERING_BELOW for top in others)
    # With a margin of six thumbnail rows; no edge found (a card seen large and shifted up,
    # no surround above it) is no card coming in either.
    found = [top for top in tops if top is not None]
    assert len(found) >= 0.5 * len(tops) and max(found) < ENTERING_BELOW - 24, max(found)


@pytest.mark.parametrize("surround", SURROUNDS)
def test_a_card_whose_whole_index_is_just_in_view_is_read_in_full(design, surround):
    # Seen at the envelope's least scale, brought up just far enough for the bottom of its
    # index zone to be in the window (the renderer scales about the window's centre), over
    # every surround the renderer draws (a lit lip or a table is not dark above the card).
    deck, reader = design
    rng = np.random.default_rng(13)
    least = REFINE_RANGE[0]
    centre = WINDOW_H / 2
    travel = (WINDOW_H - 2 - centre) / least + centre - (ZONE[1] + ZONE[3])
    for code in CODES:
        p = replace(random_perturbation(rng, 0.3, surround=surround), scale=least, dx=0.0,
                    dy=0.0, angle=0.0, keystone=(0.0, 0.0))
        reading = reader.read(render_window(deck, code, p, travel=travel, rng=rng))
        assert not reading.reason.startswith("not sure: a card coming into"), code


def test_a_card_coming_in_reads_unknown_without_its_index_searched_for(design, mocker):
    deck, reader = design
    locate = mocker.spy(reader._registration, "coarse_matches")
    rng = np.random.default_rng(14)
    for code in CODES:
        travel = rng.uniform(ENTERING_BELOW - CARD_TOP + 6, 180)
        reading = reader.read(render_window(deck, code, random_perturbation(rng, 0.3),
                                            travel=travel, rng=rng))
        assert reading.kind == "unknown" and reading.card is None
        assert reading.reason.startswith("not sure: a card coming into the window")
    assert locate.call_count == 0


@pytest.mark.parametrize("colour", [(12, 75, 102), (30, 200, 245), (90, 90, 90)],
                         ids=["dark-brown", "yellow", "grey"])
def test_a_solid_cut_card_in_place_under_uneven_light_is_not_taken_for_one_coming_in(
        synth_deck, colour):
    # A light gradient across a plain card crosses half its brightest straight across the
    # window, like an edge (the vector design's brown cut card in `bench.vision`, its
    # gamma raising the gradient); a hotspot low in the window is the only paper there is.
    deck = replace(synth_deck, cards={**synth_deck.cards, "CUT": draw_cut(colour)})
    rng = np.random.default_rng(15)
    seen = Perturbation(dx=4.0, dy=4.0, angle=1.8, scale=1.16, gain=0.9, gamma=1.45,
                        light=0.25, defocus=0.8, blur=3, noise=1.0, jpeg=86)
    for k in range(40):
        p = replace(seen, light_dir=float(np.pi * k / 20),
                    hotspot=(0.5, float(rng.uniform(0.6, 0.9))) if k % 4 == 3 else None)
        top = _top(render_window(deck, "CUT", p, rng=rng))
        assert top is None or top < ENTERING_BELOW, (k, top)
