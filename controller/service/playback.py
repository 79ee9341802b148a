"""`sabot playback`: a recording of `sabot record` played into the service of `sabot run`.

Two drivers stand in for the camera and the serial port of a live table, and everything
between them is the service's own (`TableAssembly`): `RecordedCamera` hands out the
recorded frames, `RecordedLink` feeds the recorded bytes into the real link, on the link's
clock in recorded time (its timeouts see the gaps the shoe really left).

One player thread walks the recording in recorded order and hands each item over only when
what came before it has been dealt with: a frame once the camera thread has come back for
the next one, a chunk of serial bytes once the frame before it is read. So the card sensor,
the frames and the buttons reach the table in the order they happened, whatever the speed,
and a playback is deterministic: the same recording gives the same journal at `--speed 1`
and at `--fast`. What the host sends back (acknowledgements, lamps) goes nowhere: the
recorded shoe already answered the host that recorded it.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable

from controller.service.recording import RecordedBytes, RecordedFrame, Recording
from hardware.camera import Frame
from hardware.errors import CameraError
from vision.imageio import read_image

_END = object()
_POLL_S = 0.1  # how often a blocked hand-over looks whether the playback was stopped


class RecordedCamera:
    """The camera of a playback: a slot of one frame, filled by the player."""

    live = False

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._slot: object | None = None
        self._reads = 0  # calls of `read`: the camera thread is done with every frame before
        self._closed = False
        self.status = "ok"  # "ended" once the recording has played to its end
        self.last_error = ""

    def read(self, timeout: float | None = None) -> Frame | None:
        with self._changed:
            self._reads += 1
            self._changed.notify_all()
            while self._slot is None and not self._closed:
                self._changed.wait(_POLL_S)
            item, self._slot = self._slot, None
            self._changed.notify_all()
        if item is None or item is _END:
            self.status = "ended"
            return None
        if isinstance(item, CameraError):
            self.last_error = str(item)
            raise item
        return item  # type: ignore[return-value]

    def hand_over(self, item: object, stop: threading.Event) -> bool:
        """Put a frame (or a CameraError, or the end) in the slot once it is free; False if
        the playback was stopped first."""
        with self._changed:
            while self._slot is not None and not self._closed:
                if stop.is_set():
                    return False
                self._changed.wait(_POLL_S)
            if self._closed:
                return False
            self._slot = item
            self._changed.notify_all()
        return True

    def wait_read(self, frames: int, stop: threading.Event) -> bool:
        """Until the camera thread has dealt with `frames` frames (it asked for one more)."""
        with self._changed:
            while self._reads <= frames and not self._closed:
                if stop.is_set():
                    return False
                self._changed.wait(_POLL_S)
        return not self._closed

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()


class RecordedLink:
    """The link's transport in a playback: the recorded bytes in, nothing out."""

    alive = False  # no thread of its own: the player delivers

    def __init__(self, link) -> None:
        self.link = link
        self.on_event: Callable | None = None
        self.lamps: frozenset[str] | None = None  # what the table last asked the shoe for
        self.lamp_messages = 0

    def start(self) -> RecordedLink:
        return self

    def stop(self) -> None:
        pass

    def send_lamps(self, lit) -> None:
        self.lamps, self.lamp_messages = frozenset(lit), self.lamp_messages + 1

    def deliver(self, data: bytes, t: float) -> None:
        events = self.link.feed(data, t) if data else []
        events += self.link.tick(t)
        self.link.take_output()  # acknowledgements to a shoe that has long answered
        for event in events:
            if self.on_event is not None:
                self.on_event(event)


class Player:
    """Plays `recording` into a `RecordedCamera` and a `RecordedLink`: at the recorded pace
    divided by `speed`, or as fast as the service takes it (`speed` None)."""

    def __init__(self, recording: Recording, *, speed: float | None = None) -> None:
        self.recording = recording
        self.speed = speed
        self.camera = RecordedCamera()
        self.link: RecordedLink | None = None
        self.frames = 0  # handed to the camera
        self.chunks = 0  # of serial bytes delivered to the link
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def link_transport(self, link) -> RecordedLink:
        """`Drivers.link_transport`: the assembly's link, fed from the recording."""
        self.link = RecordedLink(link)
        return self.link

    @property
    def total(self) -> int:
        return len(self.recording.frames) + len(self.recording.received)

    def start(self) -> Player:
        self._thread = threading.Thread(target=self._run, name="playback", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def join(self, timeout: float | None = None) -> bool:
        """True once the whole recording has been handed over (or the playback stopped)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self._thread is None or not self._thread.is_alive()

    def _timeline(self):
        # Serial bytes before a frame of the same instant: the sensor edge came first.
        frames = ((f.t, 1, i, f) for i, f in enumerate(self.recording.frames))
        received = ((r.t, 0, i, r) for i, r in enumerate(self.recording.received))
        for _, _, _, item in heapq.merge(received, frames):
            yield item

    def _run(self) -> None:
        try:
            self._play()
        except BaseException as error:  # noqa: BLE001 - reported by the command
            self.error = error
        finally:
            self.camera.hand_over(_END, self._stop)

    def _play(self) -> None:
        started, first = time.monotonic(), None
        for item in self._timeline():
            if self._stop.is_set():
                return
            first = item.t if first is None else first
            if self.speed is not None:
                due = started + (item.t - first) / self.speed
                if self._stop.wait(max(0.0, due - time.monotonic())):
                    return
            if isinstance(item, RecordedBytes):
                if not self.camera.wait_read(self.frames, self._stop):
                    return
                if self.link is not None:
                    self.link.deliver(item.data, item.t)
                self.chunks += 1
            elif not self._hand_frame(item):
                return

    def _hand_frame(self, recorded: RecordedFrame) -> bool:
        if self.link is not None:
            self.link.deliver(b"", recorded.t)  # the link's clock goes on between bytes
        try:
            item: object = Frame(read_image(recorded.file), time.monotonic(), self.frames)
        except Exception as error:  # noqa: BLE001 - a damaged frame is a camera fault
            item = CameraError(f"recorded frame {recorded.file.name}: {error}")
        if not self.camera.hand_over(item, self._stop):
            return False
        self.frames += 1
        return True
