"""An enrolment directory's samples are taken one way (issue 8: a camera's windows, or a
design's artwork; a window that only seems to repeat its index upside down is a window)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards import ALL_CARDS
from vision.decks import decks_root
from vision.imageio import read_image, write_image
from vision.samples import has_transparent_corners, read_samples, repeats_its_index
from vision.synth import write_faces, write_samples

CODES = ALL_CARDS[:8]


def _repeating(window: np.ndarray) -> np.ndarray:
    """`window` with its top-left corner printed again, upside down, in the opposite one
    (as glare and a card's middle made a photographed gnome-slavic_costumes QH look)."""
    h, w = window.shape[:2]
    corner = window[: h // 4, : w // 3]
    out = window.copy()
    out[h - h // 4 :, w - w // 3 :] = cv2.rotate(corner, cv2.ROTATE_180)
    return out


@pytest.fixture
def windows(tmp_path, vector_deck):
    folder = write_samples(vector_deck, tmp_path / "windows", codes=CODES)
    odd = folder / f"{CODES[3]}.png"
    write_image(odd, _repeating(read_image(odd)))
    assert repeats_its_index(read_image(odd, keep_alpha=True))
    return folder


def test_a_window_that_seems_to_repeat_its_index_among_windows_is_read_as_a_window(windows):
    samples = read_samples(windows)
    assert samples.whole_faces == 0
    assert all(source.extend for code in CODES for source in samples.classes[code])
    assert [n for n in samples.notes if "looks like a whole card face" in n] == [
        f"{CODES[3]}.png: looks like a whole card face (its corner seems printed again in the "
        "opposite one), but most cards' samples are reading windows: read as a window like "
        "them"]


def test_whole_faces_among_windows_stay_whole_faces_when_cut_out_along_their_outline(
        windows, synth_deck, tmp_path):
    faces = write_faces(synth_deck, tmp_path / "faces")
    face = read_image(faces / f"{CODES[5]}.png", keep_alpha=True)
    assert has_transparent_corners(face)
    write_image(windows / f"{CODES[5]}.png", face)
    samples = read_samples(windows)
    assert samples.whole_faces == 1
    assert not samples.classes[CODES[5]][0].extend


def test_a_directory_of_whole_faces_keeps_them_whole(synth_deck, tmp_path):
    samples = read_samples(write_faces(synth_deck, tmp_path / "faces"))
    assert all(not samples.classes[code][0].extend for code in ALL_CARDS)
    assert not [n for n in samples.notes if "looks like a whole card face" in n]


def test_a_back_or_joker_artwork_among_windows_is_still_cut_as_a_whole_face(windows):
    # Flattened (no transparency), the shared designs' backs and jokers mostly repeat their
    # corner upside down: only cards are taken the directory's way.
    design = decks_root() / "gnome-berlin"
    for name in ("back", "joker_1"):
        artwork = read_image(design / f"{name}.png")  # BGR: its transparency dropped
        assert repeats_its_index(artwork)
        write_image(windows / f"{name}.png", artwork)
    samples = read_samples(windows)
    assert not samples.classes["back"][0].extend and not samples.jokers[0].extend
    assert [n for n in samples.notes if "looks like a whole card face" in n] == [
        f"{CODES[3]}.png: looks like a whole card face (its corner seems printed again in the "
        "opposite one), but most cards' samples are reading windows: read as a window like "
        "them"]
