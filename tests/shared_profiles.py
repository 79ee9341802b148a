"""Profiles enrolled once per test run, for all of the suite's workers (pytest-xdist runs two
processes, and an enrolment takes half a minute: each worker used to learn the same designs
again, and every rig of the service tests its own)."""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import vision
from vision.profile import Profile, load_profile, save_profile
from vision.reader import Reader


def _digest(samples: Path) -> str:
    digest = hashlib.sha256()
    for source in [*sorted(Path(vision.__file__).parent.glob("*.py")),
                   *sorted(Path(samples).iterdir())]:
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def _folder() -> Path:
    # Set for the whole run by the autouse fixture `profile_cache` (tests/conftest.py).
    return Path(os.environ["SABOT_CACHE"])


@contextmanager
def one_worker_at_a_time(name: str) -> Iterator[None]:
    """A lock the workers share: what one enrols under it, the others load."""
    with (_folder() / f"{name}.lock").open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def suite_reader(deck) -> Reader:
    """The simulator's reader of `deck` (`enrolled_reader`: learned from the design's faces
    and kept in the run's profile cache), learned by one worker only."""
    from controller.sim.setup import enrolled_reader

    with one_worker_at_a_time(f"design-{deck.name}"):
        return enrolled_reader(deck)


def suite_profile(name: str, make: Callable[[], Profile], samples: Path) -> Profile:
    """`make()`, the enrolment of the folder `samples`, made by one worker and kept under
    `name` for the others (and for a later run on the same cache only while the vision code
    and the samples are the same)."""
    path = _folder() / f"suite-{name}-{_digest(samples)}.npz"
    with one_worker_at_a_time(f"suite-{name}"):
        if path.exists():
            return load_profile(path)
        profile = make()
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        save_profile(profile, partial)
        os.replace(partial, path)  # whole or not at all: a worker killed mid-write leaves none
        return profile
