"""Enrol, then read views across the camera envelope (never the enrolment images)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision.cards import ALL_CARDS, split_code
from vision.geometry import to_window
from vision.model import HUES, SATURATIONS, Prepared, kind_vector
from vision.synth import NOMINAL, random_perturbation, render_window

INDEX_LEAVING = 40  # window pixels: the index's top is out of the window past this


def _read_all(deck, reader, codes, seed, severity=1.0):
    rng = np.random.default_rng(seed)
    return [
        (code, reader.read(render_window(deck, code, random_perturbation(rng, severity), rng=rng)))
        for code in codes
    ]


@pytest.mark.parametrize("severity", [0.5, 1.0])
def test_every_card_is_read_across_the_envelope_and_never_misread(design, severity):
    deck, reader = design
    results = _read_all(deck, reader, ALL_CARDS * 3, seed=1)
    wrong = [(code, r.card or r.kind) for code, r in results
             if r.kind not in ("face", "unknown") or r.card not in (None, code)]
    assert wrong == []
    read = [code for code, r in results if r.card == code]
    assert len(read) >= 0.97 * len(results)
    assert {split_code(code)[0] for code in read} == {split_code(c)[0] for c in ALL_CARDS}


def test_a_reading_reports_rank_suit_and_a_score(vector_deck, vector_reader):
    reading = vector_reader.read(render_window(vector_deck, "10H", random_perturbation(
        np.random.default_rng(4), 0.5)))
    assert (reading.kind, reading.card, reading.rank, reading.suit) == ("face", "10H", "10", "H")
    assert vector_reader.profile.thresholds["card"][0] <= reading.score <= 1.0
    assert reading.as_dict() == {"kind": "face", "card": "10H", "rank": "10", "suit": "H",
                                 "score": round(reading.score, 3)}


@pytest.mark.parametrize("code, kind", [("BACK", "back"), ("CUT", "cut"), ("EMPTY", "empty")])
def test_backs_cut_cards_and_the_empty_window_are_recognised(design, code, kind):
    deck, reader = design
    results = _read_all(deck, reader, [code] * 30, seed=5, severity=0.7)
    kinds = [r.kind for _, r in results]
    assert set(kinds) <= {kind, "unknown"}  # never a card, never another kind
    assert kinds.count(kind) >= 27
    assert all(r.card is None and r.rank is None and r.suit is None for _, r in results)


@pytest.mark.parametrize("code", ["JOKER", "BLANK"])
def test_jokers_and_blank_faces_are_never_a_card(design, code):
    deck, reader = design
    kinds = {r.kind for _, r in _read_all(deck, reader, [code] * 20, seed=6)}
    assert kinds <= {"unknown", "empty"}


def test_a_joker_never_enrolled_is_unknown(vector_deck, vector_reader):
    """The shared deck's samples (reading windows) hold no joker: its jokers are foreign."""
    kinds = {r.kind for _, r in _read_all(vector_deck, vector_reader, ["JOKER", "JOKER2"] * 10,
                                          seed=7)}
    assert kinds == {"unknown"}


def test_a_foreign_deck_is_never_read_as_a_wrong_card(vector_deck, synth_deck, vector_reader,
                                                      synth_reader):
    """Cards of a design that was not enrolled: unknown, or (rarely) right, never wrong."""
    for deck, reader in ((synth_deck, vector_reader), (vector_deck, synth_reader)):
        results = _read_all(deck, reader, ALL_CARDS, seed=8, severity=0.5)
        assert [(c, r.card) for c, r in results if r.kind == "face" and r.card != c] == []


def test_cards_sliding_through_the_window_are_never_misread(design):
    """Every travel position, from entering to gone: a partial index is the card or unknown,
    never another card. While the index is (mostly) in view nothing else is read either;
    once it is leaving (the tracker has decided the card by then) the picture of a court card
    may look like a back to a profile enrolled from reading windows, which never saw it, but
    never like a card."""
    deck, reader = design
    rng = np.random.default_rng(9)
    for code in ("10S", "QD", "8C", "6H", "AC", "JH", "KS"):
        perturbation = random_perturbation(rng, 0.5)
        for travel in range(-520, 220, 12):
            reading = reader.read(render_window(deck, code, perturbation, travel=travel, rng=rng))
            assert reading.card in (None, code), (code, travel, reading)
            if travel > -INDEX_LEAVING:
                assert reading.kind in ("face", "unknown", "empty"), (code, travel, reading)


def test_windows_of_other_sizes_and_grey_images_are_read(vector_deck, vector_reader):
    window = render_window(vector_deck, "QS", NOMINAL)
    big = np.kron(window, np.ones((2, 2, 1), np.uint8))
    grey = window.mean(axis=2).astype(np.uint8)
    assert vector_reader.read(big).card == "QS"
    assert to_window(grey).shape == window.shape
    # Grey loses red/black, so a grey window may be rejected, but never misread.
    assert vector_reader.read(grey).card in (None, "QS")


def test_a_surround_that_is_not_dark_does_not_change_the_reading(design):
    """A table or the shoe's lip past the card's edge (rule of the envelope, not the design)."""
    deck, reader = design
    rng = np.random.default_rng(12)
    for surround in ("felt", "wood", "grey", "lit-lip", "mottled"):
        for code in ("7C", "KD", "AH"):
            p = random_perturbation(rng, 0.4, surround=surround)
            reading = reader.read(render_window(deck, code, p, rng=rng))
            assert reading.card in (None, code), (surround, code, reading)


@pytest.mark.parametrize("code", ["9S", "9C", "5D", "BACK", "CUT"])
def test_the_glances_hues_are_the_cards_not_the_surrounds(vector_deck, code):
    """A card in place shows the surround left of its edge and above its top: over a
    colourful one (a table, a lit lip), the whole window's hues had the card model read
    gnome-rheinland's 9S and 9C as 9D (5 of 104 faces over a mottled surround). The hue
    histogram is of the window's right and lower part, which shows the card."""
    hues = slice(7, 7 + HUES * SATURATIONS)  # after the 7 surface statistics

    def glance(surround: str) -> np.ndarray:
        window = render_window(vector_deck, code, replace(NOMINAL, surround=surround))
        return kind_vector(Prepared(window))[hues]

    dark = glance("interior")
    for surround in ("mottled", "felt", "wood", "lit-lip"):
        assert np.abs(glance(surround) - dark).max() < 0.05, surround


def test_crop_window_cuts_the_calibrated_window(vector_deck, vector_reader):
    from vision.geometry import crop_window
    from vision.synth import camera_frame

    frame = camera_frame(vector_deck, "8H", corner=(200, 40), card_width=250)
    window = crop_window(frame, [195, 38, 95, 148])
    assert window.shape == (148, 95, 3)
    assert vector_reader.read(window).card == "8H"


def test_a_reader_leaves_opencv_threads_to_the_assembly(vector_profile):
    """Issue 9: Reader() changed OpenCV's process-wide thread count."""
    import cv2

    from vision.reader import Reader

    before = cv2.getNumThreads()
    cv2.setNumThreads(2)
    try:
        Reader(vector_profile)
        assert cv2.getNumThreads() == 2
    finally:
        cv2.setNumThreads(before)


def test_the_assembly_runs_opencv_and_the_blas_on_one_thread():
    """A read is a few dozen small OpenCV calls and matrix products: worker threads only
    spin on them, and with the other core busy the BLAS's threads cost 2.4 ms a read."""
    import cv2
    from threadpoolctl import threadpool_info, threadpool_limits

    from vision.reader import one_compute_thread

    before = cv2.getNumThreads()
    with threadpool_limits(limits=2, user_api="blas"):
        try:
            one_compute_thread()
            assert cv2.getNumThreads() == 1
            blas = [pool["num_threads"] for pool in threadpool_info()
                    if pool["user_api"] == "blas"]
            assert blas and set(blas) == {1}
        finally:
            cv2.setNumThreads(before)
