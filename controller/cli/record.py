"""`sabot record`: camera frames and serial traffic with timestamps, for exact replay."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path

from controller.cli._numbers import number
from controller.views.text import counted
from firmware_bridge.link import Link
from firmware_bridge.transport import SerialTransport, held_elsewhere
from hardware.camera import KINDS, check_options, open_camera
from hardware.errors import CameraError, CameraStalledError

FORMAT = """\
recording layout (DIR):
  frames/000000.png ...  every camera frame, lossless
  events.jsonl           one JSON object per line, written as it goes (a killed recording
                         keeps all it had), "t" = seconds since the start:
    {"kind": "start", "host_boot_id": H, "port": ..., "camera": ...}
    {"kind": "frame", "t": .., "index": n, "file": "frames/000000.png"}
    {"kind": "rx", "t": .., "hex": "..."}        bytes as received from the shoe MCU
    {"kind": "link", "t": .., "event": "CardPresent", "counter": 7}   decoded, for reading
    {"kind": "stall", "t": .., "error": "..."}   the camera delivered nothing in time
Play it back into the service: `sabot playback DIR --config CONFIG` (the "rx" bytes go
through the real link answering as boot id H; the same recording gives the same journal).
A new DIR is made readable by its owner only: its frames hold the live card order, as a
journal does. A recording that fails before anything was recorded leaves nothing behind.

exit status: 0 recorded; 2 a bad option, folder, port or camera file; 3 the camera gave no
frame in 5 s (a wrong device or URL)
"""


FIRST_FRAME_S = 5.0  # a camera that has given no frame after this long is not there


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "record",
        help="record camera frames and shoe serial traffic for exact replay",
        description="Record what the shoe sees: camera frames and everything the shoe "
        "microcontroller sends, each with a timestamp, until --seconds or --frames or Ctrl-C.",
        epilog=FORMAT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="new or empty directory")
    parser.add_argument(
        "--camera",
        choices=sorted(set(KINDS) - {"synthetic"}),
        help="camera kind (omit to record the serial link only)",
    )
    parser.add_argument(
        "--camera-opt",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="camera option, e.g. device=/dev/video0, url=..., path=...",
    )
    parser.add_argument("--port", help="serial port of the shoe MCU, e.g. /dev/sabot-shoe")
    parser.add_argument("--baudrate", type=int, default=115200)
    parser.add_argument("--seconds", type=number(float, 0.001), help="stop after this long")
    parser.add_argument("--frames", type=number(int, 1), help="stop after this many frames")
    parser.set_defaults(func=run)  # fmt: skip


SWITCHES = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


def camera_options(pairs: list[str]) -> dict[str, object]:
    """`--camera-opt` pairs as the camera's keyword arguments: whole numbers, numbers,
    true or false (true, yes, on; false, no, off), else the text."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--camera-opt {pair!r}: expected KEY=VALUE")
        if value.lower() in SWITCHES:
            options[key] = SWITCHES[value.lower()]
            continue
        try:
            options[key] = int(value)
        except ValueError:
            try:
                options[key] = float(value)
            except ValueError:
                options[key] = value
    return options


class Recorder:
    def __init__(self, out: Path, start: float):
        self.out, self.start = out, start
        self.made = not out.exists()  # the folder is ours to remove if nothing is recorded
        out.mkdir(mode=0o700, exist_ok=True)
        (out / "frames").mkdir(exist_ok=True)
        # Line-buffered: each record reaches the file as it is written, so a recording that
        # is killed keeps everything up to its last frame (issue 13).
        self._file = (out / "events.jsonl").open("w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()
        self.frames = 0
        self.received = 0  # chunks of bytes from the shoe

    def write(self, record: dict) -> None:
        with self._lock:
            self._file.write(json.dumps(record, separators=(",", ":")) + "\n")

    def at(self, when: float) -> float:
        return round(when - self.start, 6)

    def frame(self, frame) -> None:
        from vision.imageio import write_image  # noqa: PLC0415 - OpenCV only when recording

        name = f"frames/{frame.index:06d}.png"
        write_image(self.out / name, frame.image)
        self.write({"kind": "frame", "t": self.at(frame.at), "index": frame.index, "file": name})
        self.frames += 1

    def rx(self, data: bytes, when: float) -> None:
        self.write({"kind": "rx", "t": self.at(when), "hex": data.hex()})
        self.received += 1

    def link(self, event) -> None:
        record = {"kind": "link", "t": self.at(time.monotonic()), "event": type(event).__name__}
        self.write(record | dataclasses.asdict(event))

    def close(self) -> None:
        with self._lock:
            self._file.close()

    def discard(self) -> None:
        """Remove what this recording wrote (its folder, if it made it): nothing was
        recorded, and a folder left behind would refuse the corrected command."""
        (self.out / "events.jsonl").unlink(missing_ok=True)
        shutil.rmtree(self.out / "frames", ignore_errors=True)
        if self.made:
            with contextlib.suppress(OSError):
                self.out.rmdir()


class _Held:
    """The link's records, held from the port's opening until the recorder is made, then
    passed on: the port is tried before the recording's folder is made."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: list[tuple[str, tuple]] = []
        self._recorder: Recorder | None = None

    def rx(self, data: bytes, when: float) -> None:
        self._pass("rx", data, when)

    def link(self, event) -> None:
        self._pass("link", event)

    def _pass(self, name: str, *args) -> None:
        with self._lock:
            if self._recorder is None:
                self._held.append((name, args))
                return
        getattr(self._recorder, name)(*args)

    def to(self, recorder: Recorder) -> None:
        with self._lock:
            for name, args in self._held:
                getattr(recorder, name)(*args)
            self._recorder, self._held = recorder, []


def run(args) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        print(f"sabot record: --out {out}: not a directory; give a new or empty one",
              file=sys.stderr)
        return 2
    if out.exists() and any(out.iterdir()):
        print(f"sabot record: {out} is not empty; choose a new directory", file=sys.stderr)
        return 2
    if not out.parent.is_dir():
        print(f"sabot record: --out {out}: no such directory {out.parent}", file=sys.stderr)
        return 2
    if not args.camera and not args.port:
        print("sabot record: give --camera, --port or both", file=sys.stderr)
        return 2
    try:
        options = camera_options(args.camera_opt)
    except ValueError as error:
        print(f"sabot record: {error}", file=sys.stderr)
        return 2
    if args.camera:
        check_options(args.camera, options)  # before the recording's folder is made
    if args.port and not os.path.exists(args.port):
        # The service waits for a shoe unplugged at its start; a recording is started at a
        # shoe, and a port that is not there is a mistyped one: 0 frames of it, exit 0, before.
        print(f"sabot record: --port {args.port}: no such device (the shoe's port, e.g. "
              "/dev/sabot-shoe, or the emulator's --link path)", file=sys.stderr)
        return 2
    start = time.monotonic()
    status = 0
    link = Link()
    transport = None
    held = _Held()
    # The camera and the port are tried before the recording's folder is made: a camera
    # file that is not there left a folder that refused the corrected command (stop 61).
    camera = open_camera(args.camera, **options) if args.camera else None
    if args.port:
        transport = SerialTransport(
            args.port, link, baudrate=args.baudrate, on_event=held.link, on_bytes=held.rx
        ).start()
        why = transport.first_open()
        if held_elsewhere(why):  # its bytes would be split between two readers
            transport.stop()
            if camera is not None:
                camera.close()
            print(f"sabot record: --port {args.port}: {why}", file=sys.stderr)
            return 2
    recorder = Recorder(out, start)
    recorder.write({"kind": "start", "host_boot_id": link.session.boot_id, "port": args.port,
                    "camera": args.camera, "camera_options": options})  # fmt: skip
    held.to(recorder)
    try:
        while not done(args, recorder, start):
            if camera is None:
                time.sleep(0.05)
                continue
            try:
                frame = camera.read()
            except CameraStalledError as error:
                recorder.write({"kind": "stall", "t": recorder.at(time.monotonic()),
                                "error": str(error)})  # fmt: skip
                if recorder.frames == 0 and time.monotonic() - start > FIRST_FRAME_S \
                        and camera.last_error:
                    # Never a frame: a wrong device or URL, not a camera that hiccuped.
                    print(f"sabot record: the camera gave no frame in {FIRST_FRAME_S:.0f} s "
                          f"({camera.last_error}); check --camera-opt", file=sys.stderr)
                    status = 3
                    break
                continue
            if frame is None:  # a recorded source ended; the serial link may go on
                camera.close()
                camera = None
                if transport is None:
                    break
                continue
            recorder.frame(frame)
    except KeyboardInterrupt:
        pass
    except CameraError as error:  # a recorded source only: a live one reconnects
        print(f"sabot record: {error}", file=sys.stderr)
        status = 2
    finally:
        if camera is not None:
            camera.close()
        if transport is not None:
            transport.stop()
        recorder.close()
    if status and not recorder.frames and not recorder.received:
        recorder.discard()
        print(f"nothing recorded; {out} left as it was", file=sys.stderr)
        return status
    print(f"recorded {counted(recorder.frames, 'frame', 'frames')} to {out}", file=sys.stderr)
    return status


def done(args, recorder: Recorder, start: float) -> bool:
    if args.frames is not None and recorder.frames >= args.frames:
        return True
    return args.seconds is not None and time.monotonic() - start >= args.seconds
