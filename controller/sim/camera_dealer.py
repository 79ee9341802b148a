"""A dealer at the emulated shoe with a camera (`sabot emulate-shoe --camera`): the tokens
of an order, in the language of `sabot deal`, turned into cards passing the camera's window
and presses of the shoe's buttons, with a dealer's mistakes on command."""

from __future__ import annotations

import itertools
import threading
from collections import deque

from controller.game import observations as obs
from controller.game.cards import parse_card
from controller.game.script import check_pushed_back, parse_script, pushed_back
from controller.game.shoe import dealt_until_shoe_end, shuffled_shoe
from controller.sim.camera import ShoeCamera
from controller.sim.dealer import BUTTON_OF, dealt_code
from vision.decks import named_deck


class CameraDealer:
    def __init__(self, camera: ShoeCamera, order: list[obs.Observation]) -> None:
        self.camera = camera
        self._order = deque(order)
        self._lock = threading.Lock()  # the command reader and --interval both deal

    @classmethod
    def open(cls, shoe, *, deck: str = "synthetic", port: int = 0, fps: float = 30.0,
             frames_per_card: int = 24, at: tuple[int, int] = (40, 30),
             order: list[obs.Observation] | None = None,
             seed: int | None = None, on_card=None,
             cut_colour: tuple[int, int, int] | None = None) -> CameraDealer:
        """`shoe` is the emulated shoe (PtyShoe: its sensor and buttons); `order` what
        `deal_next` deals (default: a shuffled 8-deck shoe to its end); `cut_colour` the
        cut card's (BGR), in place of the design's."""
        design = named_deck(deck, cut_colour)
        if order is None:
            order = dealt_until_shoe_end(shuffled_shoe(8, seed=seed), 8)
        camera = ShoeCamera(shoe, design, fps=fps, at=at, frames_per_card=frames_per_card,
                            seed=seed, port=port, on_card=on_card)
        return cls(camera, order)

    @property
    def remaining(self) -> int:
        return len(self._order)

    def deal_next(self) -> str | None:
        """The next token of the order; None when it has all been dealt."""
        with self._lock:
            if not self._order:
                return None
            observation = self._order.popleft()
            if pushed_back([observation, *itertools.islice(self._order, 1)], 0):
                self._order.popleft()  # its `<`: the card drawn half way and pushed back
                self._play(observation, pulled_back=True)
                return f"{observation} pushed back"
            self._play(observation)
        return str(observation)

    deal_card = deal_next  # what `--interval` calls on a shoe

    def deal(self, text: str) -> None:
        """Tokens given on the command line, dealt now, ahead of the rest of the order."""
        steps = parse_script(text, "the deal command")
        check_pushed_back(steps, "the deal command")
        observations = [step.observation for step in steps]
        with self._lock:
            for index, observation in enumerate(observations):
                if not isinstance(observation, obs.SlidBack):
                    self._play(observation, pulled_back=pushed_back(observations, index))

    def pull_back(self, code: str) -> None:
        """A card drawn half way into the window and pushed back into the shoe."""
        with self._lock:
            self.camera.deal(parse_card(code), pulled_back=True)

    def _play(self, observation: obs.Observation, *, pulled_back: bool = False) -> None:
        if type(observation) in BUTTON_OF:
            self.camera.press(BUTTON_OF[type(observation)])
            return
        code, face_up = dealt_code(observation)
        self.camera.deal(code, face_up=face_up, pulled_back=pulled_back)
