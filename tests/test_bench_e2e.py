"""`bench.e2e`'s account of the reading time: each read timed by what it read, through the
simulation's own assembly (`build_simulation(reader=...)`)."""

from __future__ import annotations

import numpy as np

from bench.e2e import ReadingMix, outcome
from controller.sim.setup import build_simulation, load_observations
from tests.shared_profiles import suite_reader
from vision.decks import synthetic_deck
from vision.reader import Reading


class _Scripted:
    """Reads the windows as told, in turn; has a profile as a reader has."""

    profile = "the profile"

    def __init__(self, readings: list[Reading]) -> None:
        self._readings = iter(readings)

    def read(self, image, *, back_expected=False) -> Reading:
        return next(self._readings)


def test_each_read_is_counted_by_view_and_what_it_read():
    readings = [Reading("face", "7H", "7", "H"), Reading("unknown", looks="passing"),
                Reading("unknown", reason="not sure: 7H 0.6"), Reading("back"),
                Reading("unknown", looks="passing")]
    mix = ReadingMix(_Scripted(readings))
    window = np.zeros((200, 128, 3), np.uint8)
    got = [mix.read(window), mix.read(window), mix.read(window),
           mix.read(window, back_expected=True), mix.read(window)]
    assert got == readings  # what the reader read, unchanged
    assert mix.profile == "the profile"  # the rest of the reader is the reader's
    assert {name: len(times) for name, times in mix.times.items()} == {
        "under face": 1, "under unknown: passing": 2, "under unknown: not sure": 1,
        "over back": 1}
    assert outcome(Reading("empty"), over=True) == "over empty"


def test_the_lines_rank_outcomes_by_their_share_of_the_reading_time():
    mix = ReadingMix(_Scripted([]))
    mix.times.update({"under face": [0.006, 0.008], "under empty": [0.0001] * 10,
                      "over back": [0.012]})
    lines = mix.lines()
    assert [line.split()[0:2] for line in lines] == [
        ["under", "face"], ["over", "back"], ["under", "empty"]]
    assert "2 reads, median  7.00 ms" in lines[0] and "52% of the reading time" in lines[0]


def test_a_simulation_reads_with_the_reader_it_is_given(tmp_path):
    """The assembly takes the bench's timing reader instead of enrolling one, and every
    frame the tracker reads goes through it."""
    mix = ReadingMix(suite_reader(synthetic_deck()))
    observations, settings = load_observations(None, 8, "A", 0)
    with build_simulation(settings, str(tmp_path / "j.sqlite"), seed=0, reader=mix) as sim:
        sim.dealer.play(observations[:6])
        sim.drain()
        frames = sim.runtime.frames
    under = sum(len(times) for name, times in mix.times.items() if name.startswith("under"))
    assert len(mix.times["under face"]) >= 6 * 2  # each card decided by two faces at least
    assert 0 < under <= frames  # the under view once a frame at most (an empty one: never)
    assert all(name.split()[0] in ("under", "over") for name in mix.times)
