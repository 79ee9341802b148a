"""The index zone is looked for just below the card's top edge where the window shows it
(`register.card_top`, `TOP_REACH`): the zone is the corner inside the card's edges, in
every design, and a big pip or a court card's frame low on the card is not its index."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.cards import ALL_CARDS
from vision.geometry import CARD_TOP
from vision.model import prepare
from vision.register import (
    TOP_REACH,
    ZONE,
    ZONE_BELOW_TOP,
    Registration,
    _Searched,
    card_top,
)
from vision.synth import Perturbation, random_perturbation, render_window, view_matrix


def _true_centre(p: Perturbation) -> tuple[float, float]:
    geometry = np.diag([128 / p.size[0], 200 / p.size[1], 1]) @ view_matrix(p, 0.0)
    x, y, w = geometry @ np.array([ZONE[0] + ZONE[2] / 2, ZONE[1] + ZONE[3] / 2, 1.0])
    return x / w, y / w


def test_a_nominal_card_s_top_edge_seen_puts_the_zone_where_it_is(vector_deck):
    """In the nominal window the edge is seen at the card's top (CARD_TOP, to a thumbnail
    row) and the zone's centre ZONE_BELOW_TOP below it is the nominal zone's."""
    for code in ("AS", "7D", "KH"):
        prepared = prepare(render_window(vector_deck, code, Perturbation(noise=0.0)))
        top = card_top(prepared.small, prepared.small_gray)
        assert top is not None and abs(top - CARD_TOP) <= 4, code
        assert abs(top + ZONE_BELOW_TOP - (ZONE[1] + ZONE[3] / 2)) <= 4, code


def test_every_coarse_match_lies_within_reach_below_the_top_edge_seen(vector_profile,
                                                                      vector_deck):
    """Across the envelope, where the edge is seen: each scale's coarse match is where the
    zone's centre is within TOP_REACH (and a coarse place, 4 px) of its depth below it, and
    the zone is found within 12 px of the index's true place."""
    registration = Registration(vector_profile.templates)
    rng = np.random.default_rng(8)
    seen, off = 0, []
    for i in range(60):
        p = random_perturbation(rng)
        prepared = prepare(render_window(vector_deck, ALL_CARDS[(7 * i) % 52], p, rng=rng))
        top = card_top(prepared.small, prepared.small_gray)
        if top is None:
            continue
        seen += 1
        for match in registration.coarse_matches(prepared.ink, top):
            assert abs(match.cy - (top + ZONE_BELOW_TOP * match.scale)) <= TOP_REACH + 4
        pose = registration.locate(prepared.ink, top)
        cx, cy = _true_centre(p)
        if math.hypot(pose.cx - cx, pose.cy - cy) > 12:
            off.append((i, round(pose.cy), round(cy)))
    assert seen >= 30 and off == []


def test_a_sharper_index_lower_on_the_card_is_not_taken_for_its_blurred_own(vector_profile,
                                                                          vector_deck):
    """A card's own index blurred, and a sharp copy of it seen smaller lower on the card,
    where a big pip or a frame can be (`bench.vision`, seed 20261201: a vector QH seen at
    0.88 and blurred by 6 px was found 66 px below its index, on the big heart in its
    frame). Without the edge the copy is found; with it, the index under the edge."""
    window = render_window(vector_deck, "5S", Perturbation(noise=0.0))
    x, y, w, h = ZONE
    small = (round(w * 0.84), round(h * 0.84))
    copy = cv2.resize(window[y : y + h, x : x + w], small, interpolation=cv2.INTER_AREA)
    window[y : y + h, x : x + w] = cv2.GaussianBlur(window[y : y + h, x : x + w], (0, 0), 3)
    window[90 : 90 + small[1], x : x + small[0]] = copy
    prepared = prepare(window)
    top = card_top(prepared.small, prepared.small_gray)
    registration = Registration(vector_profile.templates)
    assert registration.locate(prepared.ink).cy > 120  # the copy, without the edge
    pose = registration.locate(prepared.ink, top)
    assert abs(pose.cx - (x + w / 2)) <= 6 and abs(pose.cy - (y + h / 2)) <= 8


def test_a_top_edge_no_zone_can_lie_below_leaves_every_row_searched():
    """Rows are kept where the zone's centre may be; where none is (an edge that was not
    the card's), every row is searched, as with no edge seen."""
    band = _Searched(1.0, 0.0, 0.0, 1.0, 1.0, np.zeros((56, 20), np.float32))
    th, pad, factor = 32, 3, 4
    first, last = band.rows_below(82.0, TOP_REACH, th, pad, factor, 25)
    for row in (first, last - 1):  # the centre of a match at `row`, in window pixels
        assert abs((row + th / 2 - pad) * factor - 82.0) <= TOP_REACH
    assert 0 < first < last < 25
    assert band.rows_below(400.0, TOP_REACH, th, pad, factor, 25) == (0, 25)
