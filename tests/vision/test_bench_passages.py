"""`bench.passages` deals every card through the window into the tracker and counts what the
table would see: read, unread (a halt), read as another card (never)."""

from __future__ import annotations

from bench.passages import deal_passages


def test_every_card_of_the_built_in_design_is_read_once_in_sixteen_frames(
        synth_deck, synth_reader):
    ticks = []
    counts = deal_passages(synth_deck, synth_reader, passages=1, frames=16, seed=3,
                           advance=lambda: ticks.append(1))
    assert counts["passages"] == len(ticks) == 52
    assert counts["wrong"] == counts["slid"] == 0
    assert counts["read"] >= 51, counts["missed"]


def test_every_card_of_the_built_in_design_dealt_face_up_is_read_face_up(
        synth_deck, synth_reader):
    """Past two cameras: the under view sees the back, the over view the face."""
    counts = deal_passages(synth_deck, synth_reader, passages=1, frames=16, seed=4,
                           advance=lambda: None, face_up=True)
    assert counts["passages"] == 52
    assert counts["wrong"] == counts["slid"] == 0
    assert counts["read"] >= 51, counts["missed"]


def test_without_the_card_sensor_every_card_is_found_from_the_frames_alone(
        synth_deck, synth_reader, mocker):
    """A shoe without a card sensor: the tracker is told nothing, and each passage is found
    from the frames alone (a frame read as the empty window mid-passage could split one)."""
    from vision.tracker import Tracker

    fed = mocker.spy(Tracker, "feed")
    counts = deal_passages(synth_deck, synth_reader, passages=1, frames=16, seed=5,
                           advance=lambda: None, sensor=False)
    assert {call.kwargs["card_present"] for call in fed.call_args_list} == {None}
    assert counts["passages"] == 52
    assert counts["wrong"] == counts["slid"] == 0
    assert counts["read"] >= 51, counts["missed"]
