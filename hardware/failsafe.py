"""Put the lamps in their fail-safe state whenever the program stops driving them.

Three ways the service can stop driving the table, each covered:
- normal exit or an uncaught exception: `atexit`;
- SIGTERM/SIGHUP/SIGINT (systemd stop, a closed terminal, Ctrl-C): a signal handler that
  sets the lamps, then hands the signal on to the previous handler;
- the main loop hangs (the process lives but decides nothing): `Watchdog`, fed by the loop.
SIGKILL and power loss cannot be caught: the wiring covers them (docs/deploy.md, Fail safe).
"""

from __future__ import annotations

import atexit
import signal
import threading
import time
from collections.abc import Callable
from typing import Protocol


class FailSafe(Protocol):
    def fail_safe(self, reason: str = "") -> None: ...
    def close(self, reason: str = "shutdown") -> None: ...


SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def install(lamps: FailSafe) -> Callable[[], None]:
    """Register the exit and signal hooks; returns a function that removes them again."""
    atexit.register(lamps.close, "process exit")
    previous = {}

    def handler(signum, frame):
        lamps.close(f"signal {signal.Signals(signum).name}")
        old = previous.get(signum)
        if callable(old):
            old(signum, frame)
        elif old == signal.SIG_DFL:
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    for signum in SIGNALS:
        previous[signum] = signal.signal(signum, handler)

    def uninstall() -> None:
        atexit.unregister(lamps.close)
        for signum, old in previous.items():
            signal.signal(signum, old)

    return uninstall


class Watchdog:
    """Fail safe if `feed()` is not called for `timeout` seconds.

    `check(now)` is the whole logic (tests call it with a fake clock); `start()` runs it in
    a daemon thread every `timeout / 4`.
    """

    def __init__(
        self, lamps: FailSafe, timeout: float, clock: Callable[[], float] = time.monotonic
    ):
        self.lamps = lamps
        self.timeout = timeout
        self.clock = clock
        self.tripped = False
        self._last_feed = clock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def feed(self) -> None:
        self._last_feed = self.clock()
        self.tripped = False

    def check(self, now: float) -> bool:
        """True (and the lamps set to fail safe, once per outage) when the feed is late."""
        late = now - self._last_feed > self.timeout
        if late and not self.tripped:
            self.tripped = True
            self.lamps.fail_safe(f"watchdog: not fed for {now - self._last_feed:.2f} s")
        return late

    def start(self) -> Watchdog:
        self._thread = threading.Thread(target=self._run, name="lamp-watchdog", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)

    def _run(self) -> None:
        while not self._stop.wait(self.timeout / 4):
            self.check(self.clock())
