"""The service of one table, built by one function for `sabot run` and `sabot simulate`.

What differs between a live table and a simulation is only the drivers handed in: the
panel (GPIO or fake), the camera (v4l2, picamera2, http, file, or synthetic frames), the
serial port (the shoe's UART or the emulator's pty) and the reader. Everything between
them is built here the same way, so the simulator runs exactly the service's code:

    journal -> publisher (the journal's events to the broker, if there is one) -> link
    (resumed from the journal) -> lamps (panel + shoe) -> TableService (recovered) ->
    Pipeline (the table thread, the journal's only writer) -> ShoeRuntime (the camera
    thread: frames -> Tracker -> observations; link and button handlers)

Start-up and shutdown go through one ExitStack: a failure at any step closes what was
built before it, and `close` stops the threads in the order that loses nothing (camera
loop, camera, table thread draining the queue, serial link, journal).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass

from controller.journal.replay import last_link_state
from controller.journal.signing import Signer
from controller.journal.store import Journal
from controller.service.pipeline import Handled, Pipeline
from controller.service.runtime import ShoeRuntime
from controller.service.table_service import LampFanout, Sink, TableService
from controller.surveillance.publisher import Publisher
from firmware_bridge.link import Link
from firmware_bridge.session import LinkTiming
from firmware_bridge.transport import SerialTransport
from vision.tracker import Tracker

log = logging.getLogger(__name__)

Window = tuple[int, int, int, int]


@dataclass
class Drivers:
    """What a table is given: the real backends for `sabot run`, fakes for `simulate`. The
    caller opens them and closes the panel; the camera is closed with the table."""

    panel: object  # hardware.panel.Panel: lamps (show, fail_safe) and buttons
    camera: object  # hardware.camera source: read() -> Frame | None, close(), status
    reader: object  # vision.reader.Reader of the enrolled design
    serial_port: str | None = None  # None: no shoe microcontroller
    baudrate: int = 115200
    window: Window | None = None
    over_window: Window | None = None
    # Called at shutdown before the camera loop is joined: ends a frame source that would
    # otherwise wait for its next frame (the simulator's feed).
    end_frames: Callable[[], None] | None = None
    link_timing: LinkTiming | None = None  # None: the protocol's defaults
    # The surveillance room's broker (controller.surveillance.broker client: paho or the
    # in-process fake); None: the table publishes nothing.
    broker: object | None = None
    # What carries the link's bytes, given the link: None, a serial port (`serial_port`);
    # `sabot playback` hands in the recorded bytes (controller.service.playback).
    link_transport: Callable[[Link], object] | None = None
    host_boot_id: int | None = None  # None: a new one at each start, as the protocol wants


class TableAssembly:
    def __init__(self, settings: dict, journal_path: str, drivers: Drivers, *,
                 sinks: Iterable[Sink] = (), on_handled: Callable[[Handled], None] | None = None,
                 on_status: Callable[[str], None] = log.warning,
                 table_id: str | None = None, signer: Signer | None = None) -> None:
        self._stack = ExitStack()
        self.table_id = table_id
        self._signer = signer  # the table's journal key; None: the journal is not signed
        try:
            self._build(settings, journal_path, drivers, list(sinks), on_handled, on_status)
        except BaseException:
            self._stack.close()
            raise

    def _build(self, settings, journal_path, drivers: Drivers, sinks, on_handled,
               on_status) -> None:
        stack = self._stack
        stack.callback(drivers.camera.close)  # opened by the caller, closed with the table
        self.journal = Journal(journal_path, signer=self._signer)
        stack.callback(self.journal.close)
        self.publisher: Publisher | None = None
        if drivers.broker is not None:
            # Stopped after the table thread has drained (LIFO), so it sends everything.
            self.publisher = Publisher(journal_path, self.table_id or "table-1", drivers.broker)
            stack.callback(self.publisher.stop)
            sinks = [*sinks, self.publisher.sink]
        outputs = [drivers.panel.lamps.show]
        self.transport: SerialTransport | None = None
        resume = None
        if drivers.serial_port is not None or drivers.link_transport is not None:
            # What the previous run journaled is not delivered again; a gap is reported.
            resume = last_link_state(self.journal)
            link = Link(timing=drivers.link_timing, resume=resume,
                        boot_id=drivers.host_boot_id)
            self.transport = (drivers.link_transport(link) if drivers.link_transport
                              else SerialTransport(drivers.serial_port, link,
                                                   baudrate=drivers.baudrate))
            stack.callback(self.transport.stop)
            outputs.append(self.transport.send_lamps)
        self.lamps = LampFanout(*outputs)
        self.service = TableService(self.journal, settings, lamps=self.lamps, sinks=sinks,
                                    table_id=self.table_id)
        self.recovered = self.service.recover()  # observations an earlier run journaled
        self.pipeline = Pipeline(self.service, on_handled=on_handled)
        stack.callback(self.pipeline.stop)  # what is queued is journaled and applied
        self.camera = drivers.camera
        self._end_frames = drivers.end_frames
        self.runtime = ShoeRuntime(
            self.pipeline, Tracker(drivers.reader), drivers.camera, window=drivers.window,
            over_window=drivers.over_window, on_status=on_status,
            on_link_state=lambda body: self.pipeline.record("link", body),
            link_expected=drivers.serial_port is not None,  # a playback's link is recorded
            resume=resume)
        stack.callback(self._stop_camera_loop)  # first of all at the end (LIFO)
        if self.transport is not None:
            self.transport.on_event = self.runtime.on_link_event

    def start(self) -> TableAssembly:
        """The table thread, the camera thread and the serial link; a failure stops what
        had started and closes everything."""
        try:
            self.pipeline.start()
            if self.publisher is not None:
                self.publisher.start()
            self.runtime.start()
            if self.transport is not None:
                self.transport.start()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> TableAssembly:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def threads_alive(self) -> list[str]:
        """The names of this table's threads still running (none after `close`)."""
        alive = []
        if self.pipeline.alive:
            alive.append("table")
        if self.runtime.alive:
            alive.append("camera-loop")
        if self.transport is not None and self.transport.alive:
            alive.append("serial-link")
        if self.publisher is not None and self.publisher.alive:
            alive.append("publisher")
        return alive

    def _stop_camera_loop(self) -> None:
        self.runtime.stopping()  # a camera that stops now is no fault: we are shutting down
        if self._end_frames is not None:
            self._end_frames()
        self.runtime.stop()
