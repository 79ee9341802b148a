"""The shoe's GPIO panel from one config table: backend, lamps and buttons on shared pins.

[gpio]
backend = "rpigpio"        # or "fake" (simulator, tests, a bench without a Pi)
debounce_ms = 30
[gpio.lamps]
player_draw = 17 ...       # see hardware.lamps
[gpio.buttons]
no_more_bets = 23 ...      # see hardware.buttons
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hardware.buttons import DEFAULT_DEBOUNCE, ButtonEvent, Buttons, parse_button_config
from hardware.errors import HardwareConfigError
from hardware.lamps import Lamps, parse_lamp_config
from hardware.pins import PinBackend, open_backend

KEYS = {"backend", "debounce_ms", "lamps", "buttons"}


@dataclass
class Panel:
    backend: PinBackend
    lamps: Lamps
    buttons: Buttons

    def close(self) -> None:
        self.lamps.close()  # fail-safe state, then the pins are released


def open_panel(
    config: Mapping[str, object],
    *,
    backend: PinBackend | None = None,
    on_press: Callable[[ButtonEvent], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Panel:
    """Validate everything first, so a bad pin stops the service before any pin moves."""
    unknown = sorted(set(config) - KEYS)
    if unknown:
        known = ", ".join(sorted(KEYS))
        raise HardwareConfigError(f"gpio.{unknown[0]}: unknown key; known: {known}")
    lamps_config = _table(config, "lamps")
    buttons_config = _table(config, "buttons")
    debounce_ms = config.get("debounce_ms", DEFAULT_DEBOUNCE * 1000)
    if isinstance(debounce_ms, bool) or not isinstance(debounce_ms, int | float):
        raise HardwareConfigError(f"gpio.debounce_ms must be a number, not {debounce_ms!r}")
    lamp_pins = check_wiring(lamps_config, buttons_config)
    if backend is None:
        name = config.get("backend", "fake")
        backend = open_backend(str(name)) if name != "fake" else open_backend("fake", clock=clock)
    lamps = Lamps(lamps_config, backend)
    buttons = Buttons(buttons_config, backend, on_press=on_press, clock=clock,
                      debounce=debounce_ms / 1000, taken=lamp_pins)  # fmt: skip
    return Panel(backend, lamps, buttons)


def check_wiring(lamps: Mapping[str, object], buttons: Mapping[str, object]) -> dict[int, str]:
    """The lamps' and buttons' wiring checked (names, pins in range, no pin used twice);
    the lamps' pins, each with its owner (`lamps.NAME`)."""
    lamp_pins = {p.pin: f"lamps.{p.name}" for p in parse_lamp_config(lamps).values()}
    parse_button_config(buttons, taken=lamp_pins)
    return lamp_pins


def _table(config: Mapping[str, object], key: str) -> Mapping[str, object]:
    value = config.get(key, {})
    if not isinstance(value, Mapping):
        raise HardwareConfigError(f"gpio.{key} must be a table, not {value!r}")
    return value
