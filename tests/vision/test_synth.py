"""The renderer: deck designs, windows, sliding frames, enrolment sample directories."""

from __future__ import annotations

import cv2
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
    # A face given for its design's folder is not said not to exist: it does, as a file.
    with pytest.raises(DeckError, match=r"AS.png: a file; give the directory of the design"):
        load_deck(str(tmp_path / "AS.png"))


def test_a_shared_design_is_found_by_its_name_and_a_short_one_names_what_it_lacks(
        monkeypatch, tmp_path):
    """A new user's trial: `--deck gnome-berlin` was not looked up among the shared designs,
    and a design lacking cards listed five with no word of the rest."""
    shared = tmp_path / "decks"
    (shared / "tiny").mkdir(parents=True)
    cv2.imwrite(str(shared / "tiny" / "AS.png"), np.full((436, 300, 3), 250, np.uint8))
    monkeypatch.setenv("SABOT_DECKS", str(shared))
    monkeypatch.chdir(tmp_path)
    load_deck.cache_clear()
    with pytest.raises(DeckError, match=r"decks/tiny lacks 2S, 3S, 4S, 5S, 6S and 46 more"):
        load_deck("tiny")
    with pytest.raises(DeckError, match=r"does not exist \(nor a design in .*decks\)"):
        load_deck("gnome-nowhere")


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


@pytest.mark.parametrize("hotspot", [None, (0.3, 0.7)])
def test_the_light_is_the_exposure_times_the_cast_times_the_gradient_or_hotspot(hotspot):
    """Each pixel's gain (x GAIN_ONE) is exposure x channel cast x (1 + light x field), the
    field a linear gradient across the window along `light_dir`, or a Gaussian hotspot."""
    from vision.synth import GAIN_ONE, _gain_map

    gain, tint, light, light_dir, size = 1.1, (0.9, 1.0, 1.12), 0.25, 0.7, (128, 200)
    picture = _gain_map(gain, tint, light, light_dir, hotspot, size)
    assert picture.shape == (200, 128, 3) and picture.dtype == np.uint8
    for y, x in [(0, 0), (199, 127), (57, 90), (140, 38), (100, 64)]:
        u, v = x / 128, y / 200
        if hotspot is None:
            field = np.cos(light_dir) * (u - 0.5) + np.sin(light_dir) * (v - 0.5)
        else:
            field = np.exp(-((u - hotspot[0]) ** 2 + (v - hotspot[1]) ** 2) / 0.18)
        expected = [gain * t * (1 + light * field) * GAIN_ONE for t in tint]
        assert np.abs(picture[y, x].astype(float) - expected).max() <= 0.51, (y, x)
    # A bright light saturates instead of wrapping round.
    assert _gain_map(2.5, (1.0, 1.0, 1.0), 0.25, 0.0, None, size).min() == 255
