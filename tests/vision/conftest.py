"""Shared fixtures: both deck designs, enrolled once per session (from reading windows for
the shared deck, as an operator captures them; from whole faces for the synthetic one, as
`sabot simulate` does), once per test run for all the workers (`tests/shared_profiles.py`)."""

from __future__ import annotations

import pytest

from tests.shared_profiles import suite_profile, suite_reader
from vision.decks import load_deck, synthetic_deck
from vision.enrol import enrol
from vision.reader import Reader
from vision.synth import write_faces, write_samples


@pytest.fixture(scope="session")
def vector_deck():
    return load_deck()


@pytest.fixture(scope="session")
def synth_deck():
    return synthetic_deck()


@pytest.fixture(scope="session")
def vector_samples(tmp_path_factory, vector_deck):
    return write_samples(vector_deck, tmp_path_factory.mktemp("vector-samples"))


@pytest.fixture(scope="session")
def synth_faces(tmp_path_factory, synth_deck):
    return write_faces(synth_deck, tmp_path_factory.mktemp("synth-faces"))


@pytest.fixture(scope="session")
def vector_profile(vector_samples):
    return suite_profile("vector-windows", lambda: enrol(vector_samples), vector_samples)


@pytest.fixture(scope="session")
def vector_reader(vector_profile):
    return Reader(vector_profile)


@pytest.fixture(scope="session")
def synth_reader(synth_deck):
    return suite_reader(synth_deck)  # enrolled from its whole faces, as `sabot simulate` does


@pytest.fixture(params=["vector", "synth"])
def design(request, vector_deck, synth_deck, vector_reader, synth_reader):
    """(deck, reader) for each design, so a test runs on both."""
    if request.param == "vector":
        return vector_deck, vector_reader
    return synth_deck, synth_reader
