"""Camera frames -> card readings: enrol a deck, read a window, track cards through the shoe.

The public names are loaded on first use, so that `import vision.errors` (which every
`sabot` command does) does not pay for OpenCV.
"""

from __future__ import annotations

import importlib

_PUBLIC = {
    "Reader": "vision.reader",
    "Reading": "vision.reader",
    "Tracker": "vision.tracker",
    "CardSeen": "vision.events",
    "CutCard": "vision.events",
    "Unreadable": "vision.events",
    "SlidBack": "vision.events",
    "Profile": "vision.profile",
    "enrol": "vision.enrol",
    "load_profile": "vision.profile",
    "save_profile": "vision.profile",
}
__all__ = sorted(_PUBLIC)


def __getattr__(name: str):
    if name in _PUBLIC:
        return getattr(importlib.import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'vision' has no attribute {name!r}")
