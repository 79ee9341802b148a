"""`bench.gate` enrols a design with several cut card colours and puts fresh cut cards,
backs and empty windows of each to the empty-window gate alone."""

from __future__ import annotations

import numpy as np
from rich.progress import Progress

from bench.gate import dark_colour, gate_colours
from vision.synth import EMPTY


def test_each_colour_is_enrolled_and_its_cut_cards_backs_and_empty_windows_counted(
        synth_faces):
    cut = (synth_faces / "cut.png").read_bytes()
    with Progress(disable=True) as progress:
        rows = gate_colours(synth_faces, colours=2, per_colour=20, dark=True, seed=5,
                            progress=progress, views=4)
        (task,) = progress.tasks  # each enrolment's own bar is gone once it is done
        assert task.completed == task.total == 2 * (1 + 20 + 2 + 2)
    assert len({row["colour"] for row in rows}) == 2
    for row in rows:
        assert row["CUT"] == (0, 20), row  # no cut card through: a silent error
        assert row["BACK"] == (0, 2) and row[EMPTY][1] == 2
        assert 0.0 <= row["held"] <= 1.0 and row["clearance"] >= 1.0
    # Each colour's cut card sample is written beside links to the design's faces, never
    # through a link onto the design's own cut card.
    assert (synth_faces / "cut.png").read_bytes() == cut


def test_a_dark_cut_card_is_of_the_interiors_brightness():
    rng = np.random.default_rng(1)
    brightest = [max(dark_colour(rng)) for _ in range(200)]  # HSV's value
    assert min(brightest) >= 20 and max(brightest) <= 89
