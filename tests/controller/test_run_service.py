"""`sabot run`: config validation, and the real service on a recorded camera and a pty shoe."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from controller.cli import main
from controller.errors import ConfigError
from controller.journal.signing import load_public_key
from controller.journal.store import Journal
from controller.journal.verify import verify
from controller.service.config import validate
from controller.service.main import Service, camera_options, install_stop_signals
from firmware_bridge.emulator import ShoeEmulator
from firmware_bridge.pty_shoe import PtyShoe
from tests.shared_profiles import suite_reader
from vision.decks import synthetic_deck
from vision.geometry import WINDOW_H, WINDOW_W
from vision.profile import save_profile
from vision.synth import shoe_frames

from .rig_config import write_config

CARDS = ["AS", "2C", "2H", "3D", "4H", "5D"]  # burn of two, then a round: P 6, B 8


def test_wrong_config_key_names_key_and_file(tmp_path, capsys):
    config = tmp_path / "config.toml"
    config.write_text("[table]\ndecks = 8\ncolour = 'red'\n")
    assert main(["run", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert str(config) in err and "unknown key 'colour' in [table]" in err
    assert "Traceback" not in err


def test_missing_config_file(tmp_path, capsys):
    assert main(["run", "--config", str(tmp_path / "none.toml")]) == 2
    assert "no such config file" in capsys.readouterr().err


def write_rig(tmp_path, device, tail_frames: int = 0):
    """The rig's config; the recorded camera ends `tail_frames` empty frames after the
    cards (time for a button pressed on the shoe to arrive before the service stops)."""
    deck = synthetic_deck()
    profile = tmp_path / "profile.npz"
    save_profile(suite_reader(deck).profile, profile)  # the suite's cached one
    frames = tmp_path / "frames"
    frames.mkdir()
    rng = np.random.default_rng(7)
    for index, (window, _) in enumerate(shoe_frames(deck, CARDS, rng, frames_per_card=24,
                                                    gap_frames=3, severity=0.3)):
        cv2.imwrite(str(frames / f"frame_{index:05d}.png"), window)
    empty = np.full_like(window, 30)
    for extra in range(tail_frames):
        cv2.imwrite(str(frames / f"frame_{index + 1 + extra:05d}.png"), empty)
    return write_config(tmp_path / "config.toml", table_id="test-table",
                        journal=tmp_path / "journal" / "shoe.sqlite", port=device,
                        camera={"source": "file", "path": frames, "profile": profile,
                                "window": [0, 0, WINDOW_W, WINDOW_H], "stale_after_s": 5.0})


def test_service_recovers_journals_frames_and_stops_on_sigterm(tmp_path):
    """SIGTERM while the recorded camera still plays (a long empty tail)."""
    notify = tmp_path / "notify.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener, \
            PtyShoe(ShoeEmulator(seed=1)) as shoe:
        listener.bind(str(notify))
        listener.settimeout(30)
        config = write_rig(tmp_path, shoe.device, tail_frames=3000)
        env = {**os.environ, "NOTIFY_SOCKET": str(notify)}
        service = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                                    str(config)], env=env, stderr=subprocess.PIPE, text=True)
        try:
            assert listener.recv(500).startswith(b"READY=1")
            journal_path = tmp_path / "journal" / "shoe.sqlite"
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and len(cards_in(journal_path)) < len(CARDS):
                time.sleep(0.1)
            shoe.press("no_more_bets")  # a button on the microcontroller reaches the table
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(
                    o["kind"] == "no_more_bets" for o in observations_in(journal_path)):
                time.sleep(0.05)
            service.send_signal(signal.SIGTERM)
            assert service.wait(timeout=20) == 0, service.stderr.read()
        finally:
            if service.poll() is None:
                service.kill()
    assert cards_in(journal_path) == CARDS
    with Journal(str(journal_path), create=False) as journal:
        kinds = [r.body.get("kind") for r in journal.records() if r.kind == "observation"]
        events = [r.body for r in journal.records() if r.kind == "event"]
    assert "no_more_bets" in kinds
    assert any(e["event"] == "round" and e["banker"] == ["3D", "5D"] for e in events)
    assert verify(str(journal_path)).ok


def test_the_service_stops_by_itself_when_its_recorded_camera_ends(tmp_path):
    """A rig's recording played to its end: the service says so and exits 0 (issue 13),
    instead of running on with nothing to read."""
    with PtyShoe(ShoeEmulator(seed=2)) as shoe:
        config = write_rig(tmp_path, shoe.device)
        service = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config",
                                  str(config), "--show"], capture_output=True, text=True,
                                 timeout=120)
    assert service.returncode == 0, service.stderr
    assert "the recorded camera ended after" in service.stderr
    # --show: what the table did, a line each as it happened (issue 13).
    shown = [line.split(" ", 1)[1] for line in service.stdout.splitlines()]
    assert shown[0].startswith("burn      AS shown, 1 burned: 2C")
    assert "card      2H to the player, round 1" in shown
    assert any(line.startswith("round   1  P 2H 4H") for line in shown)
    assert "lamps     banker_stand banker_win player_stand" in shown
    journal = tmp_path / "journal" / "shoe.sqlite"
    assert cards_in(journal) == CARDS
    # Signed with the table's key, made at first start beside the journal (issue 12).
    public = load_public_key(f"{journal}.key.pub")
    verdict = verify(str(journal), key=public)
    assert verdict.ok and "every signature by the trusted key" in verdict.message


def observations_in(path) -> list[dict]:
    """The journaled observations so far (empty while the service is still creating it)."""
    try:
        with Journal(str(path), create=False) as journal:
            return [r.body for r in journal.records() if r.kind == "observation"]
    except Exception:  # noqa: BLE001 - the service may be creating it right now
        return []


def cards_in(path):
    return [o["card"] for o in observations_in(path) if o["kind"] == "card"]


def test_watchdog_is_fed_only_while_frames_are_fresh_and_the_link_is_up():
    service = Service(validate({"serial": {"enabled": True}, "camera": {"stale_after_s": 1.0}}))
    service.runtime = SimpleNamespace(link_up=True, last_frame_at=100.0, alive=True)
    camera = SimpleNamespace(status="ok")
    assert service._healthy(camera, now=100.5)
    assert not service._healthy(camera, now=101.5)  # no frame for 1.5 s
    assert not service._healthy(SimpleNamespace(status="stale"), now=100.5)
    service.runtime.alive = False  # the camera thread died
    assert not service._healthy(camera, now=100.5)
    service.runtime.alive, service.runtime.link_up = True, False
    assert not service._healthy(camera, now=100.5)
    without_link = Service(validate({"serial": {"enabled": False}}))
    without_link.runtime = SimpleNamespace(link_up=False, last_frame_at=100.0, alive=True)
    assert without_link._healthy(camera, now=100.5)


def test_the_service_stops_when_its_table_thread_dies():
    service = Service(validate({}))
    dead = SimpleNamespace(error=OSError(28, "No space left on device"), alive=False)
    started = time.monotonic()
    service._main_loop(SimpleNamespace(status="ok"), dead)  # returns instead of looping
    assert time.monotonic() - started < 5


def test_the_service_stops_when_its_serial_link_thread_dies():
    """A review (stop 53): the serial thread ended by a handler's error left the service
    running with the watchdog fed and no card coming: it stops, and systemd restarts it."""
    service = Service(validate({}))
    service.runtime = SimpleNamespace(link_up=True, last_frame_at=None, alive=True)
    pipeline = SimpleNamespace(error=None, alive=True)
    dead = SimpleNamespace(error=RuntimeError("a bug in the handler"), alive=False)
    started = time.monotonic()
    service._main_loop(SimpleNamespace(status="ok"), pipeline, None, dead)  # returns
    assert time.monotonic() - started < 5


def test_synthetic_camera_is_refused_for_a_live_table():
    """Synthetic frames are `sabot simulate`'s; a rig serves them by http (docs/rig.md)."""
    with pytest.raises(ConfigError, match=r"\[camera\] source must be one of v4l2, picamera2, "
                                          r"http, file, not 'synthetic'"):
        validate({"camera": {"source": "synthetic"}})
    with pytest.raises(ConfigError, match=r"needs \[camera\] url"):
        camera_options({"source": "http", "url": "", "stale_after_s": 1.0})
    assert camera_options({"source": "v4l2", "device": "/dev/video0", "stale_after_s": 2}) == (
        "v4l2", {"stale_after": 2.0, "device": "/dev/video0"})


def test_a_pi_cameras_fixed_exposure_reaches_its_backend():
    camera = validate({"camera": {"source": "picamera2", "exposure_us": 4000,
                                  "analogue_gain": 2.0}})["camera"]
    assert camera_options(camera) == ("picamera2", {"stale_after": 1.0, "exposure_us": 4000,
                                                    "analogue_gain": 2.0})
    automatic = validate({"camera": {"source": "picamera2"}})["camera"]
    assert camera_options(automatic) == ("picamera2", {"stale_after": 1.0})


def test_a_recorded_camera_that_is_not_there_names_the_key(tmp_path):
    missing = str(tmp_path / "rec.mjpeg")
    with pytest.raises(ConfigError, match=r"\[camera\] path '.*rec.mjpeg' does not exist"):
        camera_options({"source": "file", "path": missing, "stale_after_s": 2})


def test_a_stop_signal_takes_no_lock_the_main_thread_may_hold():
    """Seen: `sabot run` never stopped on SIGTERM. The handler set the Event the main loop
    waited on, and the signal had come while the main thread held that Event's lock inside
    `wait`: the handler waited for it for ever. Now it only assigns."""
    service = Service(validate({}), threading.Event())
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    try:
        handler = install_stop_signals(service)
        assert signal.getsignal(signal.SIGTERM) is handler
        with service.stop._cond:  # what the main thread holds inside Event.wait
            caller = threading.Thread(target=handler, args=(signal.SIGTERM, None))
            caller.start()
            caller.join(timeout=2)
            assert not caller.is_alive()
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
    assert service.stopping() and service.signalled == signal.SIGTERM
    started = time.monotonic()
    service._main_loop(SimpleNamespace(status="ok"), SimpleNamespace(error=None, alive=True))
    assert time.monotonic() - started < 1  # the loop sees it at once


def test_loop_is_for_a_recorded_camera_only(tmp_path):
    """`sabot run --loop`: a file camera played again at its end; a live one cannot be."""
    rec = str(tmp_path)
    assert camera_options({"source": "file", "path": rec, "stale_after_s": 2}, loop=True) == (
        "file", {"stale_after": 2.0, "loop": True, "path": rec})
    with pytest.raises(ConfigError, match="--loop .* needs \\[camera\\] source = 'file', not "
                                          "'v4l2'"):
        camera_options({"source": "v4l2", "device": "/dev/video0", "stale_after_s": 2},
                       loop=True)


def test_the_main_loop_feeds_the_lamp_watchdog_while_it_runs():
    stop = threading.Event()
    service = Service(validate({}), stop)
    fed = []
    watchdog = SimpleNamespace(feed=lambda: fed.append(time.monotonic()))
    pipeline = SimpleNamespace(error=None, alive=True)
    threading.Timer(0.8, stop.set).start()
    service._main_loop(SimpleNamespace(status="ok"), pipeline, watchdog)
    assert len(fed) >= 2  # every HEALTH_PERIOD while the loop is alive


def write_empty_rig(tmp_path, device, frames: int):
    """A rig whose camera shows only the empty window, for `frames` frames (hard links of
    one image): the service runs a while and no card is read twice across a restart."""
    config = write_rig(tmp_path, device)
    folder = tmp_path / "empty-frames"
    folder.mkdir()
    first = folder / "frame_000000.png"
    cv2.imwrite(str(first), np.full((200, 128, 3), 30, np.uint8))
    for index in range(1, frames):
        os.link(first, folder / f"frame_{index:06d}.png")
    config.write_text(config.read_text().replace(str(tmp_path / "frames"), str(folder)))
    return config


def test_a_killed_service_journals_a_press_and_a_lid_change_in_flight_exactly_once(tmp_path):
    """Issue 11: `sabot run` killed (SIGKILL) after journaling a press and a lid change whose
    acks never reached the shoe, then started again from its journal: link version 2 sends
    it what came after its resume point, so each is journaled once (version 1 sent the
    unacknowledged press again)."""
    from firmware_bridge.faults import Faults

    journal_path = tmp_path / "journal" / "shoe.sqlite"
    with PtyShoe(ShoeEmulator(seed=3)) as shoe:
        config = write_empty_rig(tmp_path, shoe.device, frames=40_000)

        def start():
            return subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                                     str(config)], stderr=subprocess.PIPE, text=True)

        def wait_for(kind, count=1):
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if sum(o["kind"] == kind for o in observations_in(journal_path)) >= count:
                    return
                time.sleep(0.05)
            raise AssertionError(f"no {kind} journaled")

        first = start()
        try:
            shoe.press("acknowledge")  # brings the link up and the journal into being
            wait_for("ack")
            shoe.to_mcu.faults = Faults(drop=1.0)  # the host's acks no longer reach the shoe
            shoe.set_lid(True)
            shoe.press("no_more_bets")
            wait_for("no_more_bets")
            assert shoe.emulator.queued >= 2  # neither acknowledged
            first.kill()
            first.wait(timeout=20)
            shoe.to_mcu.faults = Faults()
            second = start()
            shoe.press("card_disclosed")  # after the replay, in order: proof it is done
            wait_for("disclosed")
            second.send_signal(signal.SIGTERM)
            assert second.wait(timeout=30) == 0, second.stderr.read()
        finally:
            for process in (first, locals().get("second")):
                if process is not None and process.poll() is None:
                    process.kill()
    kinds = [o["kind"] for o in observations_in(journal_path)]
    assert kinds.count("no_more_bets") == 1 and kinds.count("disclosed") == 1
    with Journal(str(journal_path), create=False) as journal:
        links = [r.body for r in journal.records() if r.kind == "link"]
    assert [body["lid"] for body in links if "lid" in body] == [True]
    assert [body["event"] for body in links] == sorted(body["event"] for body in links)
    assert verify(str(journal_path)).ok
