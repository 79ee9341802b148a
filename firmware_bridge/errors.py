"""The serial link's exception tree.

Like the controller's errors, each class also derives from the built-in it refines, so a
caller may catch either `LinkError` or e.g. `ValueError`. The CLI prints them as one line.
"""


class LinkError(Exception):
    """Base of everything `firmware_bridge` raises on purpose."""


class FrameError(LinkError, ValueError):
    """A received frame is not acceptable (COBS, length, CRC or version)."""


class CrcError(FrameError):
    """The frame's CRC-16 does not match its contents (line noise, truncation)."""


class MessageError(LinkError, ValueError):
    """A payload does not fit the layout of its message type, or a name is unknown."""


class PortError(LinkError, OSError):
    """The serial device cannot be opened or went away."""
