"""How commands print table events: JSON lines, or the readable lines of `render`."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from controller.render import describe, summary


class EventPrinter:
    """Prints events as they come and keeps the rounds for the closing summary."""

    def __init__(self, as_json: bool):
        self.as_json = as_json
        self.rounds: list[dict] = []

    def __call__(self, event: dict) -> None:
        if event["event"] == "round":
            self.rounds.append(event)
        if self.as_json:
            sys.stdout.write(json.dumps(event, separators=(", ", ": ")) + "\n")
        else:
            line = describe(event)
            if line is not None:
                print(line)

    def close(self) -> None:
        if not self.as_json:
            print(summary(self.rounds))


Printer = Callable[[dict], None]
