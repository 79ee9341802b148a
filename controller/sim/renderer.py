"""The simulated shoe's camera frames, rendered in a process of its own.

In a thread beside the reader, rendering held the GIL for much of its time: a face read there
took 14.7 ms against 5.8 ms alone, and rendering took about a third of a simulated shoe
(`bench.e2e`). Here a child process (`serve`) renders the cards
asked for, in order, from the dealer's random generator as it stood, so its frames are the
ones rendering them one after another in the dealer's process would give.

The child is a plain interpreter, not a fork: the service's threads are running by then
(a fork can inherit a lock one of them holds), and multiprocessing's other ways re-run the
caller's main script in the child. It runs in a session of its own, so the Ctrl-C that the
terminal sends to the whole foreground group reaches only the dealer's process, which
answers for it; it ends when its input closes (the dealer done, or killed).

Over the pipes: the dealer sends the deck, the generator and the passage's frames and
severity once, then one (code, face_up) per card; the child answers each with the list of
its frames (under and over views side by side), all pickled.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path

import numpy as np

from controller.errors import SabotError


class RendererError(SabotError, RuntimeError):
    """The rendering process stopped before giving the frames asked for."""


class CardRenderer:
    """Asks a child process for the frames of each card; `frames()` gives them back in the
    order asked."""

    def __init__(self, deck, rng: np.random.Generator, frames_per_card: int,
                 severity: float) -> None:
        # This very package, wherever the dealer's process found it (a checkout, a worktree).
        root = str(Path(__file__).resolve().parents[2])
        # What the child says goes to a file, read if it stops: a pipe nobody reads while
        # it runs could fill and stop it.
        self._said = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        child = f"import sys; sys.path.insert(0, {root!r}); import {__name__} as r; r.serve()"
        self._process = subprocess.Popen(
            [sys.executable, "-c", child], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._said, start_new_session=True)
        self._asked: deque[str] = deque()
        try:
            self._send((deck, rng, frames_per_card, severity), "starting")
        except RendererError:
            self.close()
            raise

    def ask(self, code: str, face_up: bool) -> None:
        """Start rendering `code` passing the window (face up or down)."""
        self._asked.append(code)
        self._send((code, face_up), f"asked for {code}")

    def frames(self) -> list[np.ndarray]:
        """The frames of the card asked for longest ago and not yet taken."""
        code = self._asked.popleft()
        try:
            return pickle.load(self._process.stdout)  # type: ignore[arg-type]
        except (EOFError, OSError, pickle.UnpicklingError) as error:
            raise self._stopped(f"rendering {code}") from error

    def close(self) -> None:
        for pipe in (self._process.stdin, self._process.stdout):
            pipe.close()  # type: ignore[union-attr]
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._said.close()

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

    def _stopped(self, doing: str) -> RendererError:
        self._process.kill()
        self._process.wait()
        self._said.seek(0)
        said = self._said.read().decode(errors="replace").strip().splitlines()
        last = said[-1] if said else f"exit status {self._process.returncode}"
        return RendererError(f"the simulated camera's renderer stopped while {doing}: {last}")


def serve() -> None:
    """The child's side: answer the dealer's requests until its input closes."""
    from vision.synth import two_view_frames

    requests, answers = sys.stdin.buffer, sys.stdout.buffer
    deck, rng, frames, severity = pickle.load(requests)
    while True:
        try:
            code, face_up = pickle.load(requests)
        except EOFError:
            return
        pickle.dump([np.hstack((under, over)) for under, over, _ in two_view_frames(
            deck, code, rng, face_up=face_up, frames=frames, severity=severity)],
            answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()
