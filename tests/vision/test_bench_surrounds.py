"""`bench.surrounds` reads every card, the cut card and the empty window over each surround a
camera may see past the card's edge instead of the dark interior, and counts what is silent."""

from __future__ import annotations

from bench.surrounds import OTHER_SURROUNDS, read_surrounds


def test_every_card_is_read_over_every_other_surround_and_none_as_another(synth_deck,
                                                                          synth_reader):
    ticks = []
    rows = read_surrounds(synth_deck, synth_reader, views=1, surfaces=2, seed=3,
                          advance=lambda: ticks.append(1))
    assert [row["surround"] for row in rows] == list(OTHER_SURROUNDS)
    assert len(ticks) == (52 + 4) * len(OTHER_SURROUNDS)
    for row in rows:
        assert row["faces"] == 52 and row["cut"] == row["empty"] == 2, row
        assert row["silent"] == [], row
        assert row["right"] + row["unknown"] + len(row["silent"]) == 52  # each face once
        assert 0 <= row["cut_right"] <= 2 and 0 <= row["empty_right"] <= 2
        assert row["right"] >= 46, row
