"""GPIO backend on the RPi.GPIO API.

Raspberry Pi 4 and older: the classic `RPi.GPIO` package (`pip install sabot[pi]`).
Raspberry Pi 5, or any Pi on kernel 6.6+ where /dev/gpiomem no longer maps the pins the old
way: the `rpi-lgpio` drop-in (`sabot[pi5]`), which provides the same `RPi.GPIO` module on top
of lgpio. Never install both: they fight over the module name.

The module is imported lazily here, because importing it off a Pi raises. Where edge
detection is refused (RuntimeError "Failed to add edge detection", seen on some kernels and
under rpi-lgpio without permission to the gpiochip), the pin is polled instead, with a warning.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Mapping
from types import ModuleType

from hardware.errors import BackendUnavailableError
from hardware.pins import EdgeCallback

log = logging.getLogger(__name__)


def import_rpi_gpio() -> ModuleType:
    try:
        return importlib.import_module("RPi.GPIO")
    except (ImportError, RuntimeError) as error:
        # RPi.GPIO raises RuntimeError("This module can only be run on a Raspberry Pi!").
        raise BackendUnavailableError(
            f"the rpigpio backend needs RPi.GPIO ({error}); on a Pi 4 or older install "
            "`sabot[pi]`, on a Pi 5 or kernel 6.6+ `sabot[pi5]` (rpi-lgpio), or use the "
            "`fake` backend"
        ) from error


class RPiGpioPins:
    def __init__(self, gpio: ModuleType | None = None, poll_interval: float = 0.005):
        self.gpio = gpio or import_rpi_gpio()
        self.gpio.setwarnings(False)
        self.gpio.setmode(self.gpio.BCM)
        self.poll_interval = poll_interval
        self.pins: set[int] = set()
        self.polled: dict[int, tuple[EdgeCallback, bool]] = {}
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None

    def setup_output(self, pin: int, level: bool) -> None:
        initial = self.gpio.HIGH if level else self.gpio.LOW
        self.gpio.setup(pin, self.gpio.OUT, initial=initial)
        self.pins.add(pin)

    def write_many(self, levels: Mapping[int, bool]) -> None:
        pins = list(levels)
        self.gpio.output(pins, [self.gpio.HIGH if levels[p] else self.gpio.LOW for p in pins])

    def setup_input(self, pin: int, pull: str) -> None:
        resistor = {"up": self.gpio.PUD_UP, "down": self.gpio.PUD_DOWN, "off": self.gpio.PUD_OFF}
        self.gpio.setup(pin, self.gpio.IN, pull_up_down=resistor[pull])
        self.pins.add(pin)

    def read(self, pin: int) -> bool:
        return bool(self.gpio.input(pin))

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        try:
            self.gpio.add_event_detect(pin, self.gpio.BOTH, callback=callback)
        except RuntimeError as error:
            log.warning("GPIO %d: %s; polling it every %.0f ms instead",
                        pin, error, self.poll_interval * 1000)  # fmt: skip
            self.polled[pin] = (callback, self.read(pin))
            if self._poller is None:
                self._poller = threading.Thread(target=self._poll, name="gpio-poll", daemon=True)
                self._poller.start()

    def poll_once(self) -> None:
        """Compare each polled pin with its last level and report changes as edges."""
        for pin, (callback, last) in list(self.polled.items()):
            level = self.read(pin)
            if level != last:
                self.polled[pin] = (callback, level)
                callback(pin)

    def close(self) -> None:
        self._stop.set()
        if self._poller is not None:
            self._poller.join(timeout=1)
        if self.pins:
            # cleanup() turns the pins back into inputs: each lamp line then takes the level
            # of its external resistor, which is what makes a released pin read as fault.
            self.gpio.cleanup(sorted(self.pins))
            self.pins.clear()

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_interval):
            try:
                self.poll_once()
            except Exception:  # a read error must not kill the poller silently
                log.exception("GPIO polling failed")
