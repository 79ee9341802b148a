"""The MJPEG source against a tiny local HTTP server serving a generated stream."""

import http.server
import threading

import cv2
import numpy as np
import pytest

from hardware.camera import open_camera
from hardware.errors import CameraStalledError


def jpeg(value):
    ok, data = cv2.imencode(".jpg", np.full((48, 64, 3), value, np.uint8))
    assert ok
    return data.tobytes()


VALUES = (30, 90, 150, 210)


def nearest(value):
    return min(VALUES, key=lambda v: abs(v - int(value)))


class Handler(http.server.BaseHTTPRequestHandler):
    frames = [jpeg(v) for v in VALUES]

    def do_GET(self):  # noqa: N802 - http.server's name
        self.server.authorizations.append(self.headers.get("Authorization"))
        if self.path == "/stall":
            self.server.stall_visits += 1
            if self.server.stall_visits > 1:
                self.server.release.wait(10)  # a camera that accepts and then says nothing
                return
        self.send_response(200)
        boundary = "sabotframe"
        self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={boundary}")
        self.end_headers()
        self.wfile.write(b"preamble to skip\r\n")
        for n, data in enumerate(self.frames):
            self.wfile.write(f"--{boundary}\r\nContent-Type: image/jpeg\r\n".encode())
            if n % 2 == 0:  # half the parts carry a length, half must be found by boundary
                self.wfile.write(f"Content-Length: {len(data)}\r\n".encode())
            self.wfile.write(b"\r\n" + data + b"\r\n")
            self.wfile.flush()
        if self.path == "/stall":
            # The next part's boundary ends a part that has no length; then nothing comes.
            self.wfile.write(f"--{boundary}\r\n".encode())
            self.wfile.flush()
            self.server.release.wait(10)
        else:
            self.wfile.write(f"--{boundary}--\r\n".encode())

    def log_message(self, *args):
        pass


class Served(str):
    """The server's URL, and the Authorization header of every request it had."""

    def __new__(cls, url: str, authorizations: list):
        served = super().__new__(cls, url)
        served.authorizations = authorizations
        return served


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.release = threading.Event()
    httpd.stall_visits = 0
    httpd.authorizations = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield Served(f"http://127.0.0.1:{httpd.server_address[1]}", httpd.authorizations)
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()


def test_mjpeg_parts_with_and_without_content_length_are_decoded_in_order(server):
    with open_camera("http", url=server + "/stall", stale_after=0.5, queue_size=16) as cam:
        values = [int(cam.read().image[10, 10, 0]) for _ in range(4)]
    assert all(abs(got - want) <= 3 for got, want in zip(values, VALUES, strict=True))


def test_a_stream_that_goes_quiet_is_reported_stale(server):
    with open_camera("http", url=server + "/stall", stale_after=0.3, queue_size=16) as cam:
        for _ in range(4):
            assert cam.read() is not None
        with pytest.raises(CameraStalledError, match="http"):
            cam.read()


def test_a_stream_that_ends_is_reconnected(server):
    url = server + "/end"
    with open_camera("http", url=url, reconnect_after=0.01, queue_size=16) as cam:
        values = [nearest(cam.read().image[10, 10, 0]) for _ in range(6)]
    assert values == [30, 90, 150, 210, 30, 90]  # then from the start again


def test_credentials_in_the_url_are_sent_as_basic_auth_and_never_shown(server, caplog):
    """A password in the camera URL used to be logged and journaled in faults (issue 12)."""
    from hardware.camera_mjpeg import MjpegSource  # noqa: PLC0415

    url = server.replace("http://", "http://rig:s%3Acret@") + "/end"
    source = MjpegSource(url)
    assert "s%3Acret" not in source.shown and "s:cret" not in source.shown
    assert source.shown.startswith("http://rig:***@127.0.0.1:")
    assert "cret" not in str(source)
    with open_camera("http", url=url, queue_size=16) as cam:
        assert cam.read() is not None
        assert "cret" not in str(cam)
    import base64  # noqa: PLC0415

    assert "Basic " + base64.b64encode(b"rig:s:cret").decode() in server.authorizations
    assert "cret" not in caplog.text
