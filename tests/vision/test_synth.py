"""The renderer: deck designs, windows, sliding frames, enrolment sample directories."""

from __future__ import annotations

import numpy as np
import pytest

from vision.cards import ALL_CARDS
from vision.decks import decks_root, load_deck, synthetic_deck
from vision.errors import DeckError, VisionError
from vision.geometry import WINDOW_H, WINDOW_W
from vision.synth import (
    EMPTY,
    Perturbation,
    card_frames,
    random_perturbation,
    render_window,
    shoe_frames,
    write_samples,
)


def test_both_designs_have_every_card_and_the_specials():
    for deck in (load_deck(), synthetic_deck()):
        for code in (*ALL_CARDS, "BACK", "CUT", "JOKER", "BLANK"):
            assert deck.image(code).shape == (436, 300, 4)
    assert synthetic_deck().image("td") is synthetic_deck().image("10D")


def test_unknown_codes_and_missing_directories_are_clear_errors(tmp_path):
    with pytest.raises(DeckError, match="no card 'ZZ'"):
        synthetic_deck().image("ZZ")
    with pytest.raises(DeckError, match="does not exist"):
        load_deck(str(tmp_path / "none"))
    (tmp_path / "AS.png").write_bytes(b"")
    with pytest.raises(VisionError):
        load_deck(str(tmp_path))


def test_sabot_decks_overrides_where_designs_are_found(monkeypatch, tmp_path):
    monkeypatch.setenv("SABOT_DECKS", str(tmp_path))
    assert decks_root() == tmp_path


def test_rendering_is_deterministic_for_a_seed():
    deck = synthetic_deck()
    a = render_window(deck, "KS", random_perturbation(np.random.default_rng(1)),
                      rng=np.random.default_rng(2))
    b = render_window(deck, "KS", random_perturbation(np.random.default_rng(1)),
                      rng=np.random.default_rng(2))
    assert np.array_equal(a, b)


def test_windows_have_the_requested_size_and_the_empty_window_is_dark():
    deck = synthetic_deck()
    assert render_window(deck, "AS").shape == (WINDOW_H, WINDOW_W, 3)
    assert render_window(deck, "AS", Perturbation(size=(64, 100))).shape == (100, 64, 3)
    assert render_window(deck, EMPTY).mean() < 40
    assert render_window(deck, "AS", travel=WINDOW_H + 30).mean() < 40


def test_a_card_passage_starts_and_ends_out_of_view():
    frames = list(card_frames(synthetic_deck(), "9D", np.random.default_rng(3), frames=24))
    assert len(frames) == 24
    assert frames[0][0].mean() < 60 and frames[-1][0].mean() < 60
    assert any(present for _, present in frames)
    assert max(f.mean() for f, _ in frames) > 150


def test_a_shoe_has_gaps_between_cards():
    frames = list(shoe_frames(synthetic_deck(), ["AS", "2S"], np.random.default_rng(4),
                              frames_per_card=10, gap_frames=3))
    assert len(frames) == 2 * (10 + 3)
    assert [p for _, p in frames[10:13]] == [False] * 3


def test_write_samples_makes_an_enrolment_directory(tmp_path):
    out = write_samples(synthetic_deck(), tmp_path / "s", codes=["AS", "10H"])
    assert sorted(p.name for p in out.iterdir()) == ["10H.png", "AS.png", "back.png", "cut.png",
                                                      "empty.png"]
