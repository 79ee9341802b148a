"""Property tests: whatever the perturbation within the shoe's range, never a wrong card."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.cards import ALL_CARDS
from vision.synth import Perturbation, random_perturbation, render_window
from vision.tracker import Tracker

perturbations = st.builds(
    Perturbation,
    dx=st.floats(-6, 6),
    dy=st.floats(-8, 8),
    angle=st.floats(-5, 5),
    scale=st.floats(0.9, 1.1),
    light=st.floats(-0.25, 0.25),
    light_dir=st.floats(0, 6.3),
    tint=st.tuples(*[st.floats(0.9, 1.1)] * 3),
    blur=st.integers(0, 6),
    noise=st.floats(0, 8),
    jpeg=st.sampled_from([0, 30, 60, 90]),
    size=st.sampled_from([(128, 200), (96, 150), (192, 300)]),
)


@settings(max_examples=60, deadline=None)
@given(code=st.sampled_from(ALL_CARDS), perturbation=perturbations,
       travel=st.floats(-40, 40), seed=st.integers(0, 2**16))
def test_a_face_is_read_right_or_not_at_all(vector_deck, vector_reader, code, perturbation,
                                            travel, seed):
    window = render_window(vector_deck, code, perturbation, travel=travel,
                           rng=np.random.default_rng(seed))
    reading = vector_reader.read(window)
    assert reading.kind in ("face", "unknown")
    assert reading.card in (None, code)


@settings(max_examples=40, deadline=None)
@given(code=st.sampled_from(["BACK", "CUT", "EMPTY", "JOKER", "BLANK"]),
       perturbation=perturbations, seed=st.integers(0, 2**16))
def test_what_is_not_a_face_never_reads_as_one(synth_deck, synth_reader, code, perturbation,
                                               seed):
    window = render_window(synth_deck, code, perturbation, rng=np.random.default_rng(seed))
    assert synth_reader.read(window).kind != "face"


@settings(max_examples=25, deadline=None)
@given(labels=st.lists(st.sampled_from(["AS", "AS", "KD", "EMPTY"]), min_size=1, max_size=12))
def test_image_only_tracking_counts_runs_separated_by_empty_frames(vector_deck, vector_reader,
                                                                   labels):
    """Each label two frames long; a card is one run of frames of it between empty ones.
    (Each frame its own exposure: the tracker takes a repeated image for a frozen camera.)"""
    rng = np.random.default_rng(33)
    views = {code: [render_window(vector_deck, code, random_perturbation(rng, 0.1), rng=rng)
                    for _ in range(3)] for code in ("AS", "KD", "EMPTY")}
    tracker = Tracker(vector_reader, gap=2)
    events = []
    shown = 0
    for label in labels:
        for _ in range(2):
            shown += 1
            events += tracker.feed(views[label][shown % 3])
    events += tracker.flush()
    expected = [label for i, label in enumerate(labels)
                if label != "EMPTY" and (i == 0 or labels[i - 1] != label)]
    assert [e.card for e in events] == expected
