"""Every shared deck design enrols from its whole card faces (issue 8)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.decks import decks_root, load_deck
from vision.enrol import enrol, is_whole_face, sample_window
from vision.geometry import WINDOW_H, WINDOW_W
from vision.synth import render_window

DESIGNS = sorted(d.name for d in decks_root().iterdir() if d.is_dir())


def test_the_eleven_shared_designs_are_there():
    assert len(DESIGNS) == 11


@pytest.mark.parametrize("design", DESIGNS)
def test_every_shared_design_enrols_from_whole_faces_with_notes_not_failures(design):
    notes: list[str] = []
    profile = enrol(decks_root() / design, notes)
    assert len(profile.rank_labels) >= 40  # most faces give a template
    assert any("joker_1.png: a joker, not a card of the shoe" in note for note in notes)
    kinds = set(profile.surface_kinds.tolist())
    assert "empty" in kinds
    assert ("back" in kinds) == (decks_root() / design / "back.png").exists()


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
