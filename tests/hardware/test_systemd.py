import os
import socket

from hardware.systemd import notify, watchdog_period


def test_notify_sends_the_state_to_the_notify_socket(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        assert notify("READY=1\nSTATUS=dealing", {"NOTIFY_SOCKET": path})
        assert server.recv(100) == b"READY=1\nSTATUS=dealing"


def test_notify_understands_abstract_socket_names():
    name = f"sabot-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert server.recv(100) == b"WATCHDOG=1"


def test_outside_systemd_notify_is_a_no_op(tmp_path):
    assert notify("READY=1", {}) is False
    assert notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False


def test_watchdog_period_is_read_for_our_pid_only():
    assert watchdog_period({"WATCHDOG_USEC": "10000000"}) == 10.0
    assert watchdog_period({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": str(os.getpid())}) == 2.0
    assert watchdog_period({"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_period({}) is None and watchdog_period({"WATCHDOG_USEC": "x"}) is None
