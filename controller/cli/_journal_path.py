"""Where a command that journals by default (simulate, playback) writes without --journal."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress


@contextmanager
def journal_path(given: str | None, prefix: str, name: str) -> Iterator[str]:
    """`given`, or `name` in a new temporary folder (`prefix`...), which is removed again if
    nothing was journaled there: a command refused for its input leaves no empty folder."""
    if given:
        yield given
        return
    folder = tempfile.mkdtemp(prefix=prefix)
    try:
        yield os.path.join(folder, name)
    finally:
        with suppress(OSError):  # not empty: the journal is the command's result, kept
            os.rmdir(folder)
