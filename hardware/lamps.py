"""Table lamps on GPIO: logical names -> BCM pins with a polarity each, all set at once.

Config (the `[lamps]` table of config.toml, or any mapping):

    player_draw = 17                            # active-high: pin high = lamp lit
    banker_stand = { pin = 22, active_low = true }
    fault = 4                                   # required; see "Fail safe" in docs/deploy.md

Only `fault` is required (a shoe may have no win lamps); lamps not mapped are ignored by
`show`, but a name that is not a lamp at all is an error, as it is usually a typo.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from contract import DRAW_STAND, LAMP_NAMES
from hardware.errors import LampConflictError, NameConfigError
from hardware.pins import PinBackend, check_unique, parse_pin_entry

log = logging.getLogger(__name__)

REQUIRED = ("fault",)


@dataclass(frozen=True)
class LampPin:
    name: str
    pin: int
    active_high: bool

    def level(self, lit: bool) -> bool:
        return lit if self.active_high else not lit


def parse_lamp_config(config: Mapping[str, object]) -> dict[str, LampPin]:
    lamps = {}
    for name, value in config.items():
        if name not in LAMP_NAMES:
            raise NameConfigError(f"lamps.{name}: no such lamp; lamps are: {', '.join(LAMP_NAMES)}")
        pin, active_high = parse_pin_entry(value, f"lamps.{name}", default_active_high=True)
        lamps[name] = LampPin(name, pin, active_high)
    for name in REQUIRED:
        if name not in lamps:
            raise NameConfigError(f"lamps.{name}: missing; the fail-safe state needs it")
    check_unique({f"lamps.{lamp.name}": lamp.pin for lamp in lamps.values()})
    return lamps


def check_lit(lit: Iterable[str]) -> frozenset[str]:
    lit = frozenset(lit)
    unknown = sorted(lit - set(LAMP_NAMES))
    if unknown:
        raise NameConfigError(f"no such lamp {unknown[0]!r}; lamps are: {', '.join(LAMP_NAMES)}")
    for hand in ("player", "banker"):
        if {f"{hand}_draw", f"{hand}_stand"} <= lit:
            raise LampConflictError(f"{hand}_draw and {hand}_stand must never be lit together")
    return lit


class Lamps:
    """Starts in the fail-safe state (fault lit) until the controller shows the table."""

    def __init__(self, config: Mapping[str, object], backend: PinBackend):
        self.pins = parse_lamp_config(config)
        self.backend = backend
        self._lock = threading.RLock()  # re-entered by a signal handler (failsafe) mid-write
        self._lit = frozenset({"fault"})
        for lamp in self.pins.values():
            backend.setup_output(lamp.pin, lamp.level(lamp.name in self._lit))
        self.closed = False

    @property
    def lit(self) -> frozenset[str]:
        return self._lit

    def show(self, lit: Iterable[str]) -> None:
        """Light exactly `lit` (names not wired on this shoe are skipped), in one write."""
        lit = check_lit(lit)
        with self._lock:
            if self.closed:
                return  # after a fail-safe shutdown nothing may light a draw lamp again
            self._write(lit)

    def fail_safe(self, reason: str = "", level: int = logging.ERROR) -> None:
        """Draw and stand lamps dark, fault lit; the other lamps keep their state."""
        with self._lock:
            if self.closed:
                return
            if reason:
                log.log(level, "lamps to fail-safe state: %s", reason)
            self._write((self._lit - set(DRAW_STAND)) | {"fault"})

    def close(self, reason: str = "shutdown") -> None:
        """Fail-safe state, then release the pins (external resistors take over). An orderly
        shutdown is no error; a signal or an exit hook is logged as one by its caller."""
        self.fail_safe(reason, logging.INFO if reason == "shutdown" else logging.ERROR)
        with self._lock:
            if not self.closed:
                self.closed = True
                self.backend.close()

    def _write(self, lit: frozenset[str]) -> None:
        levels = {lamp.pin: lamp.level(lamp.name in lit) for lamp in self.pins.values()}
        self.backend.write_many(levels)
        self._lit = lit & set(self.pins)
