import argparse
import json

import cv2
import numpy as np
import pytest

from controller.cli import record
from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.link import Link
from firmware_bridge.messages import CardPresent
from firmware_bridge.pty_shoe import PtyShoe
from hardware.errors import HardwareConfigError

from .ptyrig import FAST


def parse(*argv):
    parser = argparse.ArgumentParser()
    record.register(parser.add_subparsers())
    return parser.parse_args(["record", *argv])


def test_record_writes_frames_and_serial_bytes_that_replay_to_the_same_events(tmp_path):
    shoe = PtyShoe(ShoeEmulator(timing=FAST), link_path=tmp_path / "shoe")
    shoe.start()
    frames_dir = tmp_path / "camera"
    frames_dir.mkdir()
    for n in range(3):
        cv2.imwrite(str(frames_dir / f"{n}.png"), np.full((24, 32, 3), n * 50, np.uint8))
    out = tmp_path / "session"
    for _ in range(5):
        shoe.deal_card()
    args = ["--out", str(out), "--port", shoe.device, "--camera", "file"]
    status = record.run(parse(*args, "--camera-opt", f"path={frames_dir}", "--seconds", "1.5"))
    shoe.stop()
    assert status == 0
    lines = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert lines[0]["kind"] == "start"
    frames = [r for r in lines if r["kind"] == "frame"]
    assert [r["index"] for r in frames] == [0, 1, 2]
    assert all((out / r["file"]).exists() for r in frames)
    # Replay: the recorded bytes through a Link with the recorded boot id.
    replay = Link(boot_id=lines[0]["host_boot_id"])
    events = []
    for r in lines:
        if r["kind"] == "rx":
            events += replay.feed(bytes.fromhex(r["hex"]), r["t"])
    recorded = [r["counter"] for r in lines if r["kind"] == "link" and r["event"] == "CardPresent"]
    replayed = [e.counter for e in events if isinstance(e, CardPresent)]
    assert replayed == recorded == [1, 2, 3, 4, 5]


def test_a_killed_recording_keeps_every_record_up_to_its_last_frame(tmp_path):
    """Issue 13: the events file was written through an 8 KB buffer, so a `sabot record`
    killed (a rig's power, a SIGKILL) lost its last hundred records."""
    import os
    import signal
    import subprocess
    import sys
    import time

    frames_dir = tmp_path / "camera"
    frames_dir.mkdir()
    first = frames_dir / "000000.png"
    cv2.imwrite(str(first), np.full((24, 32, 3), 90, np.uint8))
    for n in range(1, 20_000):
        os.link(first, frames_dir / f"{n:06d}.png")
    out = tmp_path / "session"
    with PtyShoe(ShoeEmulator(timing=FAST), link_path=tmp_path / "shoe") as shoe:
        process = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "record", "--out", str(out), "--port",
             shoe.device, "--camera", "file", "--camera-opt", f"path={frames_dir}"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(list((out / "frames").glob("*.png"))
                                                  if (out / "frames").exists() else []) < 200:
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    written = len(list((out / "frames").glob("*.png")))
    lines = (out / "events.jsonl").read_text().splitlines()
    recorded = [json.loads(line) for line in lines]  # every line whole
    frames = [r for r in recorded if r["kind"] == "frame"]
    assert written >= 200 and len(frames) >= written - 1  # the frame being written aside


def test_record_refuses_a_non_empty_directory_and_bad_options(tmp_path, capsys):
    (tmp_path / "old.txt").write_text("x")
    assert record.run(parse("--out", str(tmp_path), "--port", "/dev/null")) == 2
    assert "not empty" in capsys.readouterr().err
    assert record.run(parse("--out", str(tmp_path / "new"))) == 2
    assert record.run(parse("--out", str(tmp_path / "n2"), "--camera", "file",
                            "--camera-opt", "oops")) == 2  # fmt: skip
    assert "KEY=VALUE" in capsys.readouterr().err


def test_record_names_a_port_or_a_camera_option_that_is_not_there(tmp_path, capsys):
    """A lab engineer's trial: a mistyped port recorded 0 frames and exited 0; a mistyped
    camera option gave "MjpegSource.__init__() missing 1 required positional argument:
    'url'", after the recording's folder was made."""
    assert record.run(parse("--out", str(tmp_path / "a"), "--port", "/tmp/no-such-shoe",
                            "--seconds", "1")) == 2
    assert "--port /tmp/no-such-shoe: no such device" in capsys.readouterr().err
    with pytest.raises(HardwareConfigError, match=r"camera kind 'http': no option uri; it "
                                                  r"needs url \(its options: .*url\)"):
        record.run(parse("--out", str(tmp_path / "b"), "--camera", "http",
                         "--camera-opt", "uri=http://127.0.0.1:1/"))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_record_fails_on_a_camera_that_never_gives_a_frame(tmp_path, capsys, monkeypatch):
    """A missing camera used to be retried for ever (issue 12)."""
    monkeypatch.setattr(record, "FIRST_FRAME_S", 0.3)
    from hardware.camera import FrameSource  # noqa: PLC0415

    monkeypatch.setattr(FrameSource, "FIRST_FRAME_WITHIN_S", 0.3)  # not the 10 s a Pi may need
    status = record.run(parse("--out", str(tmp_path / "rec"), "--camera", "v4l2",
                              "--camera-opt", "device=/dev/sabot-no-such-camera",
                              "--camera-opt", "stale_after=0.1", "--seconds", "20"))
    assert status == 3
    assert "gave no frame" in capsys.readouterr().err


def test_a_missing_cameras_reconnect_warnings_are_rate_limited(caplog):
    import logging  # noqa: PLC0415

    from hardware.camera import FrameSource  # noqa: PLC0415

    class Missing(FrameSource):
        def open(self):
            raise OSError("no such device")

    clock = [0.0]
    source = Missing(clock=lambda: clock[0])
    with caplog.at_level(logging.WARNING):
        for second in range(300):  # five minutes of failing every second
            clock[0] = float(second)
            source.last_error = "OSError: no such device"
            source._warn_reconnecting()
    lines = [r for r in caplog.records if "reconnecting" in r.getMessage()]
    assert len(lines) == 5
    assert "(61 times so far)" in lines[1].getMessage()


def test_a_port_another_program_holds_is_refused_by_name(tmp_path, capsys, monkeypatch):
    """A lab's trial (stop 46): a second recording (or a recording beside `sabot run`) on the
    shoe's port was accepted, and the two split the shoe's bytes between them. A serial
    device is held exclusively: the second is refused it, naming why, and leaves nothing
    behind. (The emulator's pty stands for one here: ptys are not held, see below.)"""
    from firmware_bridge import transport
    from firmware_bridge.transport import SerialTransport

    monkeypatch.setattr(transport, "exclusive_for", lambda port: True)
    with PtyShoe(ShoeEmulator(timing=FAST), link_path=tmp_path / "shoe") as shoe:
        first = SerialTransport(shoe.device, Link()).start()
        try:
            assert first.first_open() == ""
            second = SerialTransport(shoe.device, Link()).start()
            why = second.first_open()
            second.stop()
            assert "another program holds it (a second `sabot run` or `sabot record`" in why
            out = tmp_path / "session"
            assert record.run(parse("--out", str(out), "--port", shoe.device,
                                    "--seconds", "1")) == 2
            assert f"--port {shoe.device}: another program holds it" in (
                capsys.readouterr().err)
            assert not out.exists()
        finally:
            first.stop()
        # Let go, the port is anybody's again.
        again = SerialTransport(shoe.device, Link()).start()
        try:
            assert again.first_open() == ""
        finally:
            again.stop()


def test_a_pty_is_not_held_exclusively_for_its_number_is_reused(tmp_path):
    """A pty closed frees its number at once, and the next one made may get it while a
    process still holds the old one's lock (not yet told it is gone): the test suite's own
    simulation could not open its shoe. Serial devices are held; ptys are not."""
    from firmware_bridge.transport import SerialTransport, exclusive_for

    assert exclusive_for("/dev/ttyACM0") and exclusive_for("/dev/sabot-shoe")
    with PtyShoe(ShoeEmulator(timing=FAST), link_path=tmp_path / "shoe") as shoe:
        assert not exclusive_for(shoe.device) and not exclusive_for(str(tmp_path / "shoe"))
        first = SerialTransport(shoe.device, Link()).start()
        second = SerialTransport(shoe.device, Link()).start()
        try:
            assert first.first_open() == "" and second.first_open() == ""
        finally:
            first.stop()
            second.stop()


def test_a_recording_that_records_nothing_leaves_nothing_and_fails(tmp_path, capsys):
    """A trial (stop 61): a camera file that was no image recorded 0 frames and exited 0;
    one that was not there left a folder behind that refused the corrected command."""
    garbage = tmp_path / "not-an-image.png"
    garbage.write_bytes(bytes(range(256)) * 8)
    out = tmp_path / "rec"
    assert record.run(parse("--out", str(out), "--camera", "file", "--camera-opt",
                            f"path={garbage}", "--frames", "1")) == 2
    err = capsys.readouterr().err
    assert f"file {garbage}: no frame in it" in err
    assert "nothing recorded" in err and not out.exists()
    with pytest.raises(HardwareConfigError, match="does not exist"):
        record.run(parse("--out", str(out), "--camera", "file", "--camera-opt",
                         f"path={tmp_path / 'nope'}"))
    assert not out.exists()
    out.mkdir()  # a folder the user made is left, emptied of what the recording wrote
    assert record.run(parse("--out", str(out), "--camera", "file", "--camera-opt",
                            f"path={garbage}")) == 2
    assert out.is_dir() and not any(out.iterdir())


def test_record_names_an_out_that_is_a_file_or_in_no_folder(tmp_path, capsys):
    """A trial (stop 61): "[Errno 20] Not a directory", exit 1; and a missing parent folder
    was made where every other command says there is none."""
    afile = tmp_path / "profile.npz"
    afile.write_bytes(b"x")
    assert record.run(parse("--out", str(afile), "--port", "/dev/null")) == 2
    assert f"--out {afile}: not a directory" in capsys.readouterr().err
    deep = tmp_path / "no" / "such"
    assert record.run(parse("--out", str(deep), "--port", "/dev/null")) == 2
    assert f"no such directory {deep.parent}" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_a_new_recording_folder_is_its_owners_alone(tmp_path):
    """Its frames hold the live card order, as a journal does (0600)."""
    frames_dir = tmp_path / "camera"
    frames_dir.mkdir()
    cv2.imwrite(str(frames_dir / "0.png"), np.full((24, 32, 3), 50, np.uint8))
    out = tmp_path / "session"
    assert record.run(parse("--out", str(out), "--camera", "file", "--camera-opt",
                            f"path={frames_dir}", "--frames", "1")) == 0
    assert out.stat().st_mode & 0o777 == 0o700


def test_a_camera_switch_is_true_or_false_never_any_text(tmp_path):
    """A trial (stop 61): `--camera-opt loop=maybe` was taken, and looped (any text is true
    to Python)."""
    assert record.camera_options(["loop=yes", "stale_after=0.5"]) == {
        "loop": True, "stale_after": 0.5}
    assert record.camera_options(["loop=Off"]) == {"loop": False}
    with pytest.raises(HardwareConfigError, match="option loop is true or false, not 'maybe'"):
        record.run(parse("--out", str(tmp_path / "r"), "--camera", "file", "--camera-opt",
                         f"path={tmp_path}", "--camera-opt", "loop=maybe"))
    assert not (tmp_path / "r").exists()
