"""Storage that turns read-only under a journal, for the fault campaign (`bench/faults.py`,
the `read-only journal` rows).

- `read_only_folder`: a folder made read-only while nothing runs in it: a tmpfs remounted
  read-only (as root), or, for a user that file permissions bind, its write bits taken away.
- `failing_card`: an ext4 file system on a loop device, mounted `errors=remount-ro` as an SD
  card is; `fail()` raises a file-system error through ext4's `trigger_fs_error`, and the
  kernel turns it read-only under the writer that has it open, exactly as it does when a
  card fails. (A plain `mount -o remount,ro` is refused while a file is open for writing.)
  `repair()` unmounts it, runs e2fsck and mounts it again.

Both unmount in a `finally`. `Unavailable` says why one cannot be had (not root, no loop
devices, no e2fsprogs): the campaign then reports the row as not injected, with the reason.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

CARD_BYTES = 64 << 20  # a journal of a few shoes, its WAL and a new file system's own needs


class Unavailable(RuntimeError):
    """This machine, or this user, cannot make storage read-only."""


def _run(*command: str, failure: type[Exception] = RuntimeError) -> None:
    """`command`, or `failure` naming it and its first line of complaint. Setting up raises
    Unavailable (the row is then not injected); storage in use raises RuntimeError, since
    rows with injections done must not be reported as never injected."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise failure(f"`{' '.join(command)}`: {error}") from None
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines() or [f"exit {done.returncode}"]
        raise failure(f"`{' '.join(command)}`: {said[0]}")


@dataclass
class ReadOnlyFolder:
    path: Path
    how: str  # for the report
    mounted: bool

    def read_only(self) -> None:
        if self.mounted:
            _run("mount", "-o", "remount,ro", str(self.path))
        else:
            for file in self.path.iterdir():
                file.chmod(0o400)
            self.path.chmod(0o500)

    def writable(self) -> None:
        if self.mounted:
            _run("mount", "-o", "remount,rw", str(self.path))
        else:
            self.path.chmod(0o700)
            for file in self.path.iterdir():
                file.chmod(0o600)


@contextlib.contextmanager
def read_only_folder(where: Path) -> Iterator[ReadOnlyFolder]:
    where.mkdir()
    if os.geteuid() != 0:
        yield ReadOnlyFolder(where, "its folder's and files' write permissions taken away "
                                    "(the campaign runs as a user they bind)", mounted=False)
        return
    # Root writes through any permission: only the file system can refuse it.
    _run("mount", "-t", "tmpfs", "-o", "size=256m,mode=0700", "tmpfs", str(where),
         failure=Unavailable)
    try:
        yield ReadOnlyFolder(where, "a tmpfs remounted read-only", mounted=True)
    finally:
        _unmount(where)


@dataclass
class FailingCard:
    path: Path
    image: Path
    device: str = ""  # the loop device's name, for its ext4 entry in /sys

    def __post_init__(self) -> None:
        self.device = _device_of(self.path)

    def fail(self) -> None:
        """A file-system error: the kernel remounts the card read-only at once."""
        Path(f"/sys/fs/ext4/{self.device}/trigger_fs_error").write_text("fault campaign")

    def repair(self) -> None:
        """What a technician does with the card: unmount it, check it, mount it again."""
        _run("umount", str(self.path))  # not lazily: e2fsck must have it to itself
        # e2fsck: 0 clean, 1 errors corrected, 2 corrected (reboot advised); more is a failure.
        done = subprocess.run(["e2fsck", "-fy", str(self.image)], capture_output=True,
                              timeout=120)
        if done.returncode > 2:
            raise RuntimeError(f"e2fsck could not repair the card (exit {done.returncode})")
        _run("mount", "-o", "loop,errors=remount-ro", str(self.image), str(self.path))
        self.device = _device_of(self.path)


@contextlib.contextmanager
def failing_card(where: Path) -> Iterator[FailingCard]:
    if os.geteuid() != 0:
        raise Unavailable("mounting a file system needs root")
    for tool in ("mkfs.ext4", "e2fsck"):
        if shutil.which(tool) is None:
            raise Unavailable(f"{tool} is not installed (e2fsprogs)")
    where.mkdir()
    image = where.with_suffix(".img")
    with image.open("wb") as blank:
        blank.truncate(CARD_BYTES)
    _run("mkfs.ext4", "-q", "-F", str(image), failure=Unavailable)
    _run("mount", "-o", "loop,errors=remount-ro", str(image), str(where), failure=Unavailable)
    try:
        card = FailingCard(where, image)
        if not Path(f"/sys/fs/ext4/{card.device}/trigger_fs_error").exists():
            raise Unavailable("this kernel's ext4 has no trigger_fs_error")
        yield card
    finally:
        _unmount(where)
        image.unlink(missing_ok=True)


def _device_of(mount_point: Path) -> str:
    """The block device's name (`loop3`) of what is mounted at `mount_point`."""
    for line in Path("/proc/self/mounts").read_text().splitlines():
        source, target, *_ = line.split()
        if target == str(mount_point):
            return Path(source).name
    raise RuntimeError(f"{mount_point} is not mounted")


def _unmount(mount_point: Path) -> None:
    mounted = any(line.split()[1] == str(mount_point)
                  for line in Path("/proc/self/mounts").read_text().splitlines())
    if mounted:
        # Lazy: a process still in it (a test that failed) must not keep the mount for ever.
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True, timeout=60)
