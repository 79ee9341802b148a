"""Enrolment warns, naming the card, when its index does not fit the window."""

from __future__ import annotations

import cv2
import numpy as np

from vision.cards import ALL_CARDS
from vision.decks import synthetic_deck
from vision.fit import _levelled, fit_warnings
from vision.synth import Perturbation, render_window


def _window_with_glyph(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """A card corner (paper from (13, 14)) over the dark interior, one black stroke on it."""
    window = np.full((200, 128, 3), 30, np.uint8)
    window[14:, 13:] = 240
    cv2.rectangle(window, (x0, y0), (x1, y1), (20, 20, 20), -1)
    return window


def test_a_well_placed_index_gives_no_warning():
    deck = synthetic_deck()
    assert [w for code in ("AS", "10H", "QC", "KS") for w in
            fit_warnings(code, render_window(deck, code))] == []


def test_a_washed_out_photograph_of_a_well_placed_index_gives_no_warning():
    """The shoe's interior lifted above half the paper's brightness, cut by the noise into
    pieces along the card's edge, was taken for an index touching the window's edge."""
    washed = Perturbation(dx=1.57, dy=0.51, angle=-0.086, scale=1.0165, gain=1.2,
                          tint=(1.0035, 0.9854, 1.0182), light=0.0832, light_dir=6.0084,
                          gamma=0.75, defocus=0.545, noise=1.12, jpeg=80, washout=0.3)
    deck = synthetic_deck()
    diamonds = [code for code in ALL_CARDS if code.endswith("D")]
    windows = [render_window(deck, code, washed, rng=np.random.default_rng(2))
               for code in diamonds]
    assert [w for code, window in zip(diamonds, windows, strict=True)
            for w in fit_warnings(code, window)] == []


def test_the_levelling_keeps_the_darkest_pixels_black():
    """The grey levels are stretched from the darkest percent to the brightest: a glyph's
    core darker than that percent stays black (an absolute value had turned it grey)."""
    gray = np.full((200, 128), 200, np.uint8)
    gray[:, :40] = 60  # the lifted interior, the darkest percent
    gray[100:104, 60:64] = 0  # a glyph's core, darker still
    levelled = _levelled(gray)
    assert levelled[0, 0] == 0 and levelled[101, 61] == 0 and levelled[0, 100] == 255


def test_an_index_running_past_the_read_part_is_named_with_the_window_that_would_fit():
    warnings = fit_warnings("QS", _window_with_glyph(22, 40, 34, 158))
    assert len(warnings) == 1
    assert warnings[0].startswith("QS: the index runs past the part of the window that is read")
    assert "a window 10% larger would fit it" in warnings[0]


def test_an_index_cut_by_the_window_edge_is_named():
    """The window placed too far right: no card edge in view, the index cut by its left."""
    window = np.full((200, 128, 3), 240, np.uint8)
    cv2.rectangle(window, (0, 30), (12, 70), (20, 20, 20), -1)
    warnings = fit_warnings("7H", window)
    assert warnings == ["7H: the index touches the window's edge (the window cuts it): centre "
                        "the window on the card's corner with `sabot calibrate`"]


def test_enroll_prints_the_warning_naming_the_card(tmp_path, capsys, vector_samples):
    import shutil

    from controller.cli import main

    samples = shutil.copytree(vector_samples, tmp_path / "samples")
    cv2.imwrite(str(samples / "QS.png"), _window_with_glyph(22, 40, 34, 158))
    assert main(["enroll", str(samples), "--out", str(tmp_path / "p.npz"), "--views", "4"]) == 0
    assert "note: QS: the index runs past the part of the window that is read" in \
        capsys.readouterr().err
