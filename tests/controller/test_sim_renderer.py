"""`sabot simulate`'s camera frames rendered in a process of their own
(controller/sim/renderer.py): the same frames as rendering them in the dealer's process, a
clear error when the child stops, and no child left behind."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

import controller.sim.renderer as renderer_module
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


def rendered_here(deck, seed, cards, frames):
    """Each card's frames rendered in this process, as the child renders them."""
    here = np.random.default_rng(seed)
    return [[np.hstack((under, over)) for under, over, _ in two_view_frames(
        deck, code, here, face_up=face_up, frames=frames, severity=0.5)]
        for code, face_up in cards]


def same_frames(taken, expected) -> bool:
    return all(len(got) == len(want)
               and all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
               for got, want in zip(taken, expected, strict=True))


def test_frames_come_through_the_shared_slots_round_and_round_unchanged(deck, monkeypatch):
    """Asked two ahead as the dealer asks, more cards than there are slots (RING): each
    card's frames are its own, though the child wrote later cards in the same slots; the
    pipe carries only each card's count of frames."""
    answers = []
    real_load = renderer_module.pickle.load

    def load(file):
        answers.append(real_load(file))
        return answers[-1]

    monkeypatch.setattr(renderer_module.pickle, "load", load)
    cards = [("2C", False), ("9D", True), ("QS", False), ("4H", False), ("AS", True),
             ("CUT", False), ("10C", False)]
    assert len(cards) > renderer_module.RING
    taken = []
    with CardRenderer(deck, np.random.default_rng(5), 5, 0.5) as renderer:
        for card in cards[:2]:
            renderer.ask(*card)
        for ahead in [*cards[2:], None, None]:
            taken.append(renderer.frames())
            if ahead is not None:
                renderer.ask(*ahead)
    assert same_frames(taken, rendered_here(deck, 5, cards, 5))
    assert answers == [(5,)] * len(cards)


def test_no_more_cards_are_asked_for_than_there_are_slots(deck):
    """RING cards asked and none taken fill every slot: each is still its own; one more
    would write over the first, and is refused."""
    cards = [("5S", False), ("6S", True), ("JD", False), ("2H", False)]
    assert len(cards) == renderer_module.RING
    with CardRenderer(deck, np.random.default_rng(1), 3, 0.5) as renderer:
        for card in cards:
            renderer.ask(*card)
        with pytest.raises(ValueError, match=r"waiting to be taken already"):
            renderer.ask("7S", False)
        taken = [renderer.frames() for _ in cards]
    assert same_frames(taken, rendered_here(deck, 1, cards, 3))


def test_the_shared_frames_are_a_file_with_no_name_closed_with_the_renderer(deck):
    """In memory where the system can (a Pi's /tmp is on its SD card), and nothing of it
    left open once the renderer is closed."""
    before = set(os.listdir("/proc/self/fd"))
    with CardRenderer(deck, np.random.default_rng(1), 3, 0.5) as renderer:
        renderer.ask("5S", False)
        assert len(renderer.frames()) == 3
        maps = open("/proc/self/maps").read()  # noqa: SIM115
        assert "sabot-frames" in maps
    assert set(os.listdir("/proc/self/fd")) <= before
    assert "sabot-frames" not in open("/proc/self/maps").read()  # noqa: SIM115


def test_a_child_that_stops_is_a_clear_error_naming_the_card(deck):
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5) as renderer:
        renderer.ask("ZZ", False)  # no such card in the deck: the child fails on it
        with pytest.raises(RendererError, match=r"while rendering ZZ: .*has no card 'ZZ'"):
            renderer.frames()


def test_the_child_leaves_the_terminal_s_ctrl_c_to_the_dealer_and_ends_with_it(deck):
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5) as renderer:
        child = renderer._process
        # A session of its own: the terminal's SIGINT goes to the foreground group, the
        # dealer's.
        assert os.getsid(child.pid) != os.getsid(0)
        renderer.ask("2C", False)
        assert len(renderer.frames()) == 4
    assert child.returncode == 0  # its input closed, it ended


def test_a_child_killed_is_a_renderer_error_when_asked_not_a_broken_pipe(deck):
    """Found by review: the BrokenPipeError of closing the pipe replaced the RendererError,
    and the CLI takes a BrokenPipeError for a reader gone (exit 0, nothing said)."""
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5) as renderer:
        renderer._process.kill()
        renderer._process.wait()
        with pytest.raises(RendererError, match=r"while asked for 7H: killed by signal 9"):
            renderer.ask("7H", False)
            renderer.ask("8H", False)  # the first may fit in the pipe's buffer


def test_a_child_that_hangs_is_stopped_after_the_timeout(deck, monkeypatch):
    """The first card is allowed the child's start besides (STARTING_S), the next ones the
    timeout alone."""
    monkeypatch.setattr(renderer_module, "STARTING_S", 0.5)
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5, timeout=1.0) as renderer:
        renderer.ask("2C", False)
        renderer.frames()
        os.kill(renderer._process.pid, signal.SIGSTOP)
        renderer.ask("7H", False)
        with pytest.raises(RendererError, match=r"rendering 7H: it gave no frames for 1 s"):
            renderer.frames()
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5, timeout=1.0) as renderer:
        os.kill(renderer._process.pid, signal.SIGSTOP)
        renderer.ask("7H", False)
        with pytest.raises(RendererError, match=r"rendering 7H: it gave no frames for 1.5 s"):
            renderer.frames()


def test_a_module_in_the_current_folder_does_not_take_the_place_of_the_child_s(
        deck, tmp_path, monkeypatch):
    (tmp_path / "numpy.py").write_text("raise ImportError('the wrong numpy')\n")
    monkeypatch.chdir(tmp_path)
    with CardRenderer(deck, np.random.default_rng(1), 4, 0.5) as renderer:
        renderer.ask("2C", False)
        assert len(renderer.frames()) == 4
