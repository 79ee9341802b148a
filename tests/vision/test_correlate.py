"""The registration's correlator gives what cv2.matchTemplate(TM_CCOEFF_NORMED) gives."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.correlate import FLAT, Correlator


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), height=st.integers(32, 80), width=st.integers(18, 60),
       count=st.integers(1, 6))
def test_it_matches_opencvs_normalised_correlation(seed, height, width, count):
    rng = np.random.default_rng(seed)
    templates = (rng.random((count, 32, 18)) * 255).astype(np.float32)
    image = (rng.random((height, width)) * 255).astype(np.float32)
    results = Correlator(templates).match(image, list(range(count)))
    for template, result in zip(templates, results, strict=True):
        expected = cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED)
        assert result.shape == expected.shape
        assert np.abs(result - expected).max() < 1e-4


def test_a_flat_place_scores_nothing_instead_of_its_noise_blown_up():
    rng = np.random.default_rng(3)
    template = (rng.random((32, 18)) * 255).astype(np.float32)
    image = np.full((56, 38), 40.0, np.float32)
    # Specks far below a grey level that happen to be shaped like the template.
    image[10:42, 10:28] += template * (FLAT * 1e-4)
    (result,) = Correlator([template]).match(image, [0])
    assert np.abs(result).max() < 0.01


def test_a_floor_scales_a_weak_place_down_by_its_spread():
    rng = np.random.default_rng(4)
    template = (rng.random((32, 18)) * 255).astype(np.float32)
    image = template * 0.1  # the template, faint
    correlator = Correlator([template])
    spread = float(correlator.spread(image)[0, 0])
    (plain,) = correlator.match(image, [0])
    (floored,) = correlator.match(image, [0], floors=[spread * 4])
    assert plain[0, 0] > 0.999
    assert abs(floored[0, 0] - 0.25) < 1e-3


def test_an_image_the_template_s_size_gives_one_place():
    """Found by hypothesis at seed 0, 32 x 18: OpenCV's max took the 1 x 1 spread beside a
    number for a 4-element scalar, and the result came out 4 x 1."""
    rng = np.random.default_rng(0)
    template = (rng.random((32, 18)) * 255).astype(np.float32)
    image = (rng.random((32, 18)) * 255).astype(np.float32)
    (result,) = Correlator([template]).match(image, [0])
    expected = cv2.matchTemplate(image, template, cv2.TM_CCOEFF_NORMED)
    assert result.shape == expected.shape == (1, 1)
    assert abs(float(result[0, 0]) - float(expected[0, 0])) < 1e-4


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       sizes=st.lists(st.tuples(st.integers(32, 70), st.integers(18, 50)), min_size=1,
                      max_size=5),
       count=st.integers(1, 6))
def test_images_matched_together_score_as_each_matched_alone(seed, sizes, count):
    """The coarse search's scales and a refinement's are matched stacked in one transform
    (`match_each`): each image's places see its own pixels only, and a flat place's floor
    is kept."""
    rng = np.random.default_rng(seed)
    templates = (rng.random((count, 32, 18)) * 255).astype(np.float32)
    images = [(rng.random(size) * 255).astype(np.float32) for size in sizes]
    floors = [float(f) for f in rng.uniform(1.0, 80.0, count)]
    correlator = Correlator(templates)
    together = correlator.match_each(images, list(range(count)), floors=floors)
    for image, results in zip(images, together, strict=True):
        alone = correlator.match(image, list(range(count)), floors=floors)
        for mine, expected in zip(results, alone, strict=True):
            assert mine.shape == expected.shape
            assert np.abs(mine - expected).max() < 1e-4
