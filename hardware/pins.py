"""The narrow pin interface every GPIO backend implements, and the backend registry.

Like gpiozero's pin factories: `Lamps` and `Buttons` talk to a `PinBackend` only, backends
are imported lazily by name (`fake` needs nothing, `rpigpio` needs RPi.GPIO or rpi-lgpio),
so everything but the `rpigpio` backend itself runs anywhere.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Protocol

from hardware.errors import BackendUnavailableError, HardwareConfigError, PinConfigError

# BCM numbers on the 40-pin header. 0 and 1 are reserved for the HAT ID EEPROM.
VALID_PINS = range(2, 28)
EdgeCallback = Callable[[int], None]


class PinBackend(Protocol):
    def setup_output(self, pin: int, level: bool) -> None: ...
    def write_many(self, levels: Mapping[int, bool]) -> None: ...
    def setup_input(self, pin: int, pull: str) -> None: ...  # pull: "up", "down", "off"
    def read(self, pin: int) -> bool: ...
    def watch(self, pin: int, callback: EdgeCallback) -> None: ...  # both edges
    def close(self) -> None: ...


BACKENDS = {"fake": "hardware.fake_pins:FakePins", "rpigpio": "hardware.rpigpio:RPiGpioPins"}


def open_backend(name: str, **options) -> PinBackend:
    """The backend called `name` (`gpio.backend` in the config)."""
    if name not in BACKENDS:
        raise HardwareConfigError(
            f"gpio backend {name!r} is unknown; choose one of: {', '.join(BACKENDS)}"
        )
    module_name, class_name = BACKENDS[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:  # pragma: no cover - our own modules import nothing odd
        raise BackendUnavailableError(f"gpio backend {name!r}: {error}") from error
    return getattr(module, class_name)(**options)


def check_pin(pin: object, where: str) -> int:
    if isinstance(pin, bool) or not isinstance(pin, int):
        raise PinConfigError(f"{where}: pin must be a BCM number, not {pin!r}")
    if pin not in VALID_PINS:
        raise PinConfigError(
            f"{where}: BCM pin {pin} is out of range {VALID_PINS.start}-{VALID_PINS.stop - 1}"
        )
    return pin


def parse_pin_entry(value: object, where: str, *, default_active_high: bool) -> tuple[int, bool]:
    """`17` or `{pin = 17, active_low = true}` -> (pin, active_high)."""
    if isinstance(value, Mapping):
        unknown = set(value) - {"pin", "active_low", "active_high"}
        if unknown:
            raise HardwareConfigError(f"{where}: unknown key {sorted(unknown)[0]!r}")
        if "pin" not in value:
            raise PinConfigError(f"{where}: missing 'pin'")
        if "active_low" in value and "active_high" in value:
            raise PinConfigError(f"{where}: give active_low or active_high, not both")
        active_high = default_active_high
        if "active_low" in value:
            active_high = not _flag(value["active_low"], f"{where}.active_low")
        if "active_high" in value:
            active_high = _flag(value["active_high"], f"{where}.active_high")
        return check_pin(value["pin"], where), active_high
    return check_pin(value, where), default_active_high


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise PinConfigError(f"{where} must be true or false, not {value!r}")
    return value


def check_unique(pins: Mapping[str, int], taken: Mapping[int, str] | None = None) -> None:
    """Every pin drives or reads one thing; `taken` holds pins already used elsewhere."""
    owners = dict(taken or {})
    for name, pin in pins.items():
        if pin in owners:
            raise PinConfigError(f"BCM pin {pin} is used by both {owners[pin]!r} and {name!r}")
        owners[pin] = name
