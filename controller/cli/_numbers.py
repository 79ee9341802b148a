"""Values on the command line (numbers, a window, a colour): checked, and refused by
argparse with the reason.

`type=number(int, 1, 12)` refuses "13", "nan", "1e400" and "-1" with the option's name
(argparse prints `argument --decks: ...` and exits 2), where a bare `type=float` would let a
NaN or a negative pace through to fail later, or never.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def number(kind: type, low: float | None = None, high: float | None = None,
           unit: str = "") -> Callable[[str], int | float]:
    """An argparse type: `kind` (int or float) between `low` and `high` inclusive."""
    span = (f"{low} to {high}" if low is not None and high is not None
            else f"at least {low}" if low is not None else f"at most {high}")
    unit = f" {unit}" if unit else ""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value) or (low is not None and value < low) or (
                high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{text}: give {span}{unit}")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse


def window(text: str) -> tuple[int, int, int, int]:
    """An argparse type: a reading window X,Y,W,H in pixels."""
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4 or min(values) < 0 or min(values[2:]) < 16:
        raise argparse.ArgumentTypeError(f"{text!r}: give X,Y,W,H in pixels (W, H >= 16)")
    return values  # type: ignore[return-value]


def window_used(window: tuple[int, int, int, int] | None, *, given: bool,
                config: str | None) -> str:
    """The line a command reading frames says of its reading window and where it came from
    (`given`: by --window; else `config`'s, if it sets one): a default window reads
    nothing where the card is elsewhere, and a lab's playback said no word of it."""
    if window is None:
        return "reading window: the whole frame (no --window or --config given)"
    from controller.service.config import sets_window  # noqa: PLC0415 - only a config's

    origin = ("--window" if given else f"[camera] window of {config}"
              if config and sets_window(config)
              else "the default: give --window X,Y,W,H, or --config with a [camera] window")
    return f"reading window: {','.join(map(str, window))} ({origin})"


def colour(text: str) -> tuple[int, int, int]:
    """An argparse type: a colour as `vision.colours` reads it (BGR)."""
    from vision.colours import parse_colour  # noqa: PLC0415 - only when one is given
    from vision.errors import DeckError  # noqa: PLC0415

    try:
        return parse_colour(text)
    except DeckError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
