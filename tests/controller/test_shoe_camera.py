"""The emulated shoe's camera (`controller/sim/camera.py`, issue 13): the card sensor in step
with the frames, a pulled-back card, the MJPEG stream as the `http` camera source reads it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from controller.sim.camera import ShoeCamera, camera_frame
from hardware.camera import open_camera
from vision.decks import synthetic_deck
from vision.geometry import WINDOW_H, WINDOW_W


class Sensor:
    """The shoe's side the camera drives: what happened, with the frame count at the time."""

    def __init__(self):
        self.camera: ShoeCamera | None = None
        self.calls: list[tuple[str, int]] = []
        self.lock = threading.Lock()

    def _note(self, what: str) -> None:
        with self.lock:
            self.calls.append((what, self.camera.frames))

    def card_present(self):
        self._note("present")

    def card_gone(self):
        self._note("gone")

    def press(self, button):
        self._note(f"press {button}")


@pytest.fixture
def camera():
    sensor = Sensor()
    camera = ShoeCamera(sensor, synthetic_deck(), fps=240, seed=3, frames_per_card=16)
    sensor.camera = camera
    camera.start()
    yield camera, sensor
    camera.stop()


def test_the_sensor_leads_the_card_by_a_frame_and_clears_a_frame_after_it(camera):
    camera, sensor = camera
    camera.deal("7H")
    camera.press("no_more_bets")
    camera.deal("KS", face_up=True)
    assert camera.idle(timeout=20)
    kinds = [what for what, _ in sensor.calls]
    assert kinds == ["present", "gone", "press no_more_bets", "present", "gone"]
    (_, covered), (_, cleared) = sensor.calls[0], sensor.calls[1]
    assert 16 <= cleared - covered <= 18  # the card's frames, plus the frames before and after


def test_a_pulled_back_card_covers_the_sensor_once_and_goes_back(camera):
    camera, sensor = camera
    camera.deal("9C", pulled_back=True)
    assert camera.idle(timeout=20)
    assert [what for what, _ in sensor.calls] == ["present", "gone"]


def test_the_stream_is_mjpeg_the_http_camera_source_reads(camera):
    camera, _ = camera
    with open_camera("http", url=camera.url, stale_after=5.0) as source:
        frames = [source.read() for _ in range(3)]
    assert all(f is not None and f.image.shape == (260, 320, 3) for f in frames)
    window = frames[-1].image[30 : 30 + WINDOW_H, 40 : 40 + WINDOW_W]
    assert abs(int(np.median(window)) - int(np.median(frames[-1].image[:20]))) < 60  # empty


def test_a_window_is_pasted_where_the_config_says_it_is():
    window = np.full((WINDOW_H, WINDOW_W, 3), 200, np.uint8)
    frame = camera_frame(window, at=(10, 20), size=(200, 240))
    assert frame.shape == (240, 200, 3)
    assert (frame[20:220, 10:138] == 200).all() and (frame[:20] != 200).all()


def test_a_camera_port_taken_is_named(camera):
    """A second `sabot emulate-shoe --camera PORT` said only "[Errno 98] Address already in
    use"."""
    from controller.errors import InputError  # noqa: PLC0415

    running, _ = camera
    port = int(running.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(InputError, match=rf"--camera {port}: cannot serve the camera on "
                                         rf"127.0.0.1:{port} \(.*give another port\)"):
        ShoeCamera(Sensor(), synthetic_deck(), port=port)
