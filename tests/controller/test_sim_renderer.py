"""`sabot simulate`'s camera frames rendered in a process of their own
(controller/sim/renderer.py): the same frames as rendering them in the dealer's process, a
clear error when the child stops, and no child left behind."""

from __future__ import annotations

import os

import numpy as np
import pytest

from controller.sim.renderer import CardRenderer, RendererError
from vision.decks import synthetic_deck
from vision.synth import two_view_frames

CARDS = [("7H", False), ("KS", True), ("CUT", False)]


@pytest.fixture(scope="module")
def deck():
    return synthetic_deck()


def test_the_child_renders_the_frames_the_dealer_s_own_generator_would(deck):
    with CardRenderer(deck, np.random.default_rng(11), 6, 0.5) as renderer:
        for card in CARDS:
            renderer.ask(*card)
        rendered = [renderer.frames() for _ in CARDS]
    here = np.random.default_rng(11)
    for (code, face_up), frames in zip(CARDS, rendered, strict=True):
        expected = [np.hstack((under, over)) for under, over, _ in two_view_frames(
            deck, code, here, face_up=face_up, frames=6, severity=0.5)]
        assert len(frames) == len(expected) == 6
        for got, want in zip(frames, expected, strict=True):
            assert np.array_equal(got, want)


def test_a_child_that_stops_is_a_clear_error_naming_the_card(deck):
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5) as renderer:
        renderer.ask("ZZ", False)  # no such card in the deck: the child fails on it
        with pytest.raises(RendererError, match=r"while rendering ZZ: .*has no card 'ZZ'"):
            renderer.frames()


def test_the_child_leaves_the_terminal_s_ctrl_c_to_the_dealer_and_ends_with_it(deck):
    renderer = CardRenderer(deck, np.random.default_rng(1), 4, 0.5)
    child = renderer._process
    # A session of its own: the terminal's SIGINT goes to the foreground group, the dealer's.
    assert os.getsid(child.pid) != os.getsid(0)
    renderer.ask("2C", False)
    assert len(renderer.frames()) == 4
    renderer.close()
    assert child.returncode == 0
