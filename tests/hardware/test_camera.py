import sys
import threading
import time

import cv2
import numpy as np
import pytest

from hardware.camera import FileSource, FrameSource, SyntheticSource, open_camera
from hardware.camera_live import V4l2Source
from hardware.errors import (
    BackendUnavailableError,
    CameraError,
    CameraStalledError,
    HardwareConfigError,
)
from tests.surveillance.waiting import wait_until


def solid(value, shape=(48, 64, 3)):
    return np.full(shape, value, np.uint8)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 0.25
        return self.now


def test_synthetic_source_delivers_every_frame_in_order_with_timestamps_then_ends():
    with open_camera("synthetic", frames=[solid(v) for v in (10, 20, 30)], clock=Clock()) as cam:
        frames = list(cam)
        assert cam.read() is None and cam.status == "ended"
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 30]
    assert [f.index for f in frames] == [0, 1, 2]
    # Stamped by the source's clock when the reader took them (a synthetic frame exists the
    # moment it is asked for), so in order and each its own time.
    stamps = [f.at for f in frames]
    assert stamps == sorted(stamps) and len(set(stamps)) == 3
    assert all(at % 0.25 == 0 for at in stamps)


class OnCue(FrameSource):
    """A live camera that gives a frame each time it is cued."""

    def __init__(self):
        super().__init__(stale_after=5.0)
        self.cue = threading.Semaphore(0)

    def grab(self):
        while not self.cue.acquire(timeout=0.05):
            if self._stop.is_set():
                return None
        return solid(10)


def test_a_source_says_whether_a_frame_waits_to_be_read():
    """The camera thread asks it before waiting on the table: a live camera keeps only its
    newest frames (`ShoeRuntime._hand_over`)."""
    with OnCue() as cam:
        time.sleep(0.1)
        assert not cam.frame_waiting()  # nothing grabbed yet
        cam.cue.release()
        assert wait_until(cam.frame_waiting, timeout=5)
        assert int(cam.read().image[0, 0, 0]) == 10
        assert not cam.frame_waiting()  # read: the next one has not come


def test_a_source_that_stops_delivering_is_reported_stale_not_hung_on():
    release = threading.Event()
    frames = iter([solid(1)])

    def grab():
        frame = next(frames, None)
        if frame is None:
            release.wait()  # a driver stuck in a blocking call
        return frame

    cam = SyntheticSource(grab, stale_after=0.05).start()
    assert cam.read() is not None
    with pytest.raises(CameraStalledError, match="no frame for 50 ms"):
        cam.read()
    assert cam.status == "stale"
    release.set()
    cam.close()


def test_the_first_frame_may_take_longer_than_stale_after_because_opening_is_slow():
    """A video file or a device that takes a second to open on a loaded Pi is starting, not
    stale: the CI machine once failed a file camera for this."""
    release = threading.Event()
    grabs = []

    def grab():
        if grabs:  # after the first frame, none until the test is done (however slow it is)
            release.wait(5)
        grabs.append(1)
        time.sleep(0.3)  # a slow open, then frames at once
        return solid(7)

    with SyntheticSource(grab, stale_after=0.05) as cam:
        assert cam.read() is not None  # the first frame: waited for up to FIRST_FRAME_WITHIN_S
        assert cam.status == "ok"
        with pytest.raises(CameraStalledError, match="no frame for 50 ms"):
            cam.read()  # after the first frame, stale_after holds again
        release.set()


def test_a_failing_recorded_source_raises_camera_error():
    def grab():
        raise OSError("disk gone")

    with SyntheticSource(grab) as cam, pytest.raises(CameraError, match="disk gone"):
        cam.read()


def test_folder_of_frames_is_read_in_name_order(tmp_path):
    for name, value in (("b.png", 200), ("a.png", 100), ("c.jpg", 50)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "notes.txt").write_text("ignored")
    with FileSource(tmp_path) as cam:
        values = [int(f.image[0, 0, 0]) for f in cam]
    assert values[:2] == [100, 200] and abs(values[2] - 50) <= 3


def test_a_looping_folder_or_video_starts_again_at_its_end(tmp_path):
    """`sabot run --loop` (issue 13): a rig's recording played again and again."""
    for name, value in (("a.png", 10), ("b.png", 20), ("c.png", 30)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    with FileSource(tmp_path, loop=True) as cam:
        values = [int(cam.read().image[0, 0, 0]) for _ in range(7)]
        assert values == [10, 20, 30, 10, 20, 30, 10]
        assert wait_until(cam._queue.full, timeout=5)  # the reader thread has read passes ahead
        assert cam.loops == 2  # the restarts the caller reached, not the read-ahead's
    path = tmp_path / "loop.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for value in (40, 200):
        writer.write(solid(value))
    writer.release()
    with open_camera("file", path=path, loop=True) as cam:
        shades = [int(cam.read().image[20, 20, 0]) for _ in range(5)]
    assert all(abs(v - want) <= 5 for v, want in zip(shades, (40, 200, 40, 200, 40), strict=True))


def test_video_file_is_read_to_its_end(tmp_path):
    path = tmp_path / "session.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    assert writer.isOpened()
    for value in range(0, 250, 50):
        writer.write(solid(value))
    writer.release()
    with open_camera("file", path=path) as cam:
        frames = list(cam)
    assert len(frames) == 5 and frames[0].image.shape == (48, 64, 3)
    assert abs(int(frames[-1].image[20, 20, 0]) - 200) <= 5


def test_config_errors_name_the_problem(tmp_path):
    with pytest.raises(HardwareConfigError, match="'webcam'"):
        open_camera("webcam")
    with pytest.raises(HardwareConfigError, match="does not exist"):
        open_camera("file", path=tmp_path / "absent.avi")
    with pytest.raises(HardwareConfigError, match="no images"):
        open_camera("file", path=tmp_path)
    with pytest.raises(HardwareConfigError, match="'http'.*zoom"):
        open_camera("http", url="http://127.0.0.1:9/", zoom=2)
    with pytest.raises(HardwareConfigError, match="http://"):
        open_camera("http", url="rtsp://camera/stream")


class FakeCapture:
    """cv2.VideoCapture stand-in: `frames` then failures; records how it was opened."""

    opened = []

    def __init__(self, device, api):
        self.opened.append((device, api))
        # 7 and 8, then 9 after the one reconnect, then nothing: a live source keeps only
        # its newest frames, and more 9s behind a slow test would push 7 out.
        self.frames = {1: [solid(7), solid(8)], 2: [solid(9)]}.get(len(self.opened), [])
        self.props = {}

    def isOpened(self):  # noqa: N802 - OpenCV's name
        return True

    def set(self, prop, value):
        self.props[prop] = value

    def read(self):
        if self.frames:
            return True, self.frames.pop(0)
        return False, None

    def release(self):
        pass


def test_v4l2_source_opens_with_cap_v4l2_and_reconnects_after_a_failed_read(mocker):
    FakeCapture.opened = []
    mocker.patch("cv2.VideoCapture", FakeCapture)
    with open_camera("v4l2", device="/dev/video0", width=640, reconnect_after=0.01,
                     queue_size=8) as cam:  # room for all three, however slow the test
        values = [int(cam.read(timeout=5).image[0, 0, 0]) for _ in range(3)]
    assert values == [7, 8, 9]
    assert FakeCapture.opened[0] == ("/dev/video0", cv2.CAP_V4L2)
    assert len(FakeCapture.opened) >= 2
    assert "returned no frame" in cam.last_error


def test_v4l2_device_that_cannot_open_reads_as_stale_naming_the_device(mocker):
    mocker.patch.object(FrameSource, "FIRST_FRAME_WITHIN_S", 0.3)  # not the 10 s a Pi may need
    capture = mocker.patch("cv2.VideoCapture")
    capture.return_value.isOpened.return_value = False
    cam = open_camera("v4l2", device=3, stale_after=0.2, reconnect_after=0.01)
    with cam, pytest.raises(CameraStalledError, match="cannot open V4L2 device 3"):
        cam.read()


def test_a_v4l2_device_that_cannot_open_adds_no_warning_of_opencvs_own(tmp_path, capfd):
    """OpenCV printed "[ WARN:0@0.578] global cap.cpp:212 open VIDEOIO(V4L2): ..." at every
    attempt (every 0.5 s in the service), beside Sabot's own warning."""
    levels = cv2.utils.logging
    before = levels.getLogLevel()
    levels.setLogLevel(levels.LOG_LEVEL_WARNING)  # OpenCV's default, as a service starts
    try:
        with pytest.raises(CameraError, match="cannot open V4L2 device"):
            V4l2Source(str(tmp_path / "video9")).open()
    finally:
        levels.setLogLevel(before)
    assert capfd.readouterr().err == ""


def test_picamera2_source_configures_bgr_video_and_delivers_arrays(mocker):
    module = mocker.MagicMock()
    camera = module.Picamera2.return_value
    camera.capture_array.return_value = solid(42)
    mocker.patch.dict(sys.modules, {"picamera2": module})
    with open_camera("picamera2", width=640, height=480) as cam:
        frame = cam.read(timeout=5)
    assert int(frame.image[0, 0, 0]) == 42
    camera.create_video_configuration.assert_called_with(
        main={"size": (640, 480), "format": "RGB888"}, controls={}
    )
    camera.start.assert_called_once()
    camera.close.assert_called()


def test_picamera2_frame_rate_is_asked_of_libcamera(mocker):
    module = mocker.MagicMock()
    module.Picamera2.return_value.capture_array.return_value = solid(1)
    mocker.patch.dict(sys.modules, {"picamera2": module})
    with open_camera("picamera2", width=640, height=480, fps=90) as cam:
        cam.read(timeout=5)
    module.Picamera2.return_value.create_video_configuration.assert_called_with(
        main={"size": (640, 480), "format": "RGB888"}, controls={"FrameRate": 90.0})


def test_picamera2_fixed_exposure_turns_the_automatic_one_off(mocker):
    """A fixed exposure keeps the camera within the envelope the reader was calibrated on
    (docs/vision.md, known limits: past it a dim, washed-out face passed for the empty shoe)."""
    module = mocker.MagicMock()
    module.Picamera2.return_value.capture_array.return_value = solid(1)
    mocker.patch.dict(sys.modules, {"picamera2": module})
    with open_camera("picamera2", width=640, height=480, exposure_us=4000,
                     analogue_gain=2) as cam:
        cam.read(timeout=5)
    module.Picamera2.return_value.create_video_configuration.assert_called_with(
        main={"size": (640, 480), "format": "RGB888"},
        controls={"AeEnable": False, "ExposureTime": 4000, "AnalogueGain": 2.0})
    # One without the other would leave that one wherever the automatic exposure left it.
    for alone in ({"exposure_us": 4000}, {"analogue_gain": 2.0}):
        with pytest.raises(HardwareConfigError, match="give exposure_us and analogue_gain "
                                                      "together"):
            open_camera("picamera2", **alone)


def test_picamera2_missing_is_a_start_up_error_saying_how_to_install(mocker):
    mocker.patch.dict(sys.modules, {"picamera2": None})
    with pytest.raises(BackendUnavailableError, match="python3-picamera2"):
        open_camera("picamera2")
