"""The emulated shoe's camera: cards sliding through the reading window, in step with the
emulated card sensor, served as an MJPEG stream over HTTP on loopback.

With it, one `sabot emulate-shoe` process stands in for a whole physical shoe: `sabot run`
reads the stream with its `http` camera source and the link on the pty, exactly as it reads
a real shoe's camera and microcontroller. A clock thread shows one frame every 1/fps
seconds: the frames of the card being dealt, or the empty window between cards. The
sensor is covered one frame before the first frame that shows the card and uncovered one
frame after the last, as a sensor at the shoe's mouth does, so the link's report leads
the camera's frames as it does on a shoe.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np

from controller.errors import InputError
from vision import synth
from vision.geometry import WINDOW_H, WINDOW_W

BOUNDARY = "sabot-frame"
JPEG_QUALITY = 90
AHEAD_FRAMES = 120  # rendered frames waiting to be shown before `deal` waits
PRESS_GAP_FRAMES = 12  # empty frames before and after a press, as in a recording
# Empty frames after each card: 0.4 s at 30 fps, a quick dealer's pause. The sensor is then
# uncovered for many frames, whatever the link's and the stream's latency.
GAP_FRAMES = 12


def camera_frame(window: np.ndarray, at: tuple[int, int] = (40, 30),
                 size: tuple[int, int] = (320, 260)) -> np.ndarray:
    """A camera frame of `size` (width, height): the shoe's dark interior with the reading
    window's picture at `at` (x, y), where `[camera] window` says it is."""
    frame = np.full((size[1], size[0], 3), synth.INTERIOR, np.uint8)
    x, y = at
    frame[y : y + WINDOW_H, x : x + WINDOW_W] = window
    return frame


@dataclass(frozen=True)
class _Shown:
    image: np.ndarray | None  # None: the empty window
    present: bool  # what the card sensor says while it is shown


@dataclass(frozen=True)
class _Press:
    button: str


class ShoeCamera:
    """`sensor` has the emulated shoe's card_present(), card_gone() and press(name)."""

    def __init__(self, sensor, deck, *, fps: float = 30.0, at: tuple[int, int] = (40, 30),
                 size: tuple[int, int] = (320, 260), frames_per_card: int = 24,
                 severity: float = synth.PASSAGE_SEVERITY, seed: int | None = None,
                 port: int = 0, on_card: Callable[[str], None] | None = None) -> None:
        self.sensor, self.deck = sensor, deck
        self.fps, self.at, self.size = fps, at, size
        self.frames_per_card, self.severity = frames_per_card, severity
        self.rng = np.random.default_rng(seed)
        self.on_card = on_card  # told of each card as its first frame is shown
        self._queue: deque[_Shown | _Press | str] = deque()
        self._changed = threading.Condition()
        self._latest: tuple[int, bytes] = (-1, b"")
        self._empty = self._jpeg(camera_frame(synth.render_window(deck, synth.EMPTY),
                                              at, size))
        self.frames = 0
        self._covered = False
        self._stop = threading.Event()
        try:
            self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        except OSError as error:  # one word for the user: which port, and why
            raise InputError(f"--camera {port}: cannot serve the camera on 127.0.0.1:{port} "
                             f"({error.strerror or error}; another emulator or program is "
                             "on it? give another port)") from None
        self._server.daemon_threads = True
        self._threads = [threading.Thread(target=self._server.serve_forever, name="mjpeg",
                                          daemon=True),
                         threading.Thread(target=self._clock, name="camera-clock",
                                          daemon=True)]

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/stream.mjpg"

    def start(self) -> ShoeCamera:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        self._server.shutdown()
        self._server.server_close()
        for thread in self._threads:
            thread.join(timeout=5)

    # ---- what the dealer does ----------------------------------------------------------

    def deal(self, code: str, *, face_up: bool = False, pulled_back: bool = False) -> None:
        """Queue one card's passage through the window (rendered now, shown in turn): its
        face, or its back if it is dealt face up; `pulled_back`: it comes half way and goes
        back into the shoe (the sensor sees it come and go, it never leaves)."""
        shown = "BACK" if face_up else code
        frames = list(synth.card_frames(self.deck, shown, self.rng,
                                        frames=self.frames_per_card, severity=self.severity))
        if pulled_back:
            frames = synth.drawn_half_way(frames)
        items: list[_Shown | str] = [f"{'^' if face_up else ''}{code}"]
        items += [_Shown(self._jpeg(camera_frame(window, self.at, self.size)), present)
                  for window, present in frames]
        items += [_Shown(None, False)] * GAP_FRAMES
        self._enqueue(items)

    def press(self, button: str) -> None:
        """A button pressed between two cards, with the window empty around it."""
        gap = [_Shown(None, False)] * PRESS_GAP_FRAMES
        self._enqueue([*gap, _Press(button), *gap])

    def idle(self, timeout: float | None = None) -> bool:
        """Wait until everything queued has been shown; False on timeout."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._queue or self._stop.is_set(),
                                          timeout)

    def _enqueue(self, items: list) -> None:
        with self._changed:
            self._changed.wait_for(lambda: len(self._queue) < AHEAD_FRAMES
                                   or self._stop.is_set())
            self._queue.extend(items)

    # ---- the camera's clock ------------------------------------------------------------

    def _clock(self) -> None:
        period = 1.0 / self.fps
        next_at = time.monotonic()
        while not self._stop.is_set():
            next_at += period
            self._show_next()
            delay = next_at - time.monotonic()
            if delay > 0:
                self._stop.wait(delay)
            else:
                next_at = time.monotonic()  # fell behind: no burst to catch up

    def _show_next(self) -> None:
        with self._changed:
            while self._queue and not isinstance(self._queue[0], _Shown):
                item = self._queue.popleft()
                if isinstance(item, _Press):
                    self.sensor.press(item.button)
                elif self.on_card is not None:
                    self.on_card(item)
            shown = self._queue.popleft() if self._queue else _Shown(None, False)
            upcoming = next((i for i in self._queue if isinstance(i, _Shown)), None)
            self._changed.notify_all()
        if not self._covered and (shown.present or (upcoming and upcoming.present)):
            self._covered = True  # a frame before the card shows: the sensor leads
            self.sensor.card_present()
        data = shown.image if shown.image is not None else self._empty
        with self._changed:
            self.frames += 1
            self._latest = (self.frames, data)
            self._changed.notify_all()
        if self._covered and not shown.present and not (upcoming and upcoming.present):
            self._covered = False  # the frame after the card has gone: the sensor lags
            self.sensor.card_gone()

    def _jpeg(self, image: np.ndarray) -> bytes:
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            raise RuntimeError("OpenCV could not encode a JPEG")
        return data.tobytes()

    # ---- the stream ----------------------------------------------------------------------

    def _handler(self):
        camera = self

        class Stream(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("Content-Type",
                                 f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                seen = -1
                while not camera._stop.is_set():
                    with camera._changed:
                        camera._changed.wait_for(lambda seen=seen: camera._latest[0] != seen
                                                 or camera._stop.is_set(), 1.0)
                        seen, data = camera._latest
                    if not data:
                        continue
                    try:
                        self.wfile.write(f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                                         f"Content-Length: {len(data)}\r\n\r\n".encode()
                                         + data + b"\r\n")
                    except OSError:
                        return  # the client went away

            def log_message(self, *args):
                pass  # a rig's log is the emulator's own lines

        return Stream
