"""sd_notify without a dependency: READY=1, WATCHDOG=1, STATUS=... to systemd.

systemd passes the socket in $NOTIFY_SOCKET (a path, or '@name' for the abstract namespace)
and, with WatchdogSec=, the period in $WATCHDOG_USEC. Outside systemd both are absent and
every call is a cheap no-op, so the service code needs no special case.
"""

from __future__ import annotations

import os
import socket


def notify(state: str, environ: dict[str, str] | None = None) -> bool:
    """Send one notification, e.g. "READY=1" or "WATCHDOG=1\\nSTATUS=dealing". False when not
    run by systemd (or the socket is gone)."""
    address = (environ if environ is not None else os.environ).get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(state.encode(), address)
    except OSError:
        return False
    return True


def watchdog_period(environ: dict[str, str] | None = None) -> float | None:
    """Seconds within which systemd expects WATCHDOG=1, or None if no watchdog is set for us.
    Ping at half this period."""
    env = environ if environ is not None else os.environ
    usec = env.get("WATCHDOG_USEC")
    pid = env.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 1_000_000
    except ValueError:
        return None
