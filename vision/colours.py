"""A colour as an operator names it (a cut card's: `sabot enroll --cut-colour`, `sabot
simulate --cut-colour`): a common name, #rrggbb, or r,g,b. Returned in OpenCV's order, BGR."""

from __future__ import annotations

import re

from vision.errors import DeckError

# The plastic cutting cards a shoe is sold with, and a few more; RGB as a person writes it.
NAMED = {
    "red": (200, 30, 40), "orange": (245, 130, 20), "yellow": (245, 200, 30),
    "green": (30, 150, 60), "blue": (30, 70, 190), "purple": (110, 40, 150),
    "pink": (240, 120, 170), "brown": (110, 70, 40), "black": (20, 20, 20),
    "grey": (128, 128, 128), "gray": (128, 128, 128), "white": (245, 245, 245),
}

_HEX = re.compile(r"#?([0-9a-fA-F]{6})")


def parse_colour(text: str) -> tuple[int, int, int]:
    """`text` as a BGR triple; a DeckError that names the text and the forms it may take."""
    given = text.strip()
    rgb = NAMED.get(given.lower())
    if rgb is None and (match := _HEX.fullmatch(given)):
        digits = match.group(1)
        rgb = tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))
    if rgb is None and given.count(",") == 2:
        rgb = _triple(given)
    if rgb is None:
        raise DeckError(f"colour {text!r}: give a name ({', '.join(sorted(NAMED))}), "
                        "#rrggbb (#d02030) or red,green,blue (208,32,48)")
    red, green, blue = rgb
    return blue, green, red


def _triple(text: str) -> tuple[int, int, int] | None:
    try:
        parts = tuple(int(part) for part in text.split(","))
    except ValueError:
        return None
    bad = [part for part in parts if not 0 <= part <= 255]
    if bad:
        raise DeckError(f"colour {text!r}: {bad[0]} is not 0-255")
    return parts  # type: ignore[return-value]
