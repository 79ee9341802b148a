"""Camera sources behind one interface: `FrameSource`, frames with timestamps, never a hang.

Each source has a `grab()` that returns one image (a numpy array, BGR like OpenCV) or None
at the end of a recording, and may block or fail. `FrameSource` runs `grab` in its own
thread and hands frames over through a small queue, so `read()` waits at most `stale_after`
seconds and then raises `CameraStalledError`: a stuck driver or a dead stream is reported,
not hung on. Live sources keep only the newest frames and reconnect after errors; recorded
and synthetic sources keep every frame in order.

Kinds (`open_camera(kind, **options)`):
  v4l2       USB/CSI camera through cv2.VideoCapture(..., cv2.CAP_V4L2)  camera_live.py
  picamera2  Pi camera on Bookworm (libcamera), picamera2 from apt       camera_live.py
  http       MJPEG over HTTP (multipart/x-mixed-replace)                 camera_mjpeg.py
  file       a recorded video, or a folder of image files in name order  here
  synthetic  any iterable or callable of numpy frames (the simulator)   here
"""

from __future__ import annotations

import bisect
import contextlib
import importlib
import inspect
import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from hardware.errors import CameraError, CameraStalledError, HardwareConfigError

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


@dataclass(frozen=True)
class Frame:
    image: np.ndarray
    at: float  # clock time at which the frame was grabbed
    index: int  # 0, 1, 2 ... in the order grabbed (gaps: frames dropped for being stale)


_END = object()


class FrameSource:
    """Base class: subclasses implement `grab()`, and `release()` if they hold a device."""

    live = True  # live: drop old frames, reconnect on errors; recorded: keep all, stop on error
    stamp_when_taken = False  # True: Frame.at is when `read` returned it, not when grabbed
    # Opening a device or a video file can take seconds on a loaded Pi; a stale fault before
    # the first frame would halt a table that is only starting.
    FIRST_FRAME_WITHIN_S = 10.0

    def __init__(
        self,
        *,
        stale_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        reconnect_after: float = 0.5,
        queue_size: int | None = None,
    ):
        self.stale_after = stale_after
        self.clock = clock
        self.reconnect_after = reconnect_after
        self.status = "starting"  # starting, ok, stale, reconnecting, ended, failed, closed
        self.last_error = ""
        self._warned_error: str | None = None  # the reconnect warning last logged, and when
        self._warned_at = float("-inf")
        self._failures = 0
        # Live: the newest frames only (a reader that fell behind skips to now).
        self._queue: queue.Queue = queue.Queue(maxsize=queue_size or (2 if self.live else 8))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._index = 0  # the reader thread's: the next frame's number
        self.delivered = -1  # the caller's: the number of the last frame read() handed out

    # ---- to implement ---------------------------------------------------------------------

    def grab(self) -> np.ndarray | None:
        raise NotImplementedError

    def open(self) -> None:
        """(Re)connect to the device; called in the reader thread before grabbing."""

    def release(self) -> None:
        """Let go of the device."""

    # ---- the interface --------------------------------------------------------------------

    def start(self) -> FrameSource:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"camera-{self}", daemon=True)
            self._thread.start()
        return self

    def frame_waiting(self) -> bool:
        """Whether a frame (or the end of a recording) waits to be read."""
        return not self._queue.empty()

    def read(self, timeout: float | None = None) -> Frame | None:
        """The next frame; None once a recording has ended. Raises CameraStalledError if no
        frame comes within `timeout` (default `stale_after`, or FIRST_FRAME_WITHIN_S for the
        first frame), CameraError if it failed."""
        self.start()
        wait = self.stale_after if timeout is None else timeout
        if timeout is None and self.status == "starting":
            wait = max(wait, self.FIRST_FRAME_WITHIN_S)
        try:
            item = self._queue.get(timeout=wait)
        except queue.Empty:
            if self.status == "failed":
                raise CameraError(f"{self}: {self.last_error}") from None
            self.status = "stale"
            detail = f" (last error: {self.last_error})" if self.last_error else ""
            raise CameraStalledError(f"{self}: no frame for {wait * 1000:.0f} ms{detail}") from None
        if item is _END:
            self.status = "ended"
            self._queue.put(_END)  # later reads see the end too
            return None
        if isinstance(item, Exception):
            self.status = "failed"
            raise CameraError(f"{self}: {item}") from item
        self.status = "ok"
        self.delivered = item.index
        if self.stamp_when_taken:
            return replace(item, at=self.clock())
        return item

    def __iter__(self) -> Iterator[Frame]:
        while (frame := self.read()) is not None:
            yield frame

    def close(self) -> None:
        self._stop.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()  # unblock a reader thread waiting to put
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.release()
        self.status = "closed"

    def __enter__(self) -> FrameSource:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    def __str__(self) -> str:
        return type(self).__name__

    # ---- the reader thread ----------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.open()
                while not self._stop.is_set():
                    image = self.grab()
                    if image is None:
                        self._put(_END)
                        return
                    self._put(Frame(image, self.clock(), self._index))
                    self._index += 1
            except Exception as error:  # any driver error: report it, and retry if live
                self.last_error = f"{type(error).__name__}: {error}"
                if not self.live:
                    self._put(error)
                    return
                self._warn_reconnecting()
                self.status = "reconnecting"
                with contextlib.suppress(Exception):
                    self.release()
                self._stop.wait(self.reconnect_after)

    REPEAT_WARNING_S = 60.0  # the same error again: logged once a minute, with its count

    def _warn_reconnecting(self) -> None:
        """One line per new error, then one a minute while it lasts: a camera that is
        missing for an hour writes 60 lines, not 7,200."""
        now = self.clock()
        same = self.last_error == self._warned_error
        self._failures = self._failures + 1 if same else 1
        if not same or now - self._warned_at >= self.REPEAT_WARNING_S:
            times = f" ({self._failures} times so far)" if self._failures > 1 else ""
            log.warning("%s: %s; reconnecting%s", self, self.last_error, times)
            self._warned_error, self._warned_at = self.last_error, now

    def _put(self, item) -> None:
        if self.live and isinstance(item, Frame):
            if self._queue.full():
                with contextlib.suppress(queue.Empty):
                    self._queue.get_nowait()  # the newest frame matters, not a backlog
            self._queue.put(item)
            return
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue


class SyntheticSource(FrameSource):
    """Frames from any iterable, or a callable returning a frame (None: the end).

    A synthetic frame exists the moment it is asked for, so it is stamped when the reader
    takes it: the camera of a simulation delivers at exactly the pace the reader keeps, and
    frame-to-lamp latency measures the service, not a queue of frames drawn in advance."""

    live = False
    stamp_when_taken = True

    def __init__(self, frames: Iterable[np.ndarray] | Callable[[], np.ndarray | None], **kw):
        super().__init__(**kw)
        self._next = frames if callable(frames) else iter(frames).__next__

    def grab(self) -> np.ndarray | None:
        try:
            return self._next()
        except StopIteration:
            return None


class FileSource(FrameSource):
    """A recorded video (anything cv2.VideoCapture reads) or a folder of image files;
    `loop`: from the start again at the end, for ever (a rig's soak); `loops` counts the
    restarts the caller has reached, not those the reader thread has read ahead to."""

    live = False

    def __init__(self, path: str | Path, *, loop: bool = False, **kw):
        super().__init__(**kw)
        self.path = Path(path)
        self.loop = loop
        # Written by the reader thread only (appends): the number of each pass's first frame.
        self._pass_starts: list[int] = []
        if not self.path.exists():
            raise HardwareConfigError(f"camera file {str(self.path)!r} does not exist")
        self._files: Iterator[Path] | None = None
        self._capture = None
        if self.path.is_dir():
            self._all = sorted(p for p in self.path.iterdir()
                               if p.suffix.lower() in IMAGE_SUFFIXES)
            if not self._all:
                raise HardwareConfigError(f"camera folder {str(self.path)!r} has no images")
            self._files = iter(self._all)

    def open(self) -> None:
        if self._files is None and self._capture is None:
            import cv2

            name = str(self.path)
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:  # OpenCV would crash on it rather than fail
                raise CameraError(f"camera file {_printable(self.path)!r}: the name is not "
                                  "valid UTF-8; rename it") from None
            # FFmpeg's own lines ("[png @ 0x...] Invalid PNG signature") say nothing the
            # error below does not; set the variable to see them.
            os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
            self._capture = cv2.VideoCapture(name)
            if not self._capture.isOpened():
                raise CameraError(f"cannot read video {str(self.path)!r}")

    def grab(self) -> np.ndarray | None:
        image = self._grab_one()
        if image is None and self.loop:
            self._pass_starts.append(self._index)
            self._rewind()
            image = self._grab_one()
        return image

    @property
    def loops(self) -> int:
        return bisect.bisect_right(self._pass_starts, self.delivered)  # appends only

    def _rewind(self) -> None:
        import cv2

        if self._files is not None:
            self._files = iter(self._all)
        else:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)

    def _grab_one(self) -> np.ndarray | None:
        import cv2

        if self._files is not None:
            path = next(self._files, None)
            if path is None:
                return None
            try:  # bytes read by Python: OpenCV's imread crashes on a non-UTF-8 name
                data = np.fromfile(path, np.uint8)
                image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
            except (OSError, cv2.error):
                image = None
            if image is None:
                raise CameraError(f"cannot decode image {_printable(path)!r}")
            return image
        ok, image = self._capture.read()
        if not ok and self._index == 0:
            # Not one frame: no recording that ended, a file that is none (a trial, stop 61:
            # "recorded 0 frames", exit 0).
            raise CameraError("no frame in it (not a video or an image OpenCV reads)")
        return image if ok else None

    def release(self) -> None:
        if self._capture is not None:
            self._capture.release()

    def __str__(self) -> str:
        return f"file {self.path}"


def _printable(path: Path) -> str:
    return str(path).encode("utf-8", "backslashreplace").decode("utf-8")


KINDS = {
    "synthetic": "hardware.camera:SyntheticSource",
    "file": "hardware.camera:FileSource",
    "v4l2": "hardware.camera_live:V4l2Source",
    "picamera2": "hardware.camera_live:Picamera2Source",
    "http": "hardware.camera_mjpeg:MjpegSource",
}


def open_camera(kind: str, **options) -> FrameSource:
    """A started source of the given kind; options are the class's keyword arguments."""
    cls = check_options(kind, options)
    try:
        return cls(**options).start()
    except TypeError as error:
        raise HardwareConfigError(f"camera kind {kind!r}: {error}") from error


def check_options(kind: str, options: dict):
    """The class of camera `kind`, once its `options` are known to be the ones it takes
    (`--camera-opt uri=...` for `url`: Python's "__init__() missing 1 required positional
    argument" said neither); a caller that makes something first checks before it."""
    if kind not in KINDS:
        raise HardwareConfigError(f"camera kind {kind!r} is unknown; choose one of: "
                                  f"{', '.join(KINDS)}")  # fmt: skip
    module_name, class_name = KINDS[kind].split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    accepted, required, switches = set(), set(), set()
    for klass in cls.__mro__:
        if "__init__" not in vars(klass):
            continue
        for name, parameter in inspect.signature(vars(klass)["__init__"]).parameters.items():
            if name == "self" or parameter.kind in (parameter.VAR_KEYWORD,
                                                    parameter.VAR_POSITIONAL):
                continue
            accepted.add(name)
            if parameter.default is parameter.empty and klass is cls:
                required.add(name)
            if isinstance(parameter.default, bool):
                switches.add(name)
    for name in sorted(switches & set(options)):
        # `loop=maybe` looped: any text is true to Python (a trial, stop 61).
        if not isinstance(options[name], bool):
            raise HardwareConfigError(f"camera kind {kind!r}: option {name} is true or "
                                      f"false, not {options[name]!r}")
    unknown = sorted(set(options) - accepted)
    missing = sorted(required - set(options))
    if unknown or missing:
        said = "; ".join(part for part in (
            f"no option {', '.join(unknown)}" if unknown else "",
            f"it needs {', '.join(missing)}" if missing else "") if part)
        raise HardwareConfigError(f"camera kind {kind!r}: {said} (its options: "
                                  f"{', '.join(sorted(accepted))})")
    return cls
