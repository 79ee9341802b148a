"""bench.resize: what the reader's resize of a camera's window costs, against enrolment's."""

import numpy as np

from bench import resize
from vision.geometry import AREA_BEYOND, WINDOW_H, WINDOW_W


def test_times_both_resizes_of_a_window(capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench.resize", "--repeats", "3"])
    assert resize.main() == 0
    out = capsys.readouterr().out
    for scale in resize.SCALES:
        assert f"{scale:.2f}" in out
    assert out.count(" us") == 2 * len(resize.SCALES)


def test_times_windows_on_both_sides_of_where_the_reader_averages():
    assert min(resize.SCALES) < 1 < AREA_BEYOND < max(resize.SCALES)
    image = np.zeros((WINDOW_H * 2, WINDOW_W * 2, 3), np.uint8)
    assert resize.median_us(image, False, 3) > 0
