"""Run a `ShoeEmulator` on a pseudo-terminal, so the host opens it like the real shoe's port.

The emulator owns the master side in a thread; the host opens `device` (the slave path, or a
stable symlink to it) with pyserial. Line faults apply per frame in both directions, `delay`
adds latency in order, `unplug()` closes the pty (the host's reads fail as with a pulled USB
cable) and `replug()` opens a new one behind the same symlink.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections import deque
from collections.abc import Callable
from pathlib import Path

from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.errors import PortError
from firmware_bridge.faults import Faults, FaultyLine

OUT_BUFFER_LIMIT = 256 * 1024  # a host that stops reading loses bytes, like a real UART


class PtyShoe:
    def __init__(
        self,
        emulator: ShoeEmulator | None = None,
        *,
        to_host: Faults | None = None,
        to_mcu: Faults | None = None,
        seed: int = 0,
        delay: float = 0.0,
        link_path: str | os.PathLike | None = None,
        clock: Callable[[], float] = time.monotonic,
        poll_interval: float = 0.002,
    ):
        self.emulator = emulator or ShoeEmulator()
        self.to_host = FaultyLine(to_host or Faults(), seed=seed)
        self.to_mcu = FaultyLine(to_mcu or Faults(), seed=seed + 1)
        self.delay = delay
        self.link_path = Path(link_path) if link_path else None
        self.clock = clock
        self.poll_interval = poll_interval
        self._master = self._slave = -1
        self._slave_name = ""
        self._incoming = bytearray()
        self._outgoing = bytearray()
        self._delayed: deque[tuple[float, bytes]] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()
        self._thread: threading.Thread | None = None
        self.plugged = False
        # Whatever went wrong inside the runner thread, counted and kept (it goes on): a
        # rig's status must never say the link is up while the shoe has gone silent.
        self.thread_errors = 0
        self.last_thread_error = ""

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> str:
        if (self.link_path is not None and self.link_path.exists()
                and not self.link_path.is_symlink()):
            # Only a symlink is ours to replace: a file there is somebody's, and stays.
            raise PortError(f"{self.link_path} exists and is not a symlink: give --link a "
                            "path that is free (or an old symlink of ours)")
        self._open()
        self._thread = threading.Thread(target=self._run, name="pty-shoe", daemon=True)
        self._thread.start()
        return self.device

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread:
            self._thread.join(timeout=5)
        with self._lock:
            self._close()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self.link_path:
            with contextlib.suppress(FileNotFoundError):
                self.link_path.unlink()

    def __enter__(self) -> PtyShoe:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def device(self) -> str:
        return str(self.link_path) if self.link_path else self._slave_name

    def unplug(self) -> None:
        """Close the pty: the host's next read fails. The MCU keeps running (and counting)."""
        with self._lock:
            self._close()

    def replug(self) -> str:
        with self._lock:
            self._open()
        self._wake()
        return self.device

    # ---- the shoe, with the runner's clock --------------------------------------------------

    def deal_card(self) -> int:
        counter = self.emulator.deal_card(self.clock())
        self._wake()
        return counter

    def card_present(self) -> int:
        """Cover the card sensor (a card starts to leave the shoe); returns its counter."""
        counter = self.emulator.card_present(self.clock())
        self._wake()
        return counter

    def card_gone(self) -> None:
        self.emulator.card_gone(self.clock())
        self._wake()

    def press(self, button: str) -> None:
        self.emulator.press(button, self.clock())
        self._wake()

    def set_lid(self, is_open: bool) -> None:
        self.emulator.set_lid(is_open, self.clock())
        self._wake()

    def reset(self) -> None:
        self.emulator.reset()
        self._wake()

    # ---- internals -----------------------------------------------------------------------

    def _open(self) -> None:
        self._master, self._slave = os.openpty()
        # Raw at once: until the host opens the port a cooked slave would echo our frames
        # back to us. We keep the slave open so reads on the master never fail with EIO.
        tty.setraw(self._slave)
        os.set_blocking(self._master, False)
        self._slave_name = os.ttyname(self._slave)
        self._incoming.clear()
        self._outgoing.clear()
        if self.link_path:
            temporary = self.link_path.with_name(self.link_path.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(self._slave_name)
            temporary.replace(self.link_path)  # atomic: the host never sees a missing link
        self.plugged = True

    def _close(self) -> None:
        self.plugged = False
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"w")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._turn()
            except Exception as error:  # noqa: BLE001 - the shoe goes on, as a real MCU must
                self.thread_errors += 1
                self.last_thread_error = f"{type(error).__name__}: {error}"
                time.sleep(self.poll_interval)

    def _turn(self) -> None:
        """One turn of the runner: wait for the line or a wake-up, read, tick, write."""
        master = self._master
        readable = [self._wake_r] + ([master] if master >= 0 else [])
        writable = [master] if master >= 0 and self._outgoing else []
        try:
            ready, can_write, _ = select.select(readable, writable, [], self.poll_interval)
        except (OSError, ValueError):
            return  # the pty was closed under us by unplug()
        if self._wake_r in ready:
            os.read(self._wake_r, 4096)
        with self._lock:
            now = self.clock()
            if self.plugged and master in ready:
                self._read(now)
            self.emulator.tick(now)
            self._queue_output(now)
            if self.plugged and self._outgoing:
                self._write()

    def _read(self, now: float) -> None:
        try:
            data = os.read(self._master, 65536)
        except (BlockingIOError, OSError):
            return
        self._incoming += data
        cut = self._incoming.rfind(0)
        if cut < 0:
            return
        whole, self._incoming = bytes(self._incoming[: cut + 1]), self._incoming[cut + 1 :]
        frames = [piece + b"\x00" for piece in whole.split(b"\x00")[:-1]]
        damaged = self.to_mcu.apply(frames)
        if damaged:
            self.emulator.feed(damaged, now)

    def _queue_output(self, now: float) -> None:
        data = self.to_host.apply(self.emulator.take_output())
        if not self.plugged:
            self._delayed.clear()
            return  # nobody on the line; the session retransmits after replug
        if data:
            self._delayed.append((now + self.delay, data))
        while self._delayed and self._delayed[0][0] <= now:
            self._outgoing += self._delayed.popleft()[1]
        if len(self._outgoing) > OUT_BUFFER_LIMIT:
            del self._outgoing[: len(self._outgoing) - OUT_BUFFER_LIMIT]

    def _write(self) -> None:
        try:
            written = os.write(self._master, self._outgoing)
        except (BlockingIOError, OSError):
            return
        del self._outgoing[:written]
