"""Assembling `sabot playback`: the service of `sabot run` (`TableAssembly`) with a
recording's camera and serial link (`playback.Player`) and fake GPIO."""

from __future__ import annotations

import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

from controller.errors import InputError
from controller.journal.store import Journal
from controller.service.assembly import Drivers, TableAssembly
from controller.service.config import DEFAULT_BUTTON_PINS, DEFAULT_LAMP_PINS
from controller.service.playback import Player
from controller.service.recording import open_recording
from controller.views.text import counted
from hardware.panel import open_panel
from vision.profile import load_profile
from vision.reader import Reader
from vision.tuning import tune_for_reading

CAMERA_LOOP_ENDS_S = 30.0  # after the last frame: the tracker's last decisions


class Playback:
    def __init__(self, recording: str | Path, settings: dict, profile: str,
                 window: tuple[int, int, int, int], journal_path: str, *,
                 speed: float | None = 1.0, sinks=()) -> None:
        self.recording = open_recording(recording)
        missing = [f.file.name for f in self.recording.frames if not f.file.is_file()]
        if missing:
            raise InputError(f"{recording}: {len(missing)} recorded frame(s) missing, the "
                             f"first {missing[0]}")
        self.settings = settings
        self._stack = ExitStack()
        try:
            tune_for_reading()
            reader = Reader(load_profile(profile))
            self.player = Player(self.recording, speed=speed)
            self._stack.callback(self.player.stop)
            panel = open_panel({"backend": "fake", "lamps": DEFAULT_LAMP_PINS,
                                "buttons": DEFAULT_BUTTON_PINS})
            self._stack.callback(panel.close)
            # `end_frames`: a playback stopped early must not leave the camera thread waiting
            # for a frame that will never come.
            drivers = Drivers(panel=panel, camera=self.player.camera, reader=reader,
                              window=window, end_frames=self.player.camera.close,
                              link_transport=self.player.link_transport,
                              host_boot_id=self.recording.host_boot_id)
            self.table = TableAssembly(settings, journal_path, drivers,
                                       sinks=[lambda events: [s(e) for e in events
                                                              for s in sinks]],
                                       on_status=lambda message: None)
            self._stack.callback(self.table.close)
        except BaseException:
            self._stack.close()
            raise

    def __enter__(self) -> Playback:
        try:
            self.table.start()
        except BaseException:
            self._stack.close()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def play(self, *, progress: bool = True) -> None:
        """The whole recording, then the table's last decisions, journaled."""
        self.player.start()
        console = Console(stderr=True)
        columns = (TextColumn("playing"), BarColumn(),
                   TextColumn("{task.completed}/{task.total} frames and serial chunks"),
                   TimeRemainingColumn())
        with Progress(*columns, console=console, transient=True,
                      disable=not (progress and console.is_terminal)) as bar:
            task = bar.add_task("playback", total=self.player.total)
            while not self.player.join(timeout=0.2):
                bar.update(task, completed=self.player.frames + self.player.chunks)
        deadline = time.monotonic() + CAMERA_LOOP_ENDS_S
        while self.table.runtime.alive and time.monotonic() < deadline:
            time.sleep(0.02)
        self.table.close()  # what is queued is journaled and applied
        if self.player.error is not None:
            raise self.player.error
        if self.table.pipeline.error is not None:
            raise self.table.pipeline.error

    def summary(self, wall_s: float) -> str:
        """What the table did, from its journal (closed by `play`)."""
        with Journal(self.table.journal.path, create=False) as journal:
            records = list(journal.records())
        observations = [r.body for r in records if r.kind == "observation"]
        events = [r.body for r in records if r.kind == "event"]
        kinds = [o.get("kind") for o in observations]
        seen = counted(kinds.count("card"), "card", "cards") + (
            " and the cut card" if "cut" in kinds else "")
        if "unreadable" in kinds:
            seen += f", {kinds.count('unreadable')} unreadable"
        rounds = sum(1 for e in events if e.get("event") == "round")
        faults = sum(1 for e in events if e.get("event") == "fault")
        rules = Counter(e.get("rule") for e in events if e.get("event") == "irregularity")
        # Said with their rules: 27 cards held as excess (12.2(a), no "No more bets" in the
        # recording) once read as a clean "0 rounds, 0 faults".
        irregular = "".join(f", {n} irregularit{'y' if n == 1 else 'ies'} (rule {rule})"
                            for rule, n in sorted(rules.items(), key=lambda kv: str(kv[0])))
        frames = self.recording.frames
        recorded_s = frames[-1].t - frames[0].t if len(frames) > 1 else 0.0
        pace = f", {recorded_s / wall_s:.1f}x the recorded pace" if wall_s > 0 else ""
        chunks = counted(self.player.chunks, "serial chunk", "serial chunks")
        return (f"played {counted(self.player.frames, 'frame', 'frames')} and {chunks} "
                f"({recorded_s:.1f} s recorded) in {wall_s:.1f} s{pace}: {seen}, "
                f"{counted(rounds, 'round', 'rounds')}, {counted(faults, 'fault', 'faults')}"
                f"{irregular}")

