"""Fixtures for the whole suite."""

import os

import pytest


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
