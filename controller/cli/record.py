"""`sabot record`: camera frames and serial traffic with timestamps, for exact replay."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import threading
import time
from pathlib import Path

from controller.cli._numbers import number
from firmware_bridge.link import Link
from firmware_bridge.transport import SerialTransport, held_elsewhere
from hardware.camera import KINDS, check_options, open_camera
from hardware.errors import CameraStalledError

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


def camera_options(pairs: list[str]) -> dict[str, object]:
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--camera-opt {pair!r}: expected KEY=VALUE")
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
        (out / "frames").mkdir(parents=True, exist_ok=True)
        # Line-buffered: each record reaches the file as it is written, so a recording that
        # is killed keeps everything up to its last frame (issue 13).
        self._file = (out / "events.jsonl").open("w", encoding="utf-8", buffering=1)
        self._lock = threading.Lock()
        self.frames = 0

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

    def link(self, event) -> None:
        record = {"kind": "link", "t": self.at(time.monotonic()), "event": type(event).__name__}
        self.write(record | dataclasses.asdict(event))

    def close(self) -> None:
        with self._lock:
            self._file.close()


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
    if out.exists() and any(out.iterdir()):
        print(f"sabot record: {out} is not empty; choose a new directory", file=sys.stderr)
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
    if args.port:  # tried before the recording's folder is made
        transport = SerialTransport(
            args.port, link, baudrate=args.baudrate, on_event=held.link, on_bytes=held.rx
        ).start()
        why = transport.first_open()
        if held_elsewhere(why):  # its bytes would be split between two readers
            transport.stop()
            print(f"sabot record: --port {args.port}: {why}", file=sys.stderr)
            return 2
    recorder = Recorder(out, start)
    recorder.write({"kind": "start", "host_boot_id": link.session.boot_id, "port": args.port,
                    "camera": args.camera, "camera_options": options})  # fmt: skip
    held.to(recorder)
    camera = open_camera(args.camera, **options) if args.camera else None
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
    finally:
        if camera is not None:
            camera.close()
        if transport is not None:
            transport.stop()
        recorder.close()
    print(f"recorded {recorder.frames} frames to {out}", file=sys.stderr)
    return status


def done(args, recorder: Recorder, start: float) -> bool:
    if args.frames is not None and recorder.frames >= args.frames:
        return True
    return args.seconds is not None and time.monotonic() - start >= args.seconds
