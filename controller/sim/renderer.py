"""The simulated shoe's camera frames, rendered in a process of its own.

In a thread beside the reader, rendering held the GIL for much of its time: a face read there
took 14.7 ms against 5.8 ms alone, and rendering took about a third of a simulated shoe
(`bench.e2e`). Here a child process (`serve`) renders the cards asked for, in order, from the
random generator it was given, so its frames are the ones rendering them one after another in
the dealer's process would give.

The child is a plain interpreter, not a fork: the service's threads are running by then
(a fork can inherit a lock one of them holds), and multiprocessing's other ways re-run the
caller's main script in the child. It is started with `-P` and this package's folder first on
its path, so it imports what the dealer's process imported, not a module of the same name in
the current folder. It runs in a session of its own, so the Ctrl-C that the terminal sends to
the whole foreground group reaches only the dealer's process, which answers for it; it ends
when its input closes (the dealer done, or killed).

Over the pipes: the dealer sends the deck, the generator and the passage's frames and
severity once, then one (code, face_up) per card, pickled. The frames themselves (under and
over views side by side) go through a file in memory both processes map (`RING` slots, one
card's frames each; the child writes card k to slot k mod RING and answers with their
count): through the pipe, pickled, they were 7 MB a card, and taking them held up the
camera 3.6 ms a card (1.5 s of a shoe). The child's own standard output is turned to its
standard error, so nothing printed there (a library's log) mixes with the answers.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import mmap
import os
import pickle
import subprocess
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path

import numpy as np

from controller.errors import SabotError
from vision.geometry import WINDOW_H, WINDOW_W

# Besides the timeout, for the first card: the child's start (numpy, OpenCV, the deck).
STARTING_S = 30.0
# Slots of the shared frames: at most this many cards may be asked for and not yet taken
# (the dealer asks two ahead).
RING = 4
FRAME_SHAPE = (WINDOW_H, 2 * WINDOW_W, 3)  # a frame: the under and the over view side by side
FRAME_BYTES = math.prod(FRAME_SHAPE)


class RendererError(SabotError, RuntimeError):
    """The rendering process stopped before giving the frames asked for."""


class CardRenderer:
    """Asks a child process for the frames of each card; `frames()` gives them back in the
    order asked, or a RendererError once `timeout` seconds have passed without them."""

    def __init__(self, deck, rng: np.random.Generator, frames_per_card: int,
                 severity: float, *, timeout: float = 10.0) -> None:
        self.timeout = timeout
        self._timed_out = False
        self._answered = False  # the child has given frames once: it has started
        # This very package, wherever the dealer's process found it (a checkout, a worktree).
        root = str(Path(__file__).resolve().parents[2])
        # What the child says goes to a file, read if it stops: a pipe nobody reads while
        # it runs could fill and stop it.
        self._said = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        self._slot = frames_per_card * FRAME_BYTES
        try:
            shared = _memory_file(RING * self._slot)
            try:
                self._shared = mmap.mmap(shared, RING * self._slot)
                child = (f"import sys; sys.path.insert(0, {root!r}); import {__name__} as r; "
                         f"r.serve({shared})")
                self._process = subprocess.Popen(
                    [sys.executable, "-P", "-c", child], stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE, stderr=self._said, start_new_session=True,
                    pass_fds=(shared,))
            finally:
                os.close(shared)  # the map and the child's copy keep it
        except BaseException:  # nothing started is left open
            if hasattr(self, "_shared"):
                self._shared.close()
            self._said.close()
            raise
        self._asked: deque[str] = deque()
        self._taken = 0  # cards whose frames were taken: the next one's slot
        try:
            self._send((deck, rng, frames_per_card, severity), "starting")
        except RendererError:
            self.close()
            raise

    def ask(self, code: str, face_up: bool) -> None:
        """Start rendering `code` passing the window (face up or down). At most RING cards
        may be waiting to be taken: the child would write over the frames of the first."""
        if len(self._asked) >= RING:
            raise ValueError(f"{RING} cards are waiting to be taken already; take one "
                             f"before asking for {code}")
        self._asked.append(code)
        self._send((code, face_up), f"asked for {code}")

    def frames(self) -> list[np.ndarray]:
        """The frames of the card asked for longest ago and not yet taken."""
        code = self._asked.popleft()
        # A child that hangs is stopped, and its frames' end is then the error below. The
        # first card waits for the child's start too (its imports, the deck: seconds on a Pi).
        allowed = self.timeout + (0.0 if self._answered else STARTING_S)
        watchdog = threading.Timer(allowed, self._hung)
        watchdog.start()
        try:
            answer = pickle.load(self._process.stdout)  # type: ignore[arg-type]
        except (EOFError, OSError, pickle.UnpicklingError) as error:
            raise self._stopped(f"rendering {code}", allowed) from error
        finally:
            watchdog.cancel()
        self._answered = True
        slot, self._taken = self._taken % RING, self._taken + 1
        # Copied out of the slot, which the child fills again RING cards later.
        shared = np.frombuffer(self._shared, np.uint8, answer[0] * FRAME_BYTES,
                               slot * self._slot)
        return list(shared.reshape(answer[0], *FRAME_SHAPE).copy())

    def close(self) -> None:
        try:
            for pipe in (self._process.stdin, self._process.stdout):
                # A child already gone: what was left to send goes nowhere.
                with contextlib.suppress(OSError):
                    pipe.close()  # type: ignore[union-attr]
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        finally:
            self._said.close()
            with contextlib.suppress(BufferError):  # a view of it still held: freed with it
                self._shared.close()

    def __enter__(self) -> CardRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _send(self, message, doing: str) -> None:
        try:
            pickle.dump(message, self._process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self._process.stdin.flush()  # type: ignore[union-attr]
        except OSError as error:
            raise self._stopped(doing) from error

    def _hung(self) -> None:
        self._timed_out = True
        self._process.kill()

    def _stopped(self, doing: str, allowed: float = 0.0) -> RendererError:
        code = self._process.poll()  # None: still running, stopped here
        self._process.kill()
        self._process.wait()
        self._said.seek(0)
        said = self._said.read().decode(errors="replace").strip().splitlines()
        if self._timed_out:
            how = f"it gave no frames for {allowed:g} s"
        elif code is not None and code < 0:
            how = f"killed by signal {-code}"
        elif said:
            how = said[-1]
        else:
            how = "it stopped answering" if code is None else f"exit status {code}"
        return RendererError(f"the simulated camera's renderer stopped while {doing}: {how}")


def _memory_file(size: int) -> int:
    """A file descriptor of `size` bytes with no name, in memory where the system can (a
    Pi's /tmp is on its SD card): the frames are written over and over, never kept."""
    if hasattr(os, "memfd_create"):
        descriptor = os.memfd_create("sabot-frames")
    else:  # not Linux
        descriptor, name = tempfile.mkstemp(prefix="sabot-frames-")
        os.unlink(name)
    try:
        os.ftruncate(descriptor, size)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def serve(shared_fd: int) -> None:
    """The child's side: answer the dealer's requests until its input closes, the frames
    in the file mapped from `shared_fd` (RING slots)."""
    import cv2

    from vision.synth import two_view_frames

    cv2.setNumThreads(1)  # as the dealer's process runs it: its threads would only compete
    answers = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything printed goes with what the child says, not into the frames
    requests = sys.stdin.buffer
    deck, rng, frames, severity = pickle.load(requests)
    slot = frames * FRAME_BYTES
    shared = np.frombuffer(mmap.mmap(shared_fd, RING * slot), np.uint8)
    os.close(shared_fd)
    for card in itertools.count():
        try:
            code, face_up = pickle.load(requests)
        except EOFError:
            return
        rendered = [np.hstack((under, over)) for under, over, _ in two_view_frames(
            deck, code, rng, face_up=face_up, frames=frames, severity=severity)]
        start = card % RING * slot
        # A card of more frames, or of frames of another size, fails here: the child stops,
        # and the dealer's error says what it said.
        place = shared[start : start + len(rendered) * FRAME_BYTES]
        place.reshape(len(rendered), *FRAME_SHAPE)[:] = rendered
        pickle.dump((len(rendered),), answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()
