"""Reading a recording of `sabot record` (its layout is in `controller.cli.record`).

What is read back: the frames in order with their times, the bytes the shoe's
microcontroller sent (for `sabot playback`, through the real link), the host boot id they
were sent to, and the card sensor's edges from the decoded link records (for enrolment).
Every malformed line is an error naming the file and the line, but for a last line cut off
mid-write (no end of line): a recording killed or losing power as it wrote is played up to
there, with a note (`Recording.notes`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from controller.errors import InputError

EVENTS = "events.jsonl"
SENSOR_EDGES = {"CardPresent": True, "CardGone": False}


@dataclass(frozen=True)
class RecordedFrame:
    t: float
    file: Path


@dataclass(frozen=True)
class RecordedBytes:
    t: float
    data: bytes  # as received from the shoe's microcontroller


@dataclass
class Recording:
    directory: Path
    frames: list[RecordedFrame] = field(default_factory=list)
    sensor: list[tuple[float, bool]] = field(default_factory=list)  # (t, card present)
    received: list[RecordedBytes] = field(default_factory=list)
    host_boot_id: int | None = None  # the boot id the recording's link answered with
    notes: list[str] = field(default_factory=list)  # for the user: what was left out

    def sensor_flags(self) -> list[bool] | None:
        """Whether the card sensor was covered at each frame's time; None without sensor
        records (a recording of the camera alone)."""
        if not self.sensor:
            return None
        flags, edge, covered = [], 0, False
        for frame in self.frames:
            while edge < len(self.sensor) and self.sensor[edge][0] <= frame.t:
                covered = self.sensor[edge][1]
                edge += 1
            flags.append(covered)
        return flags


def open_recording(directory: str | Path) -> Recording:
    folder = Path(directory)
    events = folder / EVENTS
    if folder.is_file():
        raise InputError(f"{folder}: a file, not a recording (the directory `sabot record "
                         "--out` wrote)")
    if not folder.is_dir():
        raise InputError(f"{folder}: no such recording directory")
    if not events.is_file():
        raise InputError(f"{folder}: not a recording of `sabot record` (no {EVENTS} in it)")
    recording = Recording(folder)
    with events.open(encoding="utf-8", errors="replace") as file:
        _read_events(file, recording)
    if not recording.frames:
        raise InputError(f"{events}: no camera frames recorded (was --camera given?)")
    recording.frames.sort(key=lambda f: f.t)
    recording.sensor.sort(key=lambda s: s[0])
    recording.received.sort(key=lambda r: r.t)
    return recording


def _read_events(file, recording: Recording) -> None:
    """The records of an events file into `recording`, line by line."""
    folder = recording.directory
    for number, line in enumerate(file, start=1):
        if not line.strip():
            continue
        where = f"{file.name}, line {number}"
        try:
            record = json.loads(line)
            kind = record["kind"]
            if kind == "start":
                recording.host_boot_id = int(record["host_boot_id"])
            elif kind == "rx":
                recording.received.append(RecordedBytes(float(record["t"]),
                                                        bytes.fromhex(record["hex"])))
            elif kind == "frame":
                recording.frames.append(RecordedFrame(float(record["t"]),
                                                      folder / str(record["file"])))
            elif kind == "link" and record.get("event") in SENSOR_EDGES:
                recording.sensor.append((float(record["t"]),
                                         SENSOR_EDGES[record["event"]]))
        except (ValueError, KeyError, TypeError) as error:
            if not line.endswith("\n"):  # only the last line can end without one
                recording.notes.append(f"{where}: cut off mid-write (the recording was "
                                       "stopped as it wrote it), left out")
                break
            raise InputError(f"{where}: not a recording record ({error})") from None
