"""`sabot run --show`: what the table does, one line each as it happens, for a rig's console
or a technician at the table: every card and where it went, rounds, lamps, faults."""

from __future__ import annotations

import time
from collections.abc import Callable

from controller.views.text import describe


def show_line(event: dict) -> str | None:
    kind = event.get("event")
    if kind == "card":
        return f"card      {event['card']} to the {event['hand']}, round {event['round']}"
    if kind == "lamps":
        return f"lamps     {' '.join(event['on']) or '-'}"
    line = describe(event)
    return None if line is None else line.strip("\n")


class ShowSink:
    """A table sink (`TableAssembly(sinks=...)`): each event's line, stamped with the wall
    clock, written and flushed at once."""

    def __init__(self, write: Callable[[str], None], clock: Callable[[], float] = time.time):
        self._write, self._clock = write, clock

    def __call__(self, events: list[dict]) -> None:
        for event in events:
            line = show_line(event)
            if line is not None:
                stamp = time.strftime("%H:%M:%S", time.localtime(self._clock()))
                self._write(f"{stamp} {line}")
