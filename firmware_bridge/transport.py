"""pyserial I/O for a `Link`: one thread reads, ticks the state machine and writes.

The port is reopened after it fails (USB shoe unplugged, pty closed), so the service never has
to restart for a cable, but only while its name still means the shoe (`device`): a udev name
is followed, a kernel name or a pty that has come to mean another device is not opened.
A serial device is held exclusively (pyserial's `exclusive`, an flock): a second `sabot run`
or `sabot record` on the same port would share its bytes with the first, and each would see
half the frames. The second is refused the port, naming why: `sabot record` exits; `sabot
run` says so in its log and keeps trying, as for a shoe unplugged, until the first lets go.
A pseudo-terminal (the emulator's) is not: its numbers are reused as soon as one is closed,
and a process that still held the old one (not yet told it was gone) held the new one's
lock too: a simulation in the test suite could not open its own shoe.
Events go to `on_event` if it is set, otherwise to `events` (a bounded queue.Queue for a
caller that polls; when it is full, new events are dropped with a warning, so a poller
that stopped reading cannot grow the service without bound).
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Callable

import serial

from firmware_bridge.device import Identity, follows_name, identity_of, same_device
from firmware_bridge.link import Link
from firmware_bridge.messages import LinkEvent

log = logging.getLogger(__name__)
EVENTS_KEPT = 65536  # a poller may fall a whole 10,000-card burst behind
HELD = "Could not exclusively lock"  # pyserial's words for a port another program holds


def exclusive_for(port: str) -> bool:
    """Whether `port` is held exclusively: a serial device, not a pseudo-terminal."""
    return not os.path.realpath(port).startswith("/dev/pts/")


def held_elsewhere(why: str) -> bool:
    """Whether the reason a port did not open is that another program holds it."""
    return HELD in why


def _reason(error: Exception) -> str:
    why = str(error)
    if held_elsewhere(why):
        return (f"another program holds it (a second `sabot run` or `sabot record` on the "
                f"same port?): {why}")
    return why


class SerialTransport:
    def __init__(
        self,
        port: str,
        link: Link | None = None,
        *,
        baudrate: int = 115200,
        on_event: Callable[[LinkEvent], None] | None = None,
        on_bytes: Callable[[bytes, float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
        poll_interval: float = 0.005,
        reopen_interval: float = 0.2,
        serial_factory: Callable[..., serial.SerialBase] = serial.serial_for_url,
        exclusive: bool | None = None,
    ):
        """`exclusive`: hold the port exclusively (None: as `exclusive_for` says)."""
        self.port = port
        self.link = link or Link()
        self.baudrate = baudrate
        self.on_event = on_event
        self.on_bytes = on_bytes  # every received chunk with its clock time (for recording)
        self.error: Exception | None = None  # what stopped the thread, if anything did
        self.events: queue.Queue[LinkEvent] = queue.Queue(maxsize=EVENTS_KEPT)
        self.clock = clock
        self.poll_interval = poll_interval
        self.reopen_interval = reopen_interval
        self.serial_factory = serial_factory
        self.exclusive = exclusive  # None: asked of the port at each opening
        self.opens = 0
        self.last_error = ""
        self._serial: serial.SerialBase | None = None
        self._identity: Identity | None = None  # the device first opened
        self._link_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._tried = threading.Event()  # the first attempt to open the port was made
        self._thread: threading.Thread | None = None

    def start(self) -> SerialTransport:
        self._thread = threading.Thread(target=self._run, name="serial-link", daemon=True)
        self._thread.start()
        return self

    @property
    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=5)
        self._close()

    def __enter__(self) -> SerialTransport:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def send_lamps(self, lit: set[str] | frozenset[str]) -> None:
        """Queue a LAMPS message (thread-safe); it is retransmitted until acknowledged."""
        with self._link_lock:
            self.link.send_lamps(lit, self.clock())
            out = self.link.take_output()
        self._write(out)

    # ---- the thread -----------------------------------------------------------------------

    def first_open(self, timeout: float = 2.0) -> str:
        """Wait for the first attempt to open the port: "" if it opened (or the attempt
        took longer than `timeout`), else why not."""
        self._tried.wait(timeout)
        return "" if self._serial is not None or self.opens else self.last_error

    def _run(self) -> None:
        # A handler that raises (`on_event`, `on_bytes`) ended this thread without a word:
        # no card came any more, and no LinkDown said so (a review, stop 53). The error is
        # kept and logged; the service stops on it (`Service._main_loop`), and restarted,
        # its journal's resume point gets the events again.
        try:
            self._serve()
        except Exception as error:
            self.error = error
            log.exception("the serial link's thread stopped")

    def _serve(self) -> None:
        while not self._stop.is_set():
            if self._serial is None and not self._open():
                self._tried.set()
                self._deliver(self._step(b""))
                self._stop.wait(self.reopen_interval)
                continue
            try:
                data = self._serial.read(self._serial.in_waiting or 1)
            except (serial.SerialException, OSError) as error:
                self._lost(error)
                continue
            self._deliver(self._step(data))

    def _step(self, data: bytes) -> list[LinkEvent]:
        with self._link_lock:
            now = self.clock()
            if data and self.on_bytes is not None:
                self.on_bytes(data, now)
            events = self.link.feed(data, now) if data else []
            events += self.link.tick(now)
            out = self.link.take_output()
        self._write(out)
        return events

    def _open(self) -> bool:
        if self._identity is not None and not follows_name(self.port):
            why = same_device(self._identity, identity_of(self.port))
            if why:
                self._cannot_open(why)
                return False
        try:
            port = self.serial_factory(
                self.port, baudrate=self.baudrate, timeout=self.poll_interval,
                exclusive=(exclusive_for(self.port) if self.exclusive is None
                           else self.exclusive) or None
            )
        except (serial.SerialException, OSError, ValueError) as error:
            self._cannot_open(_reason(error))
            return False
        if self._identity is None:
            self._identity = identity_of(self.port)
        self.opens += 1
        self.last_error = ""
        with contextlib.suppress(AttributeError, serial.SerialException):
            port.reset_input_buffer()  # stale bytes from before an unplug are not worth parsing
        self._serial = port
        self._write(b"\x00")  # ends any partial frame the MCU had started to receive
        log.info("opened %s", self.port)
        self._tried.set()
        return True

    def _cannot_open(self, why: str) -> None:
        if why != self.last_error:  # once per reason, not every reopen_interval
            log.warning("cannot open %s: %s", self.port, why)
            self.last_error = why

    def _lost(self, error: Exception) -> None:
        log.warning("lost %s: %s", self.port, error)
        self.last_error = str(error)
        self._close()
        with self._link_lock:
            events = self.link.port_lost(f"serial port lost: {error}")
        self._deliver(events)

    def _close(self) -> None:
        with self._write_lock:
            port, self._serial = self._serial, None
            if port is not None:
                with contextlib.suppress(Exception):
                    port.close()

    def _write(self, data: bytes) -> None:
        if not data:
            return
        with self._write_lock:
            if self._serial is None:
                return  # unacked frames are retransmitted once the port is back
            try:
                self._serial.write(data)
            except (serial.SerialException, OSError) as error:
                log.warning("write to %s failed: %s", self.port, error)

    def _deliver(self, events: list[LinkEvent]) -> None:
        for event in events:
            if self.on_event is not None:
                self.on_event(event)
                continue
            try:
                self.events.put_nowait(event)
            except queue.Full:
                log.warning("link event dropped, nobody reads the queue: %s", event)
