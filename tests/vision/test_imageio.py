"""Image files with any name: OpenCV's imread and imwrite crash the process on a file name
that is not UTF-8 (a segmentation fault, no message); the bytes go through Python instead
(issue 12). A header that claims too many pixels is a clear error."""

from __future__ import annotations

import os
import struct
import zlib

import numpy as np
import pytest

from hardware.camera import FileSource
from hardware.errors import CameraError
from vision.errors import ImageReadError
from vision.imageio import read_image, write_image

ODD = os.fsdecode(b"card-\xff\xfe")  # bytes no UTF-8 decoder accepts


def test_an_image_with_a_name_that_is_not_utf8_is_written_and_read(tmp_path):
    image = np.full((20, 30, 3), (10, 120, 240), np.uint8)
    path = tmp_path / f"{ODD}.png"
    assert write_image(path, image)
    assert np.array_equal(read_image(path), image)


def test_a_header_claiming_a_huge_image_is_a_clear_error(tmp_path):
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    path = tmp_path / "huge.png"
    path.write_bytes(png)
    with pytest.raises(ImageReadError, match="huge.png: not a readable image"):
        read_image(path)


def test_an_unreadable_file_names_itself_printably(tmp_path):
    path = tmp_path / f"{ODD}.png"
    path.write_bytes(b"not an image")
    with pytest.raises(ImageReadError) as error:
        read_image(path)
    assert "card-\\udcff\\udcfe.png: not a readable image" in str(error.value)
    str(error.value).encode("utf-8")  # printable on any terminal


def test_the_file_camera_reads_a_folder_of_frames_with_any_names(tmp_path):
    for k in range(3):
        write_image(tmp_path / f"{ODD}-{k}.png", np.full((8, 8, 3), k * 50, np.uint8))
    source = FileSource(tmp_path)
    source.open()
    frames = [source.grab() for _ in range(4)]
    assert [int(f[0, 0, 0]) for f in frames[:3]] == [0, 50, 100] and frames[3] is None


def test_a_video_whose_name_is_not_utf8_is_refused_not_a_crash(tmp_path):
    video = tmp_path / f"{ODD}.avi"
    video.write_bytes(b"\x00" * 64)
    with pytest.raises(CameraError, match="not valid UTF-8; rename it"):
        FileSource(video).open()
