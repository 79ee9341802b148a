"""Live camera sources: V4L2 devices through OpenCV, and the Pi camera through picamera2."""

from __future__ import annotations

import importlib

import numpy as np

from hardware.camera import FrameSource
from hardware.errors import BackendUnavailableError, CameraError, HardwareConfigError


class V4l2Source(FrameSource):
    """`device`: a number (0 for /dev/video0) or a path such as /dev/v4l/by-id/...-index0."""

    def __init__(self, device: int | str = 0, *, width: int | None = None,
                 height: int | None = None, fps: float | None = None, **kw):  # fmt: skip
        super().__init__(**kw)
        self.device, self.width, self.height, self.fps = device, width, height, fps
        self._capture = None

    def open(self) -> None:
        import cv2

        # OpenCV's own "[ WARN:0@0.578] ... VIDEOIO(V4L2): backend is generally available..."
        # came at every attempt to open a missing device (every 0.5 s), beside our one clear
        # warning for it. Process-wide (its Python binding has no level per backend); its
        # errors still show.
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
        self._capture = cv2.VideoCapture(self.device, cv2.CAP_V4L2)
        if not self._capture.isOpened():
            raise CameraError(f"cannot open V4L2 device {self.device!r} (is it plugged in, "
                              "and is the service user in the video group?)")  # fmt: skip
        for prop, value in (
            (cv2.CAP_PROP_FRAME_WIDTH, self.width),
            (cv2.CAP_PROP_FRAME_HEIGHT, self.height),
            (cv2.CAP_PROP_FPS, self.fps),
        ):
            if value:
                self._capture.set(prop, value)
        # One buffered frame: we want the card in the mouth now, not 4 frames ago.
        self._capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)

    def grab(self) -> np.ndarray:
        ok, image = self._capture.read()
        if not ok or image is None:
            raise CameraError(f"V4L2 device {self.device!r} returned no frame")
        return image

    def release(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None

    def __str__(self) -> str:
        return f"v4l2 {self.device}"


class Picamera2Source(FrameSource):
    """The Pi camera via libcamera. picamera2 comes from apt (python3-picamera2) on Bookworm,
    so the venv must be created with --system-site-packages (docs/deploy.md)."""

    def __init__(self, *, width: int = 1280, height: int = 720, fps: float | None = None,
                 camera: int = 0, exposure_us: int | None = None,
                 analogue_gain: float | None = None, **kw):
        super().__init__(**kw)
        self.size, self.camera_number, self.fps = (width, height), camera, fps
        # A fixed exposure: the reader is calibrated across an envelope of light and exposure
        # (`vision.synth`), and past it can read a card wrong with confidence (a dim,
        # washed-out face taken for the empty shoe, docs/vision.md); libcamera's automatic
        # exposure follows each card's paper and the empty shoe's dark, and may go there.
        self.exposure_us, self.analogue_gain = exposure_us, analogue_gain
        if bool(exposure_us) != bool(analogue_gain):
            # One fixed, the other would stay wherever the automatic exposure left it.
            raise HardwareConfigError("picamera2: give exposure_us and analogue_gain together "
                                      "(the two fix the exposure; neither: automatic)")
        self._camera = None
        try:  # here, not in the reader thread: a missing package is a start-up error
            self._picamera2 = importlib.import_module("picamera2")
        except ImportError as error:
            raise BackendUnavailableError(
                f"picamera2 is not importable ({error}): `apt install python3-picamera2` and "
                "create the venv with --system-site-packages"
            ) from error

    def open(self) -> None:
        self._camera = self._picamera2.Picamera2(self.camera_number)
        # RGB888 in libcamera's naming is BGR in memory: what OpenCV expects.
        controls: dict = {"FrameRate": float(self.fps)} if self.fps else {}
        if self.exposure_us:
            controls |= {"AeEnable": False, "ExposureTime": int(self.exposure_us),
                         "AnalogueGain": float(self.analogue_gain)}
        config = self._camera.create_video_configuration(
            main={"size": self.size, "format": "RGB888"}, controls=controls
        )
        self._camera.configure(config)
        self._camera.start()

    def grab(self) -> np.ndarray:
        return self._camera.capture_array("main")

    def release(self) -> None:
        if self._camera is not None:
            self._camera.stop()
            self._camera.close()
            self._camera = None

    def __str__(self) -> str:
        return f"picamera2 {self.camera_number}"
