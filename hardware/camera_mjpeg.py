"""MJPEG over HTTP: a multipart/x-mixed-replace stream of JPEG parts (IP cameras, mjpg-streamer,
`libcamera-vid --codec mjpeg` behind a small server). Parsed with http.client + cv2.imdecode.
"""

from __future__ import annotations

import base64
import http.client
import re
import urllib.parse
import urllib.request

import numpy as np

from hardware.camera import FrameSource
from hardware.errors import CameraError, HardwareConfigError

MAX_PART = 8 * 1024 * 1024  # no card-window JPEG is near this; a runaway part is a broken stream


class MjpegSource(FrameSource):
    def __init__(self, url: str, **kw):
        super().__init__(**kw)
        parts = urllib.parse.urlsplit(url)
        # What is shown (logs, faults journaled for ever) never holds the password.
        host = parts.hostname or ""
        netloc = host + (f":{parts.port}" if parts.port else "")
        self.shown = urllib.parse.urlunsplit(parts._replace(
            netloc=(f"{parts.username}:***@" if parts.password else
                    f"{parts.username}@" if parts.username else "") + netloc))
        if parts.scheme not in ("http", "https"):
            raise HardwareConfigError(f"camera url {self.shown!r} must start with http:// or "
                                      "https://")
        self.url = urllib.parse.urlunsplit(parts._replace(netloc=netloc))
        self._headers = {}
        if parts.username is not None:  # credentials in the URL: sent as HTTP basic auth
            token = f"{urllib.parse.unquote(parts.username)}:" \
                    f"{urllib.parse.unquote(parts.password or '')}"
            self._headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
        self._response: http.client.HTTPResponse | None = None
        self._boundary = b""

    def open(self) -> None:
        # The socket timeout bounds each blocking read; read() reports staleness meanwhile.
        request = urllib.request.Request(self.url, headers=self._headers)
        response = urllib.request.urlopen(request, timeout=max(self.stale_after, 0.1))
        content_type = response.headers.get("Content-Type", "")
        match = re.search(r'boundary="?([^";]+)"?', content_type)
        if "multipart" not in content_type or not match:
            response.close()
            raise CameraError(f"{self.shown} is not an MJPEG stream "
                              f"(Content-Type {content_type!r})")
        boundary = match.group(1)
        self._boundary = b"--" + (boundary[2:] if boundary.startswith("--") else boundary).encode()
        self._response = response

    def grab(self) -> np.ndarray:
        import cv2

        data = self._next_part()
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise CameraError(f"{self.shown}: a part of {len(data)} bytes is not a JPEG")
        return image

    def _next_part(self) -> bytes:
        stream = self._response
        line = self._readline()
        while line.strip() != self._boundary:  # skip preamble / the CRLF after a part
            if line.strip() == self._boundary + b"--":
                raise CameraError(f"{self.shown}: the stream ended")
            line = self._readline()
        length = None
        while (line := self._readline().strip()) != b"":
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length is not None:
            if length > MAX_PART:
                raise CameraError(f"{self.shown}: part of {length} bytes is too large")
            data = stream.read(length)
            if len(data) != length:
                raise CameraError(f"{self.shown}: the stream ended inside a part")
            return data
        # No Content-Length: read up to the next boundary line.
        data = bytearray()
        while True:
            line = self._readline()
            if line.startswith(self._boundary):
                self._pushback = line
                return bytes(data).removesuffix(b"\r\n")
            data += line
            if len(data) > MAX_PART:
                raise CameraError(f"{self.shown}: part without boundary is too large")

    _pushback = b""

    def _readline(self) -> bytes:
        if self._pushback:
            line, self._pushback = self._pushback, b""
            return line
        line = self._response.readline(MAX_PART)
        if not line:
            raise CameraError(f"{self.shown}: the server closed the stream")
        return line

    def release(self) -> None:
        if self._response is not None:
            self._response.close()
            self._response = None

    def __str__(self) -> str:
        return f"http {self.shown}"
