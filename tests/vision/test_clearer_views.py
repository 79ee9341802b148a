"""Views of a back's, cut card's or blank face's window sample rendered clearer than the
sample (`views._clearer`) undo at most the washout the sample shows: a recorded dark brown
cut card, made clearer on top of the envelope's dimmest exposure, was held back as black as
the empty shoe, and the design's empty windows were left unread (`bench.vision --from
recording`, stop 56). And a window sample's blank face keeps the surround past its edges."""

from __future__ import annotations

import numpy as np

import vision.views
from vision.cards import BLANK
from vision.geometry import WINDOW_H, WINDOW_W
from vision.synth import window_source

INTERIOR = (28, 30, 33)  # BGR: the shoe's dark interior, past the card's edge


def _cut_card_window(colour: tuple[int, int, int], lift: float = 0.0) -> np.ndarray:
    """A window sample of a cut card of `colour` (BGR), the interior along its top and left
    edges, its blacks lifted toward white by `lift` (a camera's washout)."""
    window = np.empty((WINDOW_H, WINDOW_W, 3), np.float32)
    window[:] = INTERIOR
    window[12:, 10:] = colour
    window += np.random.default_rng(0).normal(0, 2, window.shape)
    window = 255 * lift + (1 - lift) * window
    return np.clip(np.rint(window), 0, 255).astype(np.uint8)


def _brightest(window: np.ndarray) -> float:
    """The median over the card of each pixel's brightest channel."""
    return float(np.median(window[40:, 30:].max(axis=2)))


def test_a_dark_cut_card_sample_is_never_rendered_as_black_as_nothing():
    source = window_source(_cut_card_window((17, 75, 98)))
    rng = np.random.default_rng(1)
    views = [vision.views._envelope_window("cut", k, source, rng, False, True) for k in range(300)]
    # At the envelope's dimmest (gain 0.65, gamma 1.6) the card's red is about 28; made
    # clearer by the most (0.5) on top of that, every channel came out 2-10.
    assert min(_brightest(view) for view in views) >= 20
    # ... and views of it are still made clearer, by as much as its blacks allow.
    clearer = [vision.views._clearer("cut", k, True, source) for k in range(300)]
    assert 0 < max(clearer) <= vision.views._washout_shown(source) < 0.1


def test_a_washed_out_sample_is_still_rendered_as_clear_as_before():
    """A sample whose blacks a camera lifted by a third is made clearer by up to CLEARER (the
    washout of 0.33 undone), as every window sample was before the bound."""
    source = window_source(_cut_card_window((17, 75, 98), lift=0.34))
    assert vision.views._washout_shown(source) >= vision.views.CLEARER
    clearer = [vision.views._clearer("cut", k, True, source) for k in range(300)]
    assert max(clearer) > 0.9 * vision.views.CLEARER
    assert 0.2 < np.mean([c > 0 for c in clearer]) < 0.4  # CLEARER_SHARE of the views


def test_how_much_a_sample_shows_washed_out_is_its_darkest_lifted_from_black():
    for lift in (0.0, 0.1, 0.2, 0.3):
        shown = vision.views._washout_shown(window_source(_cut_card_window((0, 0, 0), lift)))
        # The washout that lifted black to `lift`, undone: a washout of -lift / (1 - lift)
        # (the darkest percent a little below `lift`, with the noise).
        assert lift / (1 - lift) - 0.04 < shown <= lift / (1 - lift)


def test_a_cards_sample_faint_in_its_ink_alone_is_still_rendered_clearer():
    """Faint ink lifts the ink, not the interior about the card: a card's darkest says
    nothing of it, and its views are made clearer by up to CLEARER whatever its darkest."""
    source = window_source(_cut_card_window((0, 0, 0)))
    assert vision.views._washout_shown(source) < 0.01
    clearer = [vision.views._clearer("7H", k, True, source) for k in range(300)]
    assert max(clearer) > 0.9 * vision.views.CLEARER


def _card_window(lift: float = 0.0) -> np.ndarray:
    """A window sample of a card in place: the interior along its top and left edges, paper
    with a black rank near the corner and a big pip cut by the window's right edge."""
    window = _cut_card_window((205, 200, 210), lift=0.0).astype(np.float32)
    window[30:70, 22:34] = 10  # the rank
    window[90:150, 100:] = 15  # the big pip, running off the right edge
    window = 255 * lift + (1 - lift) * window
    return np.clip(np.rint(window), 0, 255).astype(np.uint8)


def test_a_window_samples_blank_keeps_the_surround_and_paints_the_rest_paper():
    """A face with nothing printed shows the shoe's interior past its edges as any card does.
    Painted over the surround too (paper within reach of every pixel of a thin strip), the
    blank of a photographed card was a flat field, and views of it made clearer came out as
    dark and flat as the empty shoe: gnome-atlasnye's photographed empty windows were read
    as a face with nothing printed (8 of 20, `bench.vision --from photos`)."""
    for lift in (0.0, 0.3):
        window = _card_window(lift)
        blank = vision.views._blank(window_source(window)).image[:, :, :3]
        paper = np.median(blank[20:, 20:].reshape(-1, 3), axis=0)
        assert np.array_equal(blank[:10, :], window[:10, :])  # the surround, as it was
        assert np.array_equal(blank[:, :8], window[:, :8])
        card = blank[14:, 12:].reshape(-1, 3)
        assert np.all(card == paper)  # the rank and the pip off the edge painted over


def test_a_blank_face_is_made_no_clearer_than_its_sample_shows():
    """A face with nothing printed has no ink to be faint: its views are made clearer by at
    most the washout its darkest (the surround) shows, as a back's and a cut card's."""
    clear = vision.views._blank(window_source(_card_window()))
    # Its darkest is the interior's grey 28: as if black had been lifted that far.
    assert max(vision.views._clearer(BLANK, k, False, clear) for k in range(300)) <= \
        vision.views._washout_shown(clear) < 0.12
    washed = vision.views._blank(window_source(_card_window(lift=0.34)))
    assert max(vision.views._clearer(BLANK, k, False, washed) for k in range(300)) > \
        0.9 * vision.views.CLEARER
