"""Where a command that journals by default (simulate, playback) writes without --journal."""

from __future__ import annotations

import os
import sys
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
    path = os.path.join(folder, name)
    try:
        yield path
    except BaseException:
        # The command names its journal when it ends; one it did not end (a fault of the
        # service, Ctrl-C) still has what it journaled, kept: say where.
        if os.path.exists(path):
            print(f"sabot: what was journaled is kept in {path}", file=sys.stderr)
        raise
    finally:
        with suppress(OSError):  # not empty: the journal is the command's result, kept
            os.rmdir(folder)
