"""Every shared deck design enrols from its whole card faces and reads (issue 8). A quick
enrolment (few views) per design: `bench/vision.py` measures the real one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import ALL_CARDS
from vision.decks import decks_root, load_deck
from vision.enrol import enrolment
from vision.geometry import WINDOW_H, WINDOW_W
from vision.reader import Reader
from vision.samples import is_whole_face, sample_window
from vision.synth import random_perturbation, render_window

DESIGNS = sorted(d.name for d in decks_root().iterdir() if d.is_dir())


def test_the_eleven_shared_designs_are_there():
    assert len(DESIGNS) == 11


@pytest.mark.parametrize("design", DESIGNS)
def test_every_shared_design_enrols_from_whole_faces_and_reads_its_cards(design):
    folder = decks_root() / design
    result = enrolment(folder, views=6)
    assert any("joker_1.png: a joker, not a card of the shoe" in n for n in result.notes)
    # Whole faces never show the empty shoe: the operator is told to add it.
    assert any(n.startswith("no empty*.png sample:") for n in result.notes)
    assert sorted(result.profile.card_classes[:52]) == sorted(ALL_CARDS)
    has_back = (folder / "back.png").exists()
    assert ("back" in result.profile.card_classes) == has_back
    deck, reader = load_deck(str(folder)), Reader(result.profile)
    rng = np.random.default_rng(31)
    codes = [ALL_CARDS[i] for i in rng.permutation(52)[:26]]
    readings = [reader.read(render_window(deck, c, random_perturbation(rng, 0.3), rng=rng))
                for c in codes]
    assert [(c, r.card) for c, r in zip(codes, readings, strict=True)
            if r.card not in (None, c)] == []
    assert sum(r.card == c for c, r in zip(codes, readings, strict=True)) >= 20


@pytest.mark.parametrize("design", DESIGNS)
def test_a_whole_face_is_told_from_a_window_and_its_window_is_cut(design):
    face = cv2.imread(str(decks_root() / design / "KH.png"), cv2.IMREAD_UNCHANGED)
    assert is_whole_face(face) and is_whole_face(face[:, :, :3])
    window = render_window(load_deck(str(decks_root() / design)), "KH")
    assert not is_whole_face(window)
    cut = sample_window(face)
    assert cut.shape == (WINDOW_H, WINDOW_W, 3)
    # The same window as the renderer's nominal view of that card.
    assert float(np.abs(cut.astype(int) - window.astype(int)).mean()) < 2.0
