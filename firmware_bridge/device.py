"""Which device a serial port name stands for, so a reopen never attaches to another one.

After an unplug the name the transport was given may come to mean another device:
- a udev name (`/dev/sabot-shoe`, a symlink) is the shoe's whoever enumerated it: it is
  followed to wherever it points now (`/dev/ttyUSB0` before, `/dev/ttyUSB1` after);
- a kernel name (`/dev/ttyUSB0`) is given to the next adapter plugged in: it is reopened
  only while it shows the same USB adapter (vendor, product, serial number);
- a pseudo-terminal (`/dev/pts/7`) dies with its master: a new one that reuses the number
  is somebody else's terminal, told by the time the kernel made it;
- anything else (an on-board UART, a pyserial URL) cannot be swapped and is reopened.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from serial.tools import list_ports

PTY_DIRECTORY = "/dev/pts/"


@dataclass(frozen=True)
class Identity:
    """What made the device the one first opened; `None` fields were not known."""

    path: str  # the real path it was opened at
    usb: tuple[int | None, int | None, str | None] | None = None  # vid, pid, serial number
    pty_made_ns: int | None = None  # a pseudo-terminal's creation (its inode change) time


def follows_name(port: str) -> bool:
    """A stable name (a symlink, as a udev rule makes): whatever it points to is the shoe."""
    return os.path.islink(port)


def identity_of(port: str) -> Identity | None:
    """The identity of the device `port` names now, or None when it names no device file
    (a pyserial URL) or none is there."""
    if "://" in port:
        return None
    real = os.path.realpath(port)
    try:
        status = os.stat(real)
    except OSError:
        return None
    if real.startswith(PTY_DIRECTORY):
        return Identity(real, pty_made_ns=status.st_ctime_ns)
    for info in list_ports.comports():
        if os.path.realpath(info.device) == real and info.vid is not None:
            return Identity(real, usb=(info.vid, info.pid, info.serial_number))
    return Identity(real)


def same_device(first: Identity, now: Identity | None) -> str:
    """"" when `now` is the device first opened, else why it is not (for the log)."""
    if now is None:
        return "it is not there"
    if first.pty_made_ns is not None:
        if now.path != first.path or now.pty_made_ns != first.pty_made_ns:
            return (f"{first.path} was a pseudo-terminal that has closed; {now.path} is "
                    "another one (a pseudo-terminal never comes back: give a name that "
                    "follows the shoe, such as the symlink `sabot emulate-shoe --link` makes)")
        return ""
    if first.usb is not None and now.usb != first.usb:
        vid, pid, number = now.usb or (None, None, None)
        seen = f"USB {vid or 0:04x}:{pid or 0:04x} serial {number}" if now.usb else "no USB adapter"
        want = f"USB {first.usb[0] or 0:04x}:{first.usb[1] or 0:04x} serial {first.usb[2]}"
        return (f"{now.path} is now {seen}, not the shoe's {want} (use the udev name of "
                "docs/deploy.md, which follows the shoe)")
    return ""
