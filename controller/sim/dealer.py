"""`sabot simulate`: a whole shoe through the real pipeline, with emulated hardware.

The dealer plays a card order at the shoe: for a card, the emulated microcontroller covers
its card sensor (CARD_PRESENT over a pseudo-terminal), the synthetic camera shows the card
sliding through the reading window (vision/synth.py), then the sensor clears; for a button
token (NMB, DISCLOSED, ACK, NEWSHOE, COUNT) the microcontroller reports the button. The observations
come out of the same FrameSource -> Tracker and Link -> queue -> TableService path as on a
live table, with fake GPIO lamps and a real SQLite journal. The dealer waits for each
observation to be handled before the next, as a dealer follows the lamps.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from contract import JOKER
from controller.errors import SabotError
from controller.game import observations as obs
from controller.game.script import format_script, pushed_back
from controller.service.pipeline import Pipeline
from controller.service.runtime import BUTTON_OBSERVATIONS, ShoeRuntime
from controller.sim.renderer import CardRenderer
from firmware_bridge.pty_shoe import PtyShoe
from vision.synth import (
    PASSAGE_SEVERITY,
    WINDOW_H,
    WINDOW_W,
    drawn_half_way,
    render_window,
)

BUTTON_OF = {observation: name for name, observation in BUTTON_OBSERVATIONS.items()}
UNDER_WINDOW = (0, 0, WINDOW_W, WINDOW_H)
OVER_WINDOW = (WINDOW_W, 0, WINDOW_W, WINDOW_H)


class SimulationError(SabotError, RuntimeError):
    """The simulated shoe did not behave: a card gave no reading, the link did not come up."""


class FrameFeed:
    """The synthetic camera's frames: what the dealer shows, in order, and between cards an
    idle view of the empty window at a steady rate, as a real camera keeps streaming."""

    def __init__(self, idle_frame: np.ndarray | None = None, idle_interval: float = 0.02):
        self._frames: queue.Queue = queue.Queue()
        self.idle_frame = idle_frame
        self.idle_interval = idle_interval
        self.put_count = 0  # frames the dealer showed
        self.taken = 0  # of those, taken by the camera
        self.last_shown_index = -1  # camera frame index of the last one taken
        self._yielded = 0

    def put(self, frames: list[np.ndarray]) -> None:
        self.put_count += len(frames)
        for frame in frames:
            self._frames.put(frame)

    def close(self) -> None:
        self._frames.put(None)

    def __iter__(self) -> Iterator[np.ndarray]:
        while True:
            try:
                frame = self._frames.get(timeout=self.idle_interval)
            except queue.Empty:
                if self.idle_frame is None:
                    continue
                frame = self.idle_frame
            else:
                if frame is None:
                    return
                self.taken += 1
                self.last_shown_index = self._yielded
            self._yielded += 1
            yield frame


@dataclass
class DealerTiming:
    speed: float = 0.0  # cards (tokens) per second; 0 = as fast as possible
    frames_per_card: int = 24
    # An installed camera sees far less variation than the robustness benchmarks apply.
    severity: float = PASSAGE_SEVERITY
    gap_frames: int = 2
    timeout: float = 10.0


@dataclass
class Dealer:
    shoe: PtyShoe
    feed: FrameFeed
    runtime: ShoeRuntime
    pipeline: Pipeline
    deck: object
    rng: np.random.Generator
    timing: DealerTiming = field(default_factory=DealerTiming)
    _expected: int = 0
    _empty: np.ndarray | None = None

    def wait_for_link(self) -> None:
        if not self.runtime.wait(lambda: self.runtime.link_up, self.timing.timeout):
            raise SimulationError("the emulated shoe's link did not come up")

    def play(self, observations: list[obs.Observation]) -> None:
        # Frames are rendered two cards ahead, in order, in a process of their own
        # (`CardRenderer`), so the camera reads one card while the next ones are drawn.
        cards = iter([dealt_code(o) for o in observations
                      if type(o) not in BUTTON_OF and not isinstance(o, obs.SlidBack)])
        # The child renders from a generator spawned from the dealer's: the dealer's own
        # moves on, and a second shoe is not the first one's frames again.
        with CardRenderer(self.deck, self.rng.spawn(1)[0], self.timing.frames_per_card,
                          self.timing.severity, timeout=self.timing.timeout) as renderer:
            for card in itertools.islice(cards, 2):
                renderer.ask(*card)
            for step, observation in enumerate(observations, start=1):
                if type(observation) in BUTTON_OF or isinstance(observation, obs.SlidBack):
                    frames = None
                else:
                    frames = renderer.frames()
                    if (card := next(cards, None)) is not None:
                        renderer.ask(*card)
                    if pushed_back(observations, step - 1):
                        frames = drawn_half_way(frames)
                self._step(step, observation, frames)

    def _step(self, step: int, observation: obs.Observation, frames) -> None:
        started = time.monotonic()
        if isinstance(observation, obs.SlidBack):
            pass  # said by the passage of the card before it, which went back
        elif frames is None:
            self.shoe.press(BUTTON_OF[type(observation)])
        else:
            self._pass_card(frames)
        self._expected += 1
        if not self.pipeline.wait_for(self._expected, self.timing.timeout):
            raise SimulationError(f"step {step} ({format_script([observation]).strip()}) "
                                  "produced no observation within "
                                  f"{self.timing.timeout:.0f} s"
                                  + (": the camera did not see the card go back into the "
                                     "shoe" if isinstance(observation, obs.SlidBack) else ""))
        if self.pipeline.error is not None:
            raise self.pipeline.error
        if self.timing.speed > 0:
            time.sleep(max(0.0, 1 / self.timing.speed - (time.monotonic() - started)))

    def _pass_card(self, frames: list[np.ndarray]) -> None:
        self.shoe.card_present()
        self._until(lambda: self.runtime.card_present is True, "the card sensor to report")
        self._show(frames)
        self.shoe.card_gone()
        self._until(lambda: self.runtime.card_present is False, "the card sensor to clear")
        self._show([self._empty_frame()] * self.timing.gap_frames)

    def _empty_frame(self) -> np.ndarray:
        if self._empty is None:
            self._empty = np.hstack((render_window(self.deck, "EMPTY"),) * 2)
        return self._empty

    def _show(self, frames: list[np.ndarray]) -> None:
        self.feed.put(frames)
        target = self.feed.put_count
        self._until(lambda: self.feed.taken >= target
                    and self.runtime.last_index >= self.feed.last_shown_index,
                    "the camera to take the frames")

    def _until(self, predicate: Callable[[], bool], what: str) -> None:
        if not self.runtime.wait(predicate, self.timing.timeout):
            raise SimulationError(f"timed out waiting for {what}")


def dealt_code(observation: obs.Observation) -> tuple[str, bool]:
    if isinstance(observation, obs.Card):
        return observation.card, observation.face_up
    if isinstance(observation, obs.Cut):
        return "CUT", False
    if isinstance(observation, obs.Unreadable):
        # A joker is a joker; any other card the camera cannot read is a card all the same
        # (counted, as `sabot deal` counts UNREADABLE): a face with nothing printed on it.
        # Dealt as a joker, it left the simulated shoe one card fuller than deal's.
        return ("JOKER" if observation.reason == JOKER else "BLANK"), False
    raise SimulationError(f"{observation} cannot be dealt from a simulated shoe")


class Stopwatch:
    """Frame-to-lamp latencies of the observations that changed the lamps."""

    def __init__(self):
        self.latencies: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, handled) -> None:
        if handled.changed_lamps and handled.latency is not None:
            with self._lock:
                self.latencies.append(handled.latency)

    def percentile(self, q: float) -> float | None:
        if not self.latencies:
            return None
        return float(np.percentile(np.array(self.latencies) * 1000, q))
