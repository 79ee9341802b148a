"""Where a command that journals by default (simulate, playback) writes without --journal."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from controller.cli._paths import check_file_path


@contextmanager
def journal_path(given: str | None, prefix: str, name: str) -> Iterator[str]:
    """`given`, or `name` in a new temporary folder (`prefix`...), which is removed again if
    nothing was journaled there: a command refused for its input leaves no empty folder."""
    if given:
        check_journal_argument(given)
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


def check_journal_argument(given: str) -> None:
    """A --journal that names no file in an existing folder is the user's mistake, said as
    one (exit 2) before anything starts: the journal's own "cannot open the journal for
    writing" (exit 1) is for storage that fails under a table."""
    check_file_path("--journal", given, writable=False)


def signer_of(key: str | None):
    """The table key at `key` that signs a journal (`--sign`), created if absent as `sabot
    run` creates its own; None: the journal is not signed. `cryptography` only when asked."""
    if key is None:
        return None
    from controller.journal.signing import load_or_create_signer  # noqa: PLC0415

    check_file_path("--sign", key, writable=not os.path.exists(key))
    return load_or_create_signer(key)
