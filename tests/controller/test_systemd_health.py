import socket

from controller.health import Health
from controller.systemd import Notifier


def test_notifier_sends_datagrams_to_notify_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "4000000"})
        assert notifier.enabled and notifier.watchdog_interval == 2.0
        assert notifier.ready("recovered 12 records")
        assert server.recv(200) == b"READY=1\nSTATUS=recovered 12 records"
        assert notifier.watchdog()
        assert server.recv(200) == b"WATCHDOG=1"


def test_notifier_without_systemd_does_nothing():
    notifier = Notifier({})
    assert not notifier.enabled and notifier.watchdog_interval is None
    assert notifier.ready("x") is False


def test_stale_camera_faults_once_and_stops_the_watchdog():
    health = Health()
    health.watch("camera", 1.0, now=0.0)
    health.watch("link", 3.0, now=0.0)
    health.seen("camera", 0.5)
    assert health.healthy(1.2) and health.new_faults(1.2) == []
    assert not health.healthy(1.6)
    assert health.new_faults(1.6) == ["camera: nothing for 1.1 s"]
    assert health.new_faults(1.7) == []  # reported once
    health.seen("camera", 1.8)
    assert health.healthy(1.9)


def test_lost_link_is_stale_at_once():
    health = Health()
    health.watch("link", 3.0, now=0.0)
    health.lost("link")
    assert health.new_faults(0.1) == ["link: lost"]
    assert not health.healthy(0.1)
