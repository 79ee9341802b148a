"""Dealer and supervisor buttons on GPIO, debounced, delivered as `ButtonEvent`s.

Config (the `[buttons]` table, or any mapping); buttons close to ground by default, so the
pin is an input with the internal pull-up and reads low when pressed:

    no_more_bets = 23
    card_disclosed = 24
    acknowledge = { pin = 25, active_high = true }   # a button that pulls the line high
    new_shoe = 16
    count_out = 20

Debouncing: a press counts when the pin reads pressed and it had been quiet (no edge) for
`debounce` seconds before; contact bounce makes edges closer together than that. Edges come
from the backend's edge detection, or from polling where that is refused.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from contract import BUTTON_NAMES
from hardware.errors import HardwareConfigError, NameConfigError
from hardware.pins import PinBackend, check_unique, parse_pin_entry

DEFAULT_DEBOUNCE = 0.03
EVENTS_KEPT = 256  # presses kept for a caller that polls
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ButtonEvent:
    name: str
    at: float  # clock time of the accepted edge


@dataclass(frozen=True)
class ButtonPin:
    name: str
    pin: int
    active_high: bool


def parse_button_config(
    config: Mapping[str, object], taken: Mapping[int, str] | None = None
) -> dict[int, ButtonPin]:
    buttons = {}
    for name, value in config.items():
        if name not in BUTTON_NAMES:
            raise NameConfigError(
                f"buttons.{name}: no such button; buttons are: {', '.join(BUTTON_NAMES)}"
            )
        pin, active_high = parse_pin_entry(value, f"buttons.{name}", default_active_high=False)
        buttons[name] = ButtonPin(name, pin, active_high)
    check_unique({f"buttons.{b.name}": b.pin for b in buttons.values()}, taken)
    return {b.pin: b for b in buttons.values()}


class Buttons:
    """`taken` maps pins already in use (e.g. by lamps) to their owner, to catch clashes."""

    def __init__(
        self,
        config: Mapping[str, object],
        backend: PinBackend,
        *,
        on_press: Callable[[ButtonEvent], None] | None = None,
        debounce: float = DEFAULT_DEBOUNCE,
        clock: Callable[[], float] = time.monotonic,
        taken: Mapping[int, str] | None = None,
    ):
        if not 0 <= debounce <= 1:
            raise HardwareConfigError(f"buttons debounce must be 0-1 s, not {debounce}")
        self.by_pin = parse_button_config(config, taken)
        self.backend = backend
        self.on_press = on_press
        self.debounce = debounce
        self.clock = clock
        # For a caller that polls instead of passing `on_press`; bounded (see `_on_edge`).
        self.events: queue.Queue[ButtonEvent] = queue.Queue(maxsize=EVENTS_KEPT)
        self._lock = threading.Lock()
        self._last_edge: dict[int, float] = {}
        self._pressed: dict[int, bool] = {}
        for button in self.by_pin.values():
            backend.setup_input(button.pin, "down" if button.active_high else "up")
            self._pressed[button.pin] = self._reads_pressed(button)
            self._last_edge[button.pin] = float("-inf")
            backend.watch(button.pin, self._on_edge)

    def _reads_pressed(self, button: ButtonPin) -> bool:
        return self.backend.read(button.pin) == button.active_high

    def _on_edge(self, pin: int) -> None:
        button = self.by_pin.get(pin)
        if button is None:
            return
        now = self.clock()
        pressed = self._reads_pressed(button)
        with self._lock:
            quiet = now - self._last_edge[pin] >= self.debounce
            was_pressed = self._pressed[pin]
            self._last_edge[pin] = now
            self._pressed[pin] = pressed
        if pressed and not was_pressed and quiet:
            event = ButtonEvent(button.name, now)
            if self.on_press is not None:
                self.on_press(event)
                return
            try:
                self.events.put_nowait(event)
            except queue.Full:  # nobody polls: dropped rather than kept for ever
                log.warning("button press dropped, nobody reads the queue: %s", event)
