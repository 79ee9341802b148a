"""`bench.foreign` shows one design's profile the cards of another: a foreign card read as
its own value is not caught, one read as another value is the error not allowed."""

from __future__ import annotations

import numpy as np

from bench.foreign import read_foreign
from vision.cards import ALL_CARDS


def test_every_foreign_card_shown_is_counted_once_as_read_or_not(vector_deck, synth_reader):
    ticks = []
    row = read_foreign(synth_reader, [vector_deck], views=1, severity=0.0,
                       rng=np.random.default_rng(3), advance=lambda: ticks.append(1))
    assert row["faces"] == len(ticks) == len(ALL_CARDS)
    assert 0 <= row["own"] + len(row["wrong"]) <= row["faces"]
    for score, what in row["wrong"]:  # each names the card shown and what it was read as
        shown, read = what.split(" as ")
        assert shown.split()[-1] != read.split()[0] and 0.0 < score <= 1.0


def test_a_profile_shown_its_own_design_reads_it_as_its_own_cards(synth_deck, synth_reader):
    """The counting itself: its own design's cards, in place, are read as themselves."""
    row = read_foreign(synth_reader, [synth_deck], views=1, severity=0.0,
                       rng=np.random.default_rng(4))
    assert row["wrong"] == [] and row["own"] >= 50
