"""Fixtures for the whole suite."""

import os
import signal
import threading

import pytest


@pytest.fixture(scope="session", autouse=True)
def children_hear_ctrl_c():
    """The tests stop `simulate`, `record`, `replay --follow` and the service with SIGINT as
    Ctrl-C does. A suite started in the background by a non-interactive shell (`make test &`
    in a script) inherits SIGINT ignored, and so would every command it starts (Python
    keeps an ignored SIGINT ignored): those tests then fail for the shell's reason. A
    handler here instead of the ignore makes the commands start with the default again."""
    if (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.SIG_IGN):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


@pytest.fixture(scope="session", autouse=True)
def profile_cache(tmp_path_factory):
    """The simulator's enrolled profiles go to one folder for the test run (shared by the
    workers, so each design is learned about once), never the user's cache."""
    folder = tmp_path_factory.getbasetemp().parent / "sabot-profiles"
    folder.mkdir(exist_ok=True)
    os.environ["SABOT_CACHE"] = str(folder)
    yield folder


@pytest.fixture(scope="session")
def firmware_binaries(tmp_path_factory):
    """The reference firmware's POSIX build (`make -C firmware`), once per test run."""
    from tests.firmware.cshoe import build

    return build(tmp_path_factory.mktemp("firmware") / "build")
