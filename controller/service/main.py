"""`sabot run`: the real service, assembled from the config.

Order matters: lamps first (they start in the fail-safe state), then the journal is replayed
and the lamps restored, then the drivers start, then systemd hears READY. The main loop pings
the systemd watchdog only while camera frames and the link are fresh. SIGTERM: the drivers
stop, what is queued is journaled and applied, the lamps go to the fail-safe state.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack

from controller.errors import ConfigError
from controller.journal.signing import load_or_create_signer
from controller.service.assembly import Drivers, TableAssembly
from controller.service.config import broker_address
from controller.service.runtime import ShoeRuntime
from controller.surveillance.broker import open_client
from controller.surveillance.messages import OFFLINE, topic
from hardware import failsafe, systemd
from hardware.camera import open_camera
from hardware.panel import open_panel
from vision.profile import load_profile
from vision.reader import Reader
from vision.tuning import tune_for_reading

log = logging.getLogger("sabot")
HEALTH_PERIOD = 0.25
LAMP_WATCHDOG_S = 2.0  # the main loop not seen for this long: draw/stand dark, fault lit


def camera_options(camera: dict, loop: bool = False) -> tuple[str, dict]:
    kind = camera["source"]
    options: dict = {"stale_after": float(camera["stale_after_s"])}
    if loop:
        if kind != "file":
            raise ConfigError(f"--loop plays a recorded camera again and again: it needs "
                              f"[camera] source = 'file', not {kind!r}")
        options["loop"] = True
    required = {"v4l2": "device", "http": "url", "file": "path"}
    if kind in required:
        key = required[kind]
        if not camera[key]:
            raise ConfigError(f"[camera] source = {kind!r} needs [camera] {key}")
        options[key] = camera[key]
    if kind == "file" and not os.path.exists(camera["path"]):
        raise ConfigError(f"[camera] path {camera['path']!r} does not exist (source = 'file' "
                          "plays a recorded video or a folder of frames)")
    if kind in ("v4l2", "picamera2"):
        options |= {key: camera[key] for key in ("width", "height", "fps") if camera.get(key)}
    if kind == "picamera2":
        options |= {key: camera[key] for key in ("exposure_us", "analogue_gain")
                    if camera.get(key)}
    return kind, options


def log_table_events(events: list[dict]) -> None:
    """A sink: the events a service's log must show, where `journalctl -u sabot` looks for
    why a table halted (an engineer's trial: faults reached only `--show` and MQTT)."""
    for event in events:
        kind = event.get("event")
        if kind == "fault":
            log.warning("FAULT (round %s): %s: table halted until a supervisor acknowledges",
                        event.get("round"), event.get("reason"))
        elif kind == "ack":
            aside = " ".join(event.get("set_aside") or []) or "no card"
            log.warning("fault(s) acknowledged; set aside: %s", aside)
        elif kind == "irregularity":
            log.warning("irregularity (round %s), rule %s: %s", event.get("round"),
                        event.get("rule"), event.get("message"))
        elif kind in ("last_coup", "shoe_exhausted"):
            log.info("%s (round %s)", kind.replace("_", " "), event.get("round"))
        elif kind == "shoe_end":  # it names no round ("shoe end (round None)")
            log.info("shoe end: %s rounds, %s cards left", event.get("rounds"),
                     event.get("cards_left"))
        elif kind == "new_shoe":
            log.info("new shoe %s", event.get("shoe"))


class Service:
    def __init__(self, config: dict, stop: threading.Event | None = None, sinks=(),
                 loop: bool = False):
        self.config = config
        self.stop = stop or threading.Event()
        self.sinks = list(sinks)  # besides the journal and the broker: `--show`
        self.loop = loop  # a file camera played again at its end: `--loop`
        # Set by a signal handler (`install_stop_signals`): a plain assignment, never a lock.
        self.signalled: int | None = None
        table = config["table"]
        self.settings = {"decks": table["decks"], "style": table["style"],
                         "require_no_more_bets": table["require_no_more_bets"]}
        self.runtime: ShoeRuntime | None = None

    def run(self) -> int:
        config = self.config
        with ExitStack() as stack:
            panel = open_panel(config["gpio"], on_press=lambda event: self._button(event.name))
            stack.callback(panel.close)
            stack.callback(failsafe.install(panel.lamps))
            journal_dir = os.path.dirname(config["journal"]["path"]) or "."
            os.makedirs(journal_dir, exist_ok=True)
            tune_for_reading()
            reader = Reader(load_profile(config["camera"]["profile"]))
            kind, options = camera_options(config["camera"], self.loop)
            serial = config["serial"]
            drivers = Drivers(panel=panel, camera=open_camera(kind, **options), reader=reader,
                              serial_port=serial["port"] if serial["enabled"] else None,
                              baudrate=serial["baud"], window=tuple(config["camera"]["window"]))
            table_id = config["table"]["id"]
            address = broker_address(config)
            if address is not None:
                drivers.broker = open_client(address, client_id=f"sabot-{table_id}",
                                             will=(topic(table_id, "status"), OFFLINE))
                log.info("publishing to %s as table %s", address, table_id)
            journal_path = config["journal"]["path"]
            signer = load_or_create_signer(config["journal"]["key"] or f"{journal_path}.key")
            table = stack.enter_context(TableAssembly(self.settings, journal_path, drivers,
                                                      sinks=[log_table_events, *self.sinks],
                                                      on_status=log.warning,
                                                      table_id=table_id, signer=signer))
            log.info("journal %s: %d observations replayed; lamps %s", table.journal.path,
                     len(table.recovered), sorted(table.service.table.lamps()))
            self.runtime = table.runtime
            systemd.notify(f"READY=1\nSTATUS=table {config['table']['id']}: "
                           f"{len(table.recovered)} observations recovered")
            lamp_watchdog = failsafe.Watchdog(panel.lamps, LAMP_WATCHDOG_S).start()
            stack.callback(lamp_watchdog.stop)
            self._main_loop(table.camera, table.pipeline, lamp_watchdog, table.transport)
            systemd.notify("STOPPING=1")
            table.close()  # what is queued is journaled and applied before we go
            if table.pipeline.error is not None:
                raise table.pipeline.error
            if table.transport is not None and table.transport.error is not None:
                raise table.transport.error
        return 0

    def stopping(self) -> bool:
        return self.signalled is not None or self.stop.is_set()

    def _main_loop(self, camera, pipeline, lamp_watchdog=None, transport=None) -> None:
        watchdog = systemd.watchdog_period()
        # Slept, not `self.stop.wait`: a signal arriving while this thread held the Event's
        # lock inside `wait` would deadlock a handler that set it (seen: a service that
        # never stopped on SIGTERM).
        while not self.stopping():
            time.sleep(HEALTH_PERIOD)
            if self.stopping():
                break
            if lamp_watchdog is not None:
                lamp_watchdog.feed()  # a hung loop leaves the lamps fail-safe by itself
            if pipeline.error is not None or not pipeline.alive:
                # The table thread died (disk full, a bug): nothing is journaled any more.
                # Stop, so the lamps go fail-safe and systemd restarts the service.
                log.error("the table thread stopped: %s", pipeline.error)
                return
            if transport is not None and transport.error is not None:
                # The serial thread died: no card or button would come any more, and the
                # watchdog was still fed. Stop: systemd restarts, the link resumes.
                log.error("the serial link's thread stopped: %s", transport.error)
                return
            if watchdog and self._healthy(camera):
                systemd.notify("WATCHDOG=1")
            if camera.status == "ended" and not self.runtime.alive:
                # A recording or a folder of frames played to its end (a rig, a test):
                # nothing more will come, so the service stops as at SIGTERM.
                log.info("the recorded camera ended after %d frames: stopping",
                         self.runtime.frames)
                return

    def _healthy(self, camera, now: float | None = None) -> bool:
        """Fed to the watchdog only while frames are fresh and being processed, and the
        link (if any) is up."""
        now = time.monotonic() if now is None else now
        link_ok = not self.config["serial"]["enabled"] or self.runtime.link_up
        last = self.runtime.last_frame_at
        fresh = last is not None and now - last <= self.config["camera"]["stale_after_s"]
        return camera.status == "ok" and fresh and self.runtime.alive and link_ok

    def _button(self, name: str) -> None:
        if self.runtime is not None:
            self.runtime.on_button(name)


def install_stop_signals(service: Service) -> Callable[[int, object], None]:
    """SIGTERM and SIGINT stop `service`. The handler only assigns: it runs in the main thread
    between two of its bytecodes, perhaps while that thread holds a lock (an Event's, the
    logging's), so it must take none, nor log."""

    def request_stop(signum, frame):
        service.signalled = signum

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request_stop)
    return request_stop


def serve(config: dict, sinks=(), loop: bool = False) -> int:
    service = Service(config, threading.Event(), sinks, loop)
    install_stop_signals(service)
    started = time.monotonic()
    status = service.run()
    if service.signalled is not None:
        log.info("signal %s: stopped", signal.Signals(service.signalled).name)
    log.info("stopped after %.1f s", time.monotonic() - started)
    return status
