"""Reading a recording of `sabot record` (its layout is in `controller.cli.record`).

Only what is read back today: the frames in order with their times, and the card sensor's
edges from the decoded link records. Every malformed line is an error naming the file and
the line.
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


@dataclass
class Recording:
    directory: Path
    frames: list[RecordedFrame] = field(default_factory=list)
    sensor: list[tuple[float, bool]] = field(default_factory=list)  # (t, card present)

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
    if not folder.is_dir():
        raise InputError(f"{folder}: no such recording directory")
    if not events.is_file():
        raise InputError(f"{folder}: not a recording of `sabot record` (no {EVENTS} in it)")
    recording = Recording(folder)
    with events.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            where = f"{events}, line {number}"
            try:
                record = json.loads(line)
                kind = record["kind"]
                if kind == "frame":
                    recording.frames.append(RecordedFrame(float(record["t"]),
                                                          folder / str(record["file"])))
                elif kind == "link" and record.get("event") in SENSOR_EDGES:
                    recording.sensor.append((float(record["t"]),
                                             SENSOR_EDGES[record["event"]]))
            except (ValueError, KeyError, TypeError) as error:
                raise InputError(f"{where}: not a recording record ({error})") from None
    if not recording.frames:
        raise InputError(f"{events}: no camera frames recorded (was --camera given?)")
    recording.frames.sort(key=lambda f: f.t)
    recording.sensor.sort(key=lambda s: s[0])
    return recording


def write_synthetic_recording(deck, tokens: list[str], out: str | Path, *, seed: int = 1,
                              window: tuple[int, int] = (40, 30), frame_size=(320, 260),
                              frames_per_card: int = 24, fps: float = 90.0,
                              severity: float | None = None) -> Path:
    """A recording in the layout of `sabot record` of `deck` dealt in the order `tokens`
    (card codes, `^code` face up, CUT, JOKER): frames rendered by `vision.synth` and pasted
    into a camera frame with the reading window at `window` (x, y), and the card sensor's
    edges as the link would have decoded them. For rigs and tests without a camera."""
    import numpy as np  # noqa: PLC0415

    from vision import synth  # noqa: PLC0415
    from vision.geometry import WINDOW_H, WINDOW_W  # noqa: PLC0415
    from vision.imageio import write_image  # noqa: PLC0415

    folder = Path(out)
    (folder / "frames").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    x, y = window
    base = np.full((frame_size[1], frame_size[0], 3), synth.INTERIOR, np.uint8)
    codes = ["BACK" if t.startswith("^") else "JOKER" if t.upper() == "JOKER" else t.upper()
             for t in tokens]
    kwargs = {} if severity is None else {"severity": severity}
    lines, covered = [{"kind": "start", "host_boot_id": 0, "port": None,
                       "camera": "synthetic"}], False
    frames = synth.shoe_frames(deck, codes, rng, frames_per_card=frames_per_card, **kwargs)
    for index, (window_image, present) in enumerate(frames):
        t = round(index / fps, 6)
        if present != covered:
            covered = present
            lines.append({"kind": "link", "t": t, "event": "CardPresent" if present
                          else "CardGone", "counter": index})
        image = base.copy()
        image[y : y + WINDOW_H, x : x + WINDOW_W] = window_image
        name = f"frames/{index:06d}.png"
        write_image(folder / name, image)
        lines.append({"kind": "frame", "t": t, "index": index, "file": name})
    (folder / EVENTS).write_text("".join(json.dumps(line) + "\n" for line in lines),
                                 encoding="utf-8")
    return folder
