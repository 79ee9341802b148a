"""systemd notification (sd_notify) without a dependency: one datagram per message.

`Type=notify` units get READY=1 after recovery, WATCHDOG=1 while the shoe is healthy and
STOPPING=1 on the way out. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    def __init__(self, environ: dict[str, str] | None = None):
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):  # abstract namespace socket
            address = "\0" + address[1:]
        self._address = address or None
        usec = env.get("WATCHDOG_USEC", "")
        # systemd recommends pinging at half the watchdog interval.
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 else None

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def notify(self, *fields: str) -> bool:
        if self._address is None:
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            try:
                sock.sendto("\n".join(fields).encode(), self._address)
            except OSError:
                return False  # systemd went away; the service itself must go on
        return True

    def ready(self, status: str) -> bool:
        return self.notify("READY=1", f"STATUS={status}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def status(self, status: str) -> bool:
        return self.notify(f"STATUS={status}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")
