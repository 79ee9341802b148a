"""A real mosquitto for the tests, on a free loopback port, that can be stopped and started
again on the same port (the Makefile installs Debian's package when it is missing)."""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import time
from pathlib import Path

BINARY_PLACES = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    return found or next((p for p in BINARY_PLACES if Path(p).is_file()), None)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Mosquitto:
    def __init__(self, folder: Path, port: int | None = None, *,
                 anonymous: bool = True) -> None:
        """`anonymous`: whether it lets a client in without a login (False: it refuses
        every login, none being known to it)."""
        self.binary = mosquitto_binary()
        if self.binary is None:
            raise RuntimeError("mosquitto is not installed (`make test` installs it)")
        self.folder = folder
        self.port = port or free_port()
        self.url = f"mqtt://127.0.0.1:{self.port}"
        self.config = folder / "mosquitto.conf"
        # Persistence keeps monitors' sessions (and what was queued for them) across a
        # restart of the broker, as a surveillance room's broker should run.
        # Run as root, mosquitto would switch to the user "mosquitto", who cannot write
        # the test's folder: it stays who we are.
        self.config.write_text(
            f"user {getpass.getuser()}\n"
            f"listener {self.port} 127.0.0.1\nallow_anonymous {str(anonymous).lower()}\n"
            f"persistence true\npersistence_location {folder}/\n"
            "autosave_interval 1\nmax_queued_messages 100000\n"
            f"log_dest file {folder}/mosquitto.log\n")
        self.process: subprocess.Popen | None = None

    def start(self) -> Mosquitto:
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.05)
        log = (self.folder / "mosquitto.log")
        raise RuntimeError(f"mosquitto did not start: {log.read_text() if log.exists() else ''}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # it saves its sessions on the way out
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
