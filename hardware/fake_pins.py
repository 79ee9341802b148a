"""The fake GPIO backend: records every write with a timestamp and lets tests press buttons.

It is a first-class backend (used by `sabot simulate` and every test), not a mock: inputs
have levels, pulls set the idle level, edges call the watchers, and `closed` tells whether the
program let go of the pins.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hardware.pins import EdgeCallback


@dataclass(frozen=True)
class PinWrite:
    at: float
    levels: tuple[tuple[int, bool], ...]  # every pin written by one call, sorted by pin


class FakePins:
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.outputs: dict[int, bool] = {}
        self.inputs: dict[int, bool] = {}
        self.pulls: dict[int, str] = {}
        self.writes: list[PinWrite] = []
        self.closed = False
        self._watchers: dict[int, list[EdgeCallback]] = {}
        self._lock = threading.Lock()

    # ---- PinBackend ------------------------------------------------------------------------

    def setup_output(self, pin: int, level: bool) -> None:
        self.outputs[pin] = level
        self.writes.append(PinWrite(self.clock(), ((pin, level),)))

    def write_many(self, levels: Mapping[int, bool]) -> None:
        unknown = set(levels) - set(self.outputs)
        if unknown:
            raise RuntimeError(f"pins {sorted(unknown)} were not set up as outputs")
        self.outputs.update(levels)
        self.writes.append(PinWrite(self.clock(), tuple(sorted(levels.items()))))

    def setup_input(self, pin: int, pull: str) -> None:
        self.pulls[pin] = pull
        self.inputs[pin] = pull == "up"  # an idle button reads its pull

    def read(self, pin: int) -> bool:
        return self.inputs[pin]

    def watch(self, pin: int, callback: EdgeCallback) -> None:
        self._watchers.setdefault(pin, []).append(callback)

    def close(self) -> None:
        self.closed = True

    # ---- test controls -------------------------------------------------------------------

    def set_input(self, pin: int, level: bool) -> None:
        """Drive an input; watchers see an edge if the level changed."""
        with self._lock:
            if self.inputs.get(pin) == level:
                return
            self.inputs[pin] = level
            watchers = list(self._watchers.get(pin, []))
        for callback in watchers:
            callback(pin)
