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


@pytest.fixture
def server():
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.release = threading.Event()
    httpd.stall_visits = 0
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
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
