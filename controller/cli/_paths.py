"""The checks of a file path a command is to write, made before its work starts."""

from __future__ import annotations

import os

from controller.errors import InputError


def check_file_path(option: str, path: str, *, writable: bool = True) -> None:
    """A file can be made at `path` (given as `option`): it is not a folder, and its folder
    exists and (`writable`) may be written in. A journal's folder is the journal's to judge
    (its storage may have failed under a table: `journal.store.cannot`), so it is not asked."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        raise InputError(f"{option} {path}: a directory; give a file name in it")
    if not os.path.isdir(folder):
        raise InputError(f"{option} {path}: no such directory {folder}")
    if writable and not os.access(folder, os.W_OK):
        raise InputError(f"{option} {path}: cannot write in {folder}")
